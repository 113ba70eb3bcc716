// Watch: follow a records file a running `yote match` appends to, and the
// games it is playing (the runner's FILE.live sidecar). Finished games
// arrive as events; the page keeps only the latest few hundred rows and a
// handful of boards, and one board per game in progress (replaced as a
// whole by each `live` event), so a long match does not grow its memory.
// A game in progress comes with its clocks as of the event (the server
// counts the mover's down to then); the page counts the mover's on.

import { $, drawHand, formatClock } from './app.js';
import { BoardView, miniBoard } from './board.js';

const MAX_ROWS = 200;
const MAX_BOARDS = 6;
let stream = null;
let ticker = null;

function stop() {
  stream?.close();
  stream = null;
  clearInterval(ticker);
  ticker = null;
  $('watch-info').textContent = 'stopped';
}

// A side's clock of a game in progress now: its reading, less the time
// since the event for the side whose clock runs. A side without a clock
// shows its control (`0.06 s/move`); a runner before clocks sent none.
function clockText(g, side) {
  const c = g.clock;
  if (!c) return '';
  if (c[side] === null || c[side] === undefined) {
    const control = c.controls?.[side] ?? '';
    const m = /^(movetime|nodes|depth)=(\d+)$/.exec(control);
    if (!m) return control;
    return m[1] === 'movetime' ? `${Number(m[2]) / 1000} s/move` : `${m[1]} ${m[2]}`;
  }
  const running = c.running === side ? performance.now() - g.received : 0;
  return formatClock(c[side] - running);
}

function drawClock(el, g, side) {
  const text = clockText(g, side);
  if (el.textContent !== text) el.textContent = text;
  el.classList.toggle('running', g.clock?.running === side);
}

// Every running clock shown, a few times a second.
function tick() {
  for (const entry of liveViews.values()) {
    for (const side of ['W', 'B']) drawClock(entry.clocks[side], entry.game, side);
  }
  if (large.game) {
    for (const side of ['W', 'B']) drawClock($(`watch-clock-${side}`), large.game, side);
  }
}

function follow(id) {
  stop();
  if (!id) return;
  clearFinished();
  drawLive([]);
  ticker = setInterval(tick, 100);
  stream = new EventSource(`/api/watch?records=${id}`);
  // The server sends the file's games from its start on each connection
  // (a reconnect of the EventSource) and after a `reset` (the file was
  // rewritten): what the page shows is dropped first, not shown twice.
  stream.addEventListener('open', clearFinished);
  stream.addEventListener('reset', clearFinished);
  stream.addEventListener('game', (e) => addGame(JSON.parse(e.data)));
  stream.addEventListener('live', (e) => drawLive(JSON.parse(e.data).games));
  stream.addEventListener('standings', (e) => drawStandings(JSON.parse(e.data)));
  stream.addEventListener('error', (e) => {
    if (e.data) $('watch-info').textContent = JSON.parse(e.data).error;
  });
  $('watch-info').textContent = 'following…';
}

function clearFinished() {
  $('watch-games').querySelector('tbody').replaceChildren();
  $('watch-boards').replaceChildren();
  $('standings').querySelector('tbody').replaceChildren();
}

// The boards of the games in progress, keyed by game number: a board
// still running is redrawn in place, one that ended is removed.
const liveViews = new Map();

function drawLive(games) {
  const box = $('watch-live');
  const wanted = new Set(games.map((g) => String(g.game)));
  for (const [number, entry] of liveViews) {
    if (!wanted.has(number)) {
      entry.el.remove();
      liveViews.delete(number);
    }
  }
  for (const g of games) {
    const number = String(g.game);
    let entry = liveViews.get(number);
    if (!entry) {
      const el = document.createElement('div');
      el.className = 'mini';
      el.dataset.liveGame = number;
      const title = document.createElement('div');
      const board = document.createElement('div');
      board.className = 'board';
      const note = document.createElement('div');
      note.className = 'muted';
      // White's and Black's clocks under the board.
      const clocks = document.createElement('div');
      clocks.className = 'mini-clocks';
      const W = document.createElement('span');
      const B = document.createElement('span');
      W.dataset.clock = 'W';
      B.dataset.clock = 'B';
      clocks.append(W, B);
      el.append(title, board, clocks, note);
      entry = { el, title, note, clocks: { W, B }, view: new BoardView(board, { cellSize: 26, coords: false }) };
      el.onclick = () => openLarge(number);
      liveViews.set(number, entry);
    }
    entry.title.textContent = `#${number} ${g.white} – ${g.black}`;
    entry.note.textContent = g.error ?? `ply ${g.plies}${g.last ? `: ${g.last}` : ''}`;
    entry.el.dataset.plies = String(g.plies);
    if (g.board) entry.view.draw(g.board);
    g.received = performance.now();
    entry.game = g;
    entry.clocks.W.parentElement.hidden = !g.clock;
    for (const side of ['W', 'B']) drawClock(entry.clocks[side], g, side);
    if (large.number === number) drawLarge(g);
    box.append(entry.el);
  }
  box.querySelector(':scope > .muted')?.remove();
  if (!games.length) {
    const none = document.createElement('span');
    none.className = 'muted';
    none.textContent = 'no game in progress';
    box.append(none);
  }
}

function addGame(g) {
  // A game that lands is no longer in progress.
  const running = liveViews.get(String(g.round));
  if (running) {
    running.el.remove();
    liveViews.delete(String(g.round));
  }
  // Open large, it stays as it ended, its clocks stopped.
  if (large.number === String(g.round) && large.game?.clock?.running) {
    const c = { ...large.game.clock };
    c[c.running] = Math.max(0, c[c.running] - (performance.now() - large.game.received));
    c.running = null;
    large.game = { ...large.game, clock: c };
    large.number = null;
    tick();
  }
  const tbody = $('watch-games').querySelector('tbody');
  const tr = document.createElement('tr');
  for (const v of [g.index + 1, g.white, g.black, g.result, g.termination]) {
    const td = document.createElement('td');
    td.textContent = String(v);
    tr.append(td);
  }
  tbody.prepend(tr);
  while (tbody.children.length > MAX_ROWS) tbody.lastChild.remove();
  if (g.final) {
    const boards = $('watch-boards');
    const box = document.createElement('div');
    box.className = 'mini';
    const title = document.createElement('div');
    title.textContent = `#${g.index + 1} ${g.white} – ${g.black}: ${g.result}`;
    const end = document.createElement('div');
    end.className = 'muted';
    end.textContent = g.end ?? g.termination ?? '';
    box.append(title, miniBoard(g.final), end);
    box.onclick = () => { large.number = null; showLarge({ ...g, board: g.final, clock: null, title: title.textContent, note: end.textContent }); };
    boards.prepend(box);
    while (boards.children.length > MAX_BOARDS) boards.lastChild.remove();
  }
}

function drawStandings(data) {
  $('watch-info').textContent = `${data.games} games finished`;
  const tbody = $('standings').querySelector('tbody');
  tbody.replaceChildren();
  for (const s of data.standings ?? []) {
    const tr = document.createElement('tr');
    const elo = s.elo === null ? '—' : `${s.elo > 0 ? '+' : ''}${s.elo}${s.error !== null ? ` ± ${s.error}` : ''}`;
    for (const v of [s.name, s.games, s.points, elo]) {
      const td = document.createElement('td');
      td.textContent = String(v);
      tr.append(td);
    }
    tbody.append(tr);
  }
}

// One game large, with its players, hands and clocks: a game in progress
// follows its moves and its clocks run.
const large = { number: null, view: null, game: null };

function openLarge(number) {
  const entry = liveViews.get(number);
  if (!entry) return;
  large.number = number;
  drawLarge(entry.game);
}

function drawLarge(g) {
  showLarge({ ...g, title: `#${g.game} ${g.white} – ${g.black}`, note: g.error ?? `ply ${g.plies}${g.last ? `: ${g.last}` : ''}` });
}

function showLarge(g) {
  const box = $('watch-large');
  large.view ??= new BoardView(box.querySelector('.board'), { cellSize: 48, coords: true });
  large.game = g;
  box.querySelector('h2').textContent = g.title;
  const hands = g.board?.hands ? ` · in hand: White ${g.board.hands.W}, Black ${g.board.hands.B}` : '';
  box.querySelector('p').textContent = `${g.note}${hands}`;
  for (const side of ['W', 'B']) {
    const player = box.querySelector(`[data-role="watch-player-${side}"]`);
    player.querySelector('.name').textContent = side === 'W' ? g.white : g.black;
    const hand = player.querySelector('.hand');
    if (g.board) drawHand(hand, g.board.hands[side]);
    drawClock($(`watch-clock-${side}`), g, side);
  }
  if (g.board) {
    // As large as the dialog allows (the whole width on a phone).
    large.view.fit(g.board.rows, g.board.cols, Math.min(400, window.innerWidth * 0.92 - 48));
    large.view.draw(g.board);
  }
  if (!box.open) box.showModal();
}

window.addEventListener('pagehide', () => stream?.close());
// The large board follows the window (a phone turned, a window resized).
window.addEventListener('resize', () => { if ($('watch-large').open && large.game) showLarge(large.game); });

export function initWatch(ctx) {
  const select = $('watch-source');
  for (const r of ctx.config.records.filter((r) => r.file)) select.append(new Option(r.name, r.id));
  if (!select.options.length) select.append(new Option('(start yote gui with --records FILE)', ''));
  $('watch-start').onclick = () => follow(select.value);
  $('watch-stop').onclick = stop;
  $('watch-large-close').onclick = () => { large.number = null; large.game = null; $('watch-large').close(); };
  $('watch-large').onclose = () => { large.number = null; large.game = null; };
}

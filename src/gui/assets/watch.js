// Watch: follow a records file a running `yote match` appends to, and the
// games it is playing (the runner's FILE.live sidecar). Finished games
// arrive as events; the page keeps only the latest few hundred rows and a
// handful of boards, and one board per game in progress (replaced as a
// whole by each `live` event), so a long match does not grow its memory.

import { $ } from './app.js';
import { BoardView, miniBoard } from './board.js';

const MAX_ROWS = 200;
const MAX_BOARDS = 6;
let stream = null;

function stop() {
  stream?.close();
  stream = null;
  $('watch-info').textContent = 'stopped';
}

function follow(id) {
  stop();
  if (!id) return;
  clearFinished();
  drawLive([]);
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
      el.append(title, board, note);
      entry = { el, title, note, view: new BoardView(board, { cellSize: 26, coords: false }) };
      el.onclick = () => openLarge(number);
      liveViews.set(number, entry);
    }
    entry.title.textContent = `#${number} ${g.white} – ${g.black}`;
    entry.note.textContent = g.error ?? `ply ${g.plies}${g.last ? `: ${g.last}` : ''}`;
    entry.el.dataset.plies = String(g.plies);
    if (g.board) entry.view.draw(g.board);
    entry.game = g;
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
    box.onclick = () => { large.number = null; showLarge({ ...g, board: g.final, title: title.textContent, note: end.textContent }); };
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

// One game large, with its hands: a game in progress follows its moves.
const large = { number: null, view: null };

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
  box.querySelector('h2').textContent = g.title;
  const hands = g.board?.hands ? ` · in hand: White ${g.board.hands.W}, Black ${g.board.hands.B}` : '';
  box.querySelector('p').textContent = `${g.note}${hands}`;
  if (g.board) large.view.draw(g.board);
  if (!box.open) box.showModal();
}

window.addEventListener('pagehide', () => stream?.close());

export function initWatch(ctx) {
  const select = $('watch-source');
  for (const r of ctx.config.records.filter((r) => r.file)) select.append(new Option(r.name, r.id));
  if (!select.options.length) select.append(new Option('(start yote gui with --records FILE)', ''));
  $('watch-start').onclick = () => follow(select.value);
  $('watch-stop').onclick = stop;
  $('watch-large-close').onclick = () => { large.number = null; $('watch-large').close(); };
  $('watch-large').onclose = () => { large.number = null; };
}

// The page: Play and Analyse each keep a game (rules, start position, a
// move tree), drawn from what the server says of the line on the board.
// Clicking picks among the server's legal moves; nothing here decides
// what is legal.

import { get, post, on, openSession } from './api.js';
import { BoardView, lastMoveMarks } from './board.js';
import { MoveTree } from './tree.js';
import { renderTree } from './moves.js';
import { loadSettings, remember, recall } from './settings.js';
import { initPlay } from './play.js';
import { initAnalyse } from './analyse.js';
import { initReview } from './review.js';
import { initWatch } from './watch.js';

const $ = (id) => document.getElementById(id);

function blankGame(variant = 'standard', fen = null) {
  return { variant, fen, tree: new MoveTree(), pending: null };
}

export const ctx = {
  config: null,
  view: 'play',
  games: { play: blankGame(), analyse: null },
  state: null,
  stateRequest: null,
  flipped: false,
  selected: null,   // a square, or 'hand' for a placement
  picked: [],       // removals chosen so far ('c3' or '@')
  over: null,       // an ending the rules do not know: resignation, time, agreement
  editing: false,
  hooks: { changed: [], square: null, view: [], keys: [] },
  board: null,
};

// The game on the board: Analyse's in Analyse, else Play's.
export function active() {
  return ctx.view === 'analyse' && ctx.games.analyse ? ctx.games.analyse : ctx.games.play;
}

// What the server is asked about: the line to the current node, and the
// jump of a capture whose removals are being chosen.
Object.defineProperty(ctx, 'game', {
  get() {
    const g = active();
    return { variant: g.variant, fen: g.fen, moves: [...g.tree.line(), ...(g.pending ? [g.pending] : [])] };
  },
});

export function showError(message, where = 'error') {
  const el = $(where);
  el.textContent = message || '';
  el.hidden = !message;
}

export function gameRequest(extra = {}) {
  return { ...ctx.game, ...extra };
}

// A game request's identity: a reply belongs to the board only while the
// board still shows the line it was asked about.
export const keyOf = (r) => JSON.stringify([r.variant, r.fen ?? null, r.moves]);

// The line on the board changed (its state not yet come): whatever was
// said of the old one (analysis lines) goes at once.
function boardMoved() {
  for (const hook of ctx.hooks.moved ?? []) hook();
}

function applyState(state, request) {
  ctx.state = state;
  ctx.stateRequest = request;
  ctx.selected = null;
  ctx.picked = [];
  const g = active();
  if (!state.pending) g.tree.current.side = state.board.side;
  hideChooser();
  render();
  for (const hook of ctx.hooks.changed) hook(state);
}

// Asks the server for the state of the line on the board and redraws; a
// reply overtaken by a newer question is dropped.
export async function refresh() {
  const request = gameRequest();
  const state = await post('/api/state', request);
  if (keyOf(request) === keyOf(ctx.game)) applyState(state, request);
  return state;
}

// Replaces a view's game by the one given (`moves` may hold a capture as
// its jump and its removals: the server's joined moves are kept).
export async function setGame(game, which = ctx.view === 'analyse' ? 'analyse' : 'play') {
  const variant = game.variant ?? 'standard';
  const fen = game.fen || null;
  const state = await post('/api/state', { variant, fen, moves: game.moves ?? [] }).catch((e) => {
    showError(e.message);
    throw e;
  });
  const fresh = blankGame(variant, fen);
  for (const m of state.engine_moves) fresh.tree.play(m);
  fresh.pending = state.pending;
  ctx.games[which] = fresh;
  boardMoved();
  if (which === 'play') ctx.over = null;
  showError('');
  if (active() === fresh) await refresh();
  return fresh;
}

// Plays one ply as text on the game on the board: a whole move, the jump
// of a capture, or the removals finishing it. The server checks it.
export async function playText(text) {
  const g = active();
  const at = g.tree.current;
  const pending = g.pending;
  const request = { variant: g.variant, fen: g.fen, moves: [...g.tree.line(), ...(pending ? [pending] : []), text] };
  let state;
  try {
    state = await post('/api/state', request);
  } catch (e) {
    showError(e.message);
    render();
    throw e;
  }
  if (g.tree.current !== at || g.pending !== pending) return null; // the board moved on meanwhile
  if (state.pending) {
    g.pending = state.pending;
  } else {
    g.pending = null;
    g.tree.play(state.engine_moves.at(-1));
  }
  // Moves made on Analyse's board are the person's work: replacing that
  // board's game, or leaving the page, asks first.
  if (g === ctx.games.analyse) g.touched = true;
  showError('');
  if (g === active()) {
    boardMoved();
    applyState(state, { variant: g.variant, fen: g.fen, moves: ctx.game.moves });
  }
  return state;
}

// Moves through the tree (keys, the move list); a jump half entered is
// dropped.
export function goTo(node) {
  const g = active();
  g.pending = null;
  g.tree.current = node;
  boardMoved();
  return refresh().catch((e) => showError(e.message));
}

export function navigate(where) {
  const t = active().tree;
  const to = { back: t.current.parent ?? t.current, forward: t.current.children[0] ?? t.current, first: t.root, last: t.end(t.current) }[where];
  if (to !== t.current || active().pending) goTo(to);
}

export function render() {
  const st = ctx.state;
  if (!st) return;
  ctx.board.flipped = ctx.flipped;
  $('evalbar').classList.toggle('flipped', ctx.flipped);
  const board = ctx.shownBoard ?? st.board;
  const live = !ctx.shownBoard;
  const marks = live ? liveMarks(st) : (ctx.shownMarks ?? {});
  fitBoard();
  ctx.board.draw(board, marks);
  renderPlayers(board, live ? marks : {});
  for (const hook of ctx.hooks.render ?? []) hook();
  if (live) {
    renderMoves(st);
    $('status').textContent = statusText(st);
  }
}

function liveMarks(st) {
  const g = active();
  const lastMove = st.pending ?? g.tree.current.move ?? '';
  const marks = { selected: ctx.selected, targets: new Set(), captures: new Set(), removable: new Set(), picked: ctx.picked, arrow: ctx.boardArrow?.(), ...lastMoveMarks(lastMove, st.board) };
  if (st.board.owed > 0) {
    for (const m of removalsLeft(st)) for (const r of m.removes) if (!ctx.picked.includes(r)) marks.removable.add(r);
  } else if (ctx.selected) {
    for (const m of st.legal) {
      if (ctx.selected === 'hand' ? m.from === null && m.to : m.from === ctx.selected) {
        marks.targets.add(m.to);
        if (m.captured.length) marks.captures.add(m.to);
      }
    }
  }
  return marks;
}

// Removal-only moves that agree with the removals picked so far.
function removalsLeft(st) {
  return st.legal.filter((m) => {
    const all = [...m.removes, ...Array(m.hand).fill('@')];
    const rest = [...all];
    for (const p of ctx.picked) {
      const at = rest.indexOf(p);
      if (at < 0) return false;
      rest.splice(at, 1);
    }
    return true;
  });
}

function handRemovable(st) {
  if (st.board.owed === 0) return false;
  const picks = ctx.picked.filter((p) => p === '@').length;
  return removalsLeft(st).some((m) => m.hand > picks);
}

// A clock, as Play and Watch show it: m:ss from a minute up, else seconds
// and tenths.
export function formatClock(ms) {
  const s = Math.max(0, ms) / 1000;
  if (s >= 60) return `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;
  return s.toFixed(1);
}

const TRAY = 12;

export function drawHand(hand, count) {
  let tray = hand.querySelector('.tray');
  let number = hand.querySelector('b');
  if (!tray) {
    tray = document.createElement('span');
    tray.className = 'tray';
    number = document.createElement('b');
    hand.replaceChildren(tray, number);
  }
  const shown = Math.min(TRAY, count);
  while (tray.children.length > shown) tray.lastChild.remove();
  while (tray.children.length < shown) tray.append(document.createElement('i'));
  number.textContent = String(count);
}

function renderPlayers(board, marks) {
  const bottom = ctx.flipped ? 'B' : 'W';
  for (const [id, side] of [['bottom-player', bottom], ['top-player', bottom === 'W' ? 'B' : 'W']]) {
    const box = $(id);
    const hand = box.querySelector('.hand');
    hand.dataset.role = `hand-${side}`;
    hand.className = `hand ${side}`;
    drawHand(hand, board.hands[side]);
    const st = ctx.state;
    if (marks.removable && st.board.owed > 0 && side !== st.board.side && handRemovable(st)) hand.classList.add('removable');
    if (ctx.selected === 'hand' && side === st.board.side) hand.classList.add('selected');
    const name = ctx.view === 'review' && ctx.shownNames ? ctx.shownNames[side] : ctx.view === 'play' ? ctx.playerName?.(side) : null;
    box.querySelector('.name').textContent = name ?? (side === 'W' ? 'White' : 'Black');
    const onBoard = [...board.cells].filter((c) => c === side).length;
    box.querySelector('.total').textContent = `${onBoard + board.hands[side]} left`;
    box.dataset.side = side;
  }
}

let movesKey = '';

function renderMoves(st) {
  if (ctx.view !== 'play' && ctx.view !== 'analyse') return;
  const g = active();
  const key = `${ctx.view}|${g.tree.root.id}|${g.tree.version}|${g.tree.current.id}|${g.pending}`;
  if (key === movesKey) return;
  movesKey = key;
  renderTree($('moves'), g.tree, { start: st.start, pending: g.pending, onPick: goTo, decorate: ctx.decorateMove });
}

function statusText(st) {
  const g = active();
  if (ctx.view === 'play' && ctx.over) return ctx.over;
  if (st.status) return `Game over — ${st.status.text} (${st.status.result})`;
  if (ctx.view === 'play' && !g.tree.atEnd()) {
    return `Move ${g.tree.depth()} of ${g.tree.depth(g.tree.end())}, shown — End or → returns to the game`;
  }
  const side = st.board.side === 'W' ? 'White' : 'Black';
  if (st.board.owed > 0) {
    const foe = st.board.side === 'W' ? 'black' : 'white';
    const left = st.board.owed - ctx.picked.length;
    const where = `click a ${foe} piece${handRemovable(st) ? ' or the hand' : ''}`;
    if (ctx.picked.length) return `${side} owes ${left} more removal${left > 1 ? 's' : ''}: ${where}`;
    return `${side} owes ${st.board.owed} removal${st.board.owed > 1 ? 's' : ''}: ${where}`;
  }
  const node = g.tree.current;
  const bonus = node.parent?.side === st.board.side && /x|[a-h]\d[a-h]\d/.test(node.move ?? '') && node.parent.side;
  return `${side} to move` + (bonus ? ' again (bonus turn after a capture)' : '') + (ctx.thinking ? ' (engine thinking…)' : '');
}

export function canMoveByHand() {
  const st = ctx.state;
  if (!st || st.status || ctx.shownBoard) return false;
  if (ctx.view !== 'play') return true;
  return !ctx.over && active().tree.atEnd() && (!ctx.humanToMove || ctx.humanToMove(st.board.side));
}

async function clickSquare(square, phase) {
  if (ctx.hooks.square && ctx.hooks.square(square, phase)) return;
  if (phase === 'down') hideChooser();
  const st = ctx.state;
  if (!canMoveByHand()) return;
  if (st.board.owed > 0) {
    if (phase === 'down') await pickRemoval(square);
    return;
  }
  const moves = st.legal;
  if (ctx.selected && ctx.selected !== square) {
    const from = ctx.selected === 'hand' ? null : ctx.selected;
    const chosen = moves.filter((m) => m.from === from && m.to === square);
    if (chosen.length) return playChosen(chosen);
  }
  if (phase === 'drop') return;
  if (moves.some((m) => m.from === square)) {
    ctx.selected = ctx.selected === square ? null : square;
  } else if (moves.some((m) => m.from === null && m.to === square)) {
    return playChosen(moves.filter((m) => m.from === null && m.to === square));
  } else {
    ctx.selected = null;
  }
  render();
}

// A capture that removes more than its jumped pieces is played as the
// jump; the removals are then clicked. Under MultiJump several chains may
// join the same two cells: the player picks the path.
function playChosen(chosen) {
  const chains = [...new Map(chosen.map((m) => [m.jump ?? m.text, m])).values()];
  if (chains.length > 1) return chooseChain(chains);
  return playText(chains[0].jump ?? chains[0].text).catch(() => {});
}

function chooseChain(chains) {
  const box = $('jump-chooser');
  const label = document.createElement('span');
  label.textContent = 'Which path?';
  box.replaceChildren(label);
  for (const m of chains) {
    const button = document.createElement('button');
    button.dataset.jump = m.jump ?? m.text;
    button.textContent = `${m.path.join(' → ')} (takes ${m.captured.join(', ')})`;
    button.onclick = () => {
      hideChooser();
      playText(button.dataset.jump).catch(() => {});
    };
    box.append(button);
  }
  const cancel = document.createElement('button');
  cancel.textContent = 'Cancel';
  cancel.onclick = hideChooser;
  box.append(cancel);
  box.hidden = false;
}

function hideChooser() {
  $('jump-chooser').hidden = true;
  $('jump-chooser').replaceChildren();
}

async function pickRemoval(what) {
  const st = ctx.state;
  const picked = [...ctx.picked, what];
  ctx.picked = picked;
  const left = removalsLeft(st);
  if (!left.length) {
    ctx.picked = picked.slice(0, -1);
    showError(what === '@' ? 'no piece may be taken from the hand now' : `${what} cannot be removed`);
    render();
    return;
  }
  if (picked.length >= st.board.owed) {
    const text = picked.map((p) => `x${p}`).join('');
    await playText(text).catch(() => {});
    return;
  }
  showError('');
  render();
}

function clickHand(side) {
  const st = ctx.state;
  if (!st || !canMoveByHand()) return;
  if (st.board.owed > 0 && side !== st.board.side) return pickRemoval('@');
  if (side === st.board.side && st.legal.some((m) => m.from === null && m.to)) {
    ctx.selected = ctx.selected === 'hand' ? null : 'hand';
    render();
  }
}

function linkToPosition() {
  const params = new URLSearchParams();
  const g = active();
  params.set('variant', ctx.state?.preset ?? g.variant);
  if (g.fen) params.set('fen', g.fen);
  const moves = ctx.game.moves;
  if (moves.length) params.set('moves', moves.join(','));
  if (ctx.view === 'analyse') params.set('view', 'analyse');
  return `${location.origin}/?${params}`;
}

// Analyse starts from Play's game the first time it is opened.
function analyseGame() {
  if (ctx.games.analyse) return;
  const p = ctx.games.play;
  const copy = blankGame(p.variant, p.fen);
  for (const m of p.tree.line(p.tree.end())) copy.tree.play(m);
  copy.tree.current = copy.tree.root;
  for (const m of p.tree.line()) copy.tree.play(m);
  ctx.games.analyse = copy;
}

export function switchView(view) {
  const before = active();
  ctx.view = view;
  if (view === 'analyse') analyseGame();
  for (const b of document.querySelectorAll('#views button')) b.classList.toggle('active', b.dataset.view === view);
  for (const v of ['play', 'analyse', 'review', 'watch']) $(`${v}-panel`).hidden = v !== view;
  document.body.dataset.view = view;
  $('board-area').hidden = view === 'watch';
  $('movebox').hidden = view !== 'play' && view !== 'analyse';
  if (view !== 'review') { ctx.shownBoard = null; ctx.shownMarks = null; }
  ctx.selected = null;
  for (const hook of ctx.hooks.view) hook(view);
  if (active() !== before) refresh().catch((e) => showError(e.message));
  else render();
}

// The board's cells fill the room the window gives: beside the panel on a
// wide screen, the whole width on a narrow one.
function fitBoard() {
  const st = ctx.state;
  if (!st) return;
  // The layout's width (a phone may report a wider window once something
  // overflows; the board is fitted before it is drawn, so it never does).
  const width = Math.min(window.innerWidth, document.documentElement.clientWidth || Infinity);
  const narrow = width < 760;
  const most = narrow
    ? width - 16
    : Math.min(width - 560, window.innerHeight - 190, 620);
  // The handle's choice, within what the window allows (not on a phone).
  const room = narrow || !ctx.boardRoom ? most : Math.min(most, ctx.boardRoom);
  ctx.board.fit(st.board.rows, st.board.cols, Math.max(200, room));
  document.documentElement.style.setProperty('--board-width', `${ctx.board.width}px`);
}

// Dragging the handle at the board's corner sets the board's width (kept
// between visits); the window still bounds it.
function resizeByHandle() {
  const handle = $('resize-handle');
  handle.addEventListener('pointerdown', (e) => {
    e.preventDefault();
    handle.setPointerCapture(e.pointerId);
    const startX = e.clientX;
    const startWidth = ctx.board.width;
    const move = (m) => {
      ctx.boardRoom = Math.max(200, startWidth + (m.clientX - startX));
      render();
    };
    const up = () => {
      handle.removeEventListener('pointermove', move);
      handle.removeEventListener('pointerup', up);
      remember('boardRoom', ctx.boardRoom);
    };
    handle.addEventListener('pointermove', move);
    handle.addEventListener('pointerup', up);
  });
}

async function start() {
  ctx.board = new BoardView($('board'));
  ctx.board.onSquare = (sq, phase) => clickSquare(sq, phase).catch((e) => showError(e.message));
  ctx.config = await get('/api/config');
  for (const b of document.querySelectorAll('#views button')) b.onclick = () => switchView(b.dataset.view);
  for (const id of ['top-player', 'bottom-player']) $(id).querySelector('.hand').onclick = () => clickHand($(id).dataset.side);
  $('flip').onclick = () => { ctx.flipped = !ctx.flipped; render(); };
  $('link').onclick = () => {
    const out = $('link-out');
    out.value = linkToPosition();
    out.hidden = false;
    out.select();
    navigator.clipboard?.writeText(out.value).catch(() => {});
  };
  $('move-input').onkeydown = (e) => {
    if (e.key !== 'Enter') return;
    const text = e.target.value.trim();
    if (!text) return;
    if (!canMoveByHand()) { showError('it is not your move'); return; }
    playText(text).then(() => { e.target.value = ''; }, () => {});
  };
  for (const [id, where] of [['nav-first', 'first'], ['nav-prev', 'back'], ['nav-next', 'forward'], ['nav-last', 'last']]) $(id).onclick = () => navigate(where);
  const keys = { ArrowLeft: 'back', ArrowRight: 'forward', Home: 'first', End: 'last' };
  document.addEventListener('keydown', (e) => {
    if (e.target.matches('input, textarea, select')) return;
    if (e.key === 'f') { ctx.flipped = !ctx.flipped; render(); }
    if (e.key === 'Escape') { ctx.selected = null; ctx.picked = []; hideChooser(); render(); }
    if ((ctx.view === 'play' || ctx.view === 'analyse') && keys[e.key]) {
      e.preventDefault();
      navigate(keys[e.key]);
    }
    for (const hook of ctx.hooks.keys) hook(e);
  });
  window.addEventListener('resize', () => render());
  // Leaving or reloading the page throws away the game in progress in
  // Play and the moves made on Analyse's board: the browser asks first.
  window.addEventListener('beforeunload', (e) => {
    if (!ctx.playInProgress?.() && !ctx.games.analyse?.touched) return;
    e.preventDefault();
    e.returnValue = '';
  });
  ctx.boardRoom = recall('boardRoom', null);
  resizeByHandle();
  initPlay(ctx);
  initAnalyse(ctx);
  initReview(ctx);
  initWatch(ctx);
  loadSettings();
  for (const hook of ctx.hooks.settings ?? []) hook();
  // The address may name a position: ?variant=…&fen=…&moves=a,b,c&view=…
  // The view is taken first, so that the position is that view's and
  // Play's engines never move on an Analyse link.
  const params = new URLSearchParams(location.search);
  const view = params.get('view');
  if (view === 'analyse') ctx.games.analyse = blankGame();
  if (view) switchView(view);
  const fromLink = {
    variant: params.get('variant') || (view === 'analyse' ? 'standard' : ctx.rulesChosen?.() ?? 'standard'),
    fen: params.get('fen'),
    moves: params.get('moves') ? params.get('moves').split(',').filter(Boolean) : [],
  };
  try {
    await setGame(fromLink);
  } catch (e) {
    await setGame({ variant: 'standard' });
    showError(`The link's position was refused: ${e.message}`);
  }
  window.yoteReadyMs = performance.now();
  document.body.dataset.ready = 'true';
  openSession().catch((e) => showError(`no engine session: ${e.message}`));
}

export { on, post, get, $ };

start().catch((e) => showError(e.message));

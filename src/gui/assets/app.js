// The page: one game shared by Play and Analyse (rules, start position,
// plies), drawn from what the server says of it. Clicking picks among the
// server's legal moves; nothing here decides what is legal.

import { get, post, on, openSession } from './api.js';
import { BoardView } from './board.js';
import { initPlay } from './play.js';
import { initAnalyse } from './analyse.js';
import { initReview } from './review.js';
import { initWatch } from './watch.js';

const $ = (id) => document.getElementById(id);

export const ctx = {
  config: null,
  view: 'play',
  // The game: what is sent to the server for every question.
  game: { variant: 'standard', fen: null, moves: [] },
  state: null,
  flipped: false,
  selected: null,   // a square, or 'hand' for a placement
  picked: [],       // removals chosen so far ('c3' or '@')
  over: null,       // an ending the rules do not know: resignation, time, agreement
  editing: false,
  hooks: { changed: [], square: null },
  board: null,
};

export function showError(message, where = 'error') {
  const el = $(where);
  el.textContent = message || '';
  el.hidden = !message;
}

export function gameRequest(extra = {}) {
  return { variant: ctx.game.variant, fen: ctx.game.fen, moves: ctx.game.moves, ...extra };
}

// Asks the server for the game's state and redraws; the moves stay as
// they were when the server refuses them.
export async function refresh() {
  const state = await post('/api/state', gameRequest());
  ctx.state = state;
  ctx.selected = null;
  ctx.picked = [];
  hideChooser();
  render();
  for (const hook of ctx.hooks.changed) hook(state);
  return state;
}

export async function setGame(game) {
  const before = ctx.game;
  ctx.game = { variant: game.variant ?? 'standard', fen: game.fen || null, moves: game.moves ?? [] };
  ctx.over = null;
  try {
    await refresh();
    showError('');
  } catch (e) {
    ctx.game = before;
    showError(e.message);
    throw e;
  }
}

// Plays one ply as text; the server checks it.
export async function playText(text) {
  ctx.game.moves.push(text);
  try {
    await refresh();
    showError('');
  } catch (e) {
    ctx.game.moves.pop();
    showError(e.message);
    render();
    throw e;
  }
}

export function render() {
  const st = ctx.state;
  if (!st) return;
  ctx.board.flipped = ctx.flipped;
  const board = ctx.shownBoard ?? st.board;
  const live = !ctx.shownBoard;
  const marks = live ? liveMarks(st) : { last: new Set() };
  ctx.board.draw(board, marks);
  renderPlayers(board, live ? marks : {});
  if (live) {
    renderMoves(st);
    $('status').textContent = statusText(st);
  }
}

function liveMarks(st) {
  const marks = { selected: ctx.selected, targets: new Set(), removable: new Set(), picked: ctx.picked, last: new Set() };
  if (st.board.owed > 0) {
    for (const m of removalsLeft(st)) for (const r of m.removes) if (!ctx.picked.includes(r)) marks.removable.add(r);
  } else if (ctx.selected) {
    for (const m of st.legal) {
      if (ctx.selected === 'hand' ? m.from === null && m.to : m.from === ctx.selected) marks.targets.add(m.to);
    }
  }
  const last = st.pending ?? st.engine_moves.at(-1) ?? '';
  for (const cell of last.match(/[a-h][1-8]/g) ?? []) marks.last.add(cell);
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

function renderPlayers(board, marks) {
  const bottom = ctx.flipped ? 'B' : 'W';
  for (const [id, side] of [['bottom-player', bottom], ['top-player', bottom === 'W' ? 'B' : 'W']]) {
    const box = $(id);
    const hand = box.querySelector('.hand');
    hand.dataset.role = `hand-${side}`;
    hand.className = `hand ${side}`;
    hand.textContent = String(board.hands[side]);
    const st = ctx.state;
    if (marks.removable && st.board.owed > 0 && side !== st.board.side && handRemovable(st)) hand.classList.add('removable');
    if (ctx.selected === 'hand' && side === st.board.side) hand.classList.add('selected');
    const name = ctx.shownBoard && ctx.shownNames ? ctx.shownNames[side] : ctx.playerName?.(side);
    box.querySelector('.name').textContent = name ?? (side === 'W' ? 'White' : 'Black');
    box.dataset.side = side;
  }
}

function renderMoves(st) {
  const list = $('moves');
  // One element per ply, holding the ply's text.
  const items = list.children;
  while (items.length > st.moves.length) list.lastChild.remove();
  for (let i = 0; i < st.moves.length; i++) {
    let li = items[i];
    if (!li) { li = document.createElement('li'); list.append(li); }
    if (li.textContent !== st.moves[i]) li.textContent = st.moves[i];
  }
  list.scrollTop = list.scrollHeight;
}

function statusText(st) {
  if (ctx.over) return ctx.over;
  if (st.status) return `Game over — ${st.status.text} (${st.status.result})`;
  const side = st.board.side === 'W' ? 'White' : 'Black';
  if (st.board.owed > 0) {
    const foe = st.board.side === 'W' ? 'black' : 'white';
    return `${side} owes ${st.board.owed} removal${st.board.owed > 1 ? 's' : ''}: click a ${foe} piece${handRemovable(st) ? ' or the hand' : ''} to remove`;
  }
  return `${side} to move` + (ctx.thinking ? ' (engine thinking…)' : '');
}

export function canMoveByHand() {
  const st = ctx.state;
  return st && !st.status && !ctx.over && !ctx.shownBoard
    && (ctx.view !== 'play' || !ctx.humanToMove || ctx.humanToMove(st.board.side));
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
  params.set('variant', ctx.state?.preset ?? ctx.game.variant);
  if (ctx.game.fen) params.set('fen', ctx.game.fen);
  if (ctx.game.moves.length) params.set('moves', ctx.game.moves.join(','));
  return `${location.origin}/?${params}`;
}

function switchView(view) {
  ctx.view = view;
  for (const b of document.querySelectorAll('#views button')) b.classList.toggle('active', b.dataset.view === view);
  for (const v of ['play', 'analyse', 'review', 'watch']) $(`${v}-panel`).hidden = v !== view;
  $('board-area').hidden = view === 'watch';
  if (view !== 'review') ctx.shownBoard = null;
  for (const hook of ctx.hooks.view ?? []) hook(view);
  render();
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
  document.addEventListener('keydown', (e) => {
    if (e.target.matches('input, textarea, select')) return;
    if (e.key === 'f') { ctx.flipped = !ctx.flipped; render(); }
    if (e.key === 'Escape') { ctx.selected = null; ctx.picked = []; hideChooser(); render(); }
    for (const hook of ctx.hooks.keys ?? []) hook(e);
  });
  ctx.hooks.view = [];
  ctx.hooks.keys = [];
  initPlay(ctx);
  initAnalyse(ctx);
  initReview(ctx);
  initWatch(ctx);
  // The address may name a position: ?variant=…&fen=…&moves=a,b,c
  const params = new URLSearchParams(location.search);
  const fromLink = {
    variant: params.get('variant') || 'standard',
    fen: params.get('fen'),
    moves: params.get('moves') ? params.get('moves').split(',').filter(Boolean) : [],
  };
  try {
    await setGame(fromLink);
  } catch (e) {
    await setGame({ variant: 'standard' });
    showError(`The link's position was refused: ${e.message}`);
  }
  if (params.get('view')) switchView(params.get('view'));
  window.yoteReadyMs = performance.now();
  document.body.dataset.ready = 'true';
  openSession().catch((e) => showError(`no engine session: ${e.message}`));
}

export { on, post, get, $ };

start().catch((e) => showError(e.message));

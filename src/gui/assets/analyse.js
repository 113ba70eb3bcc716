// Analyse: infinite analysis of the shown position with MultiPV lines
// streaming in, the evaluation bar, the tablebase value when the engine
// reports one, and a position editor checked by the engine.

import { post, on, openSession, listen, unlisten } from './api.js';
import { setGame, playText, showError, render, gameRequest, $ } from './app.js';
import { squareIndex } from './board.js';

let ctx;
let running = false;
let lines = [];             // by multipv index, the latest info of each
let put = 'W';
let editCells = null;       // the board being edited, as a cells string
const MAX_LINES = 16;

function scoreText(score, sideToMove) {
  if (!score) return '';
  if (score.kind === 'mate') return `${score.value > 0 ? '+' : '-'}M${Math.abs(score.value)}`;
  const white = sideToMove === 'W' ? score.value : -score.value;
  return (white >= 0 ? '+' : '') + (white / 100).toFixed(2);
}

function whiteCp(score, sideToMove) {
  if (!score) return 0;
  const v = score.kind === 'mate' ? (score.value > 0 ? 10000 : -10000) : score.value;
  return sideToMove === 'W' ? v : -v;
}

export function setEvalBar(cp) {
  const bar = $('evalbar');
  const share = 1 / (1 + Math.exp(-cp / 200));
  bar.querySelector('.fill').style.height = `${(share * 100).toFixed(1)}%`;
  bar.querySelector('span').textContent = cp === null ? '' : (cp / 100).toFixed(1);
}

function drawLines() {
  const side = ctx.state?.board.side;
  const list = $('lines');
  list.replaceChildren();
  for (const info of lines) {
    if (!info) continue;
    const li = document.createElement('li');
    li.dataset.pv = info.pv ?? '';
    const score = document.createElement('span');
    score.className = 'score';
    score.textContent = scoreText(info.score, side);
    const pv = document.createElement('span');
    pv.className = 'pv';
    pv.textContent = info.pv ?? '';
    const meta = document.createElement('div');
    meta.className = 'meta';
    meta.textContent = `depth ${info.depth ?? '?'}  nodes ${info.nodes ?? '?'}  nps ${info.nps ?? '?'}` + (info.tbhits ? `  tbhits ${info.tbhits}` : '');
    li.append(score, ' ', pv, meta);
    li.title = 'click to play this line\'s first move';
    li.onclick = () => playLine(info.pv);
    list.append(li);
  }
  const best = lines[0];
  if (best) {
    setEvalBar(whiteCp(best.score, side));
    $('analysis-summary').textContent = `depth ${best.depth ?? '?'}, ${best.nodes ?? 0} nodes, ${best.nps ?? 0} nodes/s`;
    // A table position: the engine answers at depth 1 from its tables.
    const tb = best.tbhits && best.nodes <= 1;
    $('tb-value').textContent = tb ? `Tablebase: ${tableValue(best.score)}` : '';
  }
}

// A table win scores `cp 30744 - d`, d plies to the next capture
// (protocol.md); tables of distances to the end give a mate instead.
const TABLE_WIN = 30744;

function tableValue(score) {
  if (!score) return '?';
  const moves = (n) => `${n} move${n === 1 ? '' : 's'}`;
  const plies = (n) => `${n} pl${n === 1 ? 'y' : 'ies'}`;
  if (score.kind === 'mate') return score.value > 0 ? `win in ${moves(score.value)}` : `loss in ${moves(-score.value)}`;
  if (score.value === 0) return 'draw';
  if (Math.abs(score.value) >= TABLE_WIN - 1000) {
    const result = score.value > 0 ? 'win' : 'loss';
    return `${result}, the next capture in ${plies(TABLE_WIN - Math.abs(score.value))}`;
  }
  return `${score.value} cp`;
}

async function playLine(pv) {
  const first = pv?.split(' ')[0];
  if (!first) return;
  await playText(first).catch(() => {});
}

async function start() {
  lines = [];
  drawLines();
  const multipv = Math.min(MAX_LINES, Math.max(1, Number($('multipv').value) || 1));
  try {
    await listen();
    const session = await openSession();
    await post('/api/analyse', gameRequest({ session, engine: Number($('analyse-engine').value), multipv }));
    running = true;
    showError('');
  } catch (e) {
    running = false;
    showError(e.message);
  }
}

async function stop() {
  running = false;
  const session = await openSession();
  await post('/api/stop', { session, slot: 'A' }).catch(() => {});
}

// Editor: the palette puts pieces; the fields give hands, side, owed.
// A side's pieces move between its hand and the board, as in a game: a
// piece put on the board comes from its hand (when the hand has one; else
// the position holds too many, which Set position reports), a piece taken
// off or covered goes back to it. Captured pieces are neither: lower the
// hand field for them. The hands drawn beside the board follow the fields.
function editHands() {
  return { W: Math.max(0, Number($('edit-hand-W').value) || 0), B: Math.max(0, Number($('edit-hand-B').value) || 0) };
}

function setEditHands(hands) {
  $('edit-hand-W').value = hands.W;
  $('edit-hand-B').value = hands.B;
}

function showEdited() {
  ctx.shownBoard = { ...ctx.state.board, cells: editCells, hands: editHands() };
  render();
}

function editorSquare(square) {
  if (!ctx.editing) return false;
  const index = squareIndex(square, ctx.state.board.cols);
  const before = editCells[index];
  if (before === put) return true;
  const hands = editHands();
  if (before !== '.') hands[before] += 1;
  if (put !== '.' && hands[put] > 0) hands[put] -= 1;
  setEditHands(hands);
  const cells = [...editCells];
  cells[index] = put;
  editCells = cells.join('');
  showEdited();
  return true;
}

function editedFen() {
  const board = ctx.state.board;
  const ranks = [];
  for (let r = board.rows - 1; r >= 0; r--) {
    let text = '';
    let run = 0;
    for (let f = 0; f < board.cols; f++) {
      const c = editCells[r * board.cols + f];
      if (c === '.') { run++; continue; }
      if (run) { text += run; run = 0; }
      text += c;
    }
    if (run) text += run;
    ranks.push(text);
  }
  const owed = Number($('edit-owed').value) || 0;
  return `${ranks.join('/')} ${$('edit-side').value} ${Number($('edit-hand-W').value)} ${Number($('edit-hand-B').value)} 0 1${owed ? ` x${owed}` : ''}`;
}

function showPositionFields(board) {
  $('edit-hand-W').value = board.hands.W;
  $('edit-hand-B').value = board.hands.B;
  $('edit-side').value = board.side === 'W' ? 'w' : 'b';
  $('edit-owed').value = board.owed;
}

function toggleEditing(on) {
  ctx.editing = on;
  $('edit-toggle').classList.toggle('on', on);
  if (on) {
    const board = ctx.state.board;
    editCells = board.cells;
    showPositionFields(board);
    ctx.shownBoard = { ...board };
  } else {
    ctx.shownBoard = null;
    showPositionFields(ctx.state.board);
  }
  render();
}

async function applyEdit() {
  if (!ctx.editing) toggleEditing(true);
  const fen = editedFen();
  try {
    const session = await openSession();
    const answer = await post('/api/validate', { session, variant: ctx.game.variant, fen, engine: Number($('analyse-engine').value) });
    if (!answer.ok) {
      showError(`${answer.by === 'engine' ? 'The engine refuses the position' : 'Not a position'}: ${answer.error}`, 'edit-error');
      return;
    }
    showError('', 'edit-error');
    toggleEditing(false);
    await setGame({ variant: ctx.game.variant, fen, moves: [] });
    if (running) start();
  } catch (e) {
    showError(e.message, 'edit-error');
  }
}

export function initAnalyse(c) {
  ctx = c;
  ctx.config.engines.forEach((e, i) => $('analyse-engine').append(new Option(e.name, String(i))));
  $('analyse-go').onclick = start;
  $('analyse-stop').onclick = stop;
  for (const b of document.querySelectorAll('[data-put]')) b.onclick = () => {
    put = b.dataset.put;
    for (const o of document.querySelectorAll('[data-put]')) o.classList.toggle('on', o === b);
    if (!ctx.editing) toggleEditing(true);
  };
  $('edit-toggle').onclick = () => toggleEditing(!ctx.editing);
  $('edit-apply').onclick = applyEdit;
  $('edit-clear').onclick = () => {
    if (!ctx.editing) toggleEditing(true);
    const hands = editHands();
    for (const c of editCells) if (c !== '.') hands[c] += 1;
    setEditHands(hands);
    editCells = '.'.repeat(editCells.length);
    showEdited();
  };
  // Typing a hand starts editing (from the position shown) with that hand.
  for (const id of ['edit-hand-W', 'edit-hand-B']) {
    $(id).oninput = () => {
      if (!ctx.editing) {
        const typed = $(id).value;
        toggleEditing(true);
        $(id).value = typed;
      }
      showEdited();
    };
  }
  const previous = ctx.hooks.square;
  ctx.hooks.square = (square, phase) => (phase === 'down' && editorSquare(square)) || (previous ? previous(square, phase) : false);
  on('info', (info) => {
    if (info.slot !== 'A' || !info.pv) return;
    const k = Math.min(MAX_LINES, Math.max(1, info.multipv)) - 1;
    // A new first line at a greater depth starts a new set of lines.
    if (k === 0 && lines[0] && info.depth > lines[0].depth) lines = lines.slice(0, 1);
    lines[k] = info;
    drawLines();
  });
  on('analysis', (a) => {
    if (a.error) showError(a.error);
    running = a.running;
    if (!a.running) unlisten();
    $('analyse-go').classList.toggle('on', a.running);
  });
  // A new position while analysing: analyse it instead.
  ctx.hooks.changed.push(() => { if (running && ctx.view === 'analyse') start(); });
  // Outside editing the editor's fields show the position on the board.
  ctx.hooks.changed.push((state) => { if (!ctx.editing) showPositionFields(state.board); });
  ctx.hooks.view.push((view) => {
    if (view !== 'analyse') {
      if (ctx.editing) toggleEditing(false);
      if (running) stop();
    }
  });
}

// Analyse: infinite analysis of the position on the board with MultiPV
// lines streaming in, the evaluation bar and best-line arrow, the table
// value when the engine reports one, a move tree with variations, and a
// position editor checked by the engine.
//
// Lines always belong to the board: every analysis request carries an id,
// the position changing starts a new one (lines cleared at once), and
// events of any other id (a stopped search's last words) are dropped.

import { post, on, openSession, listen, unlisten } from './api.js';
import { setGame, playText, showError, render, refresh, goTo, active, keyOf, $ } from './app.js';
import { squareIndex, miniBoard } from './board.js';
import { scoreWords, setEvalBar, TABLE_WIN } from './score.js';
import { treeText, parseTreeText, MoveTree } from './tree.js';
import { remember, recall } from './settings.js';
import { ask } from './dialog.js';

let ctx;
let wanted = false;          // the person asked for analysis
let current = 0;             // the id of the analysis whose lines are shown
let counter = 0;
let analysed = null;         // {id, request, side} of the analysis shown
let inflight = false;
let queued = null;
let lines = [];              // by multipv index, the latest info of each
let put = 'W';
let editCells = null;        // the board being edited, as a cells string
let arrow = true;
const MAX_LINES = 16;

// Lines of a line no longer on the board are never shown.
function dropStaleLines() {
  if (analysed && analysed.key !== keyOf(ctx.game)) {
    current = ++counter;
    analysed = null;
    lines = [];
    drawLines();
  }
}

function drawLines() {
  const side = analysed?.side;
  if (analysed && analysed.key !== keyOf(ctx.game)) lines = [];
  if (!lines.length) hidePreview();
  const list = $('lines');
  // Room for the lines asked for, so that the panel below does not jump
  // as they are cleared and come back.
  list.style.minHeight = `${Math.min(MAX_LINES, Math.max(1, Number($('multipv').value) || 1)) * 2.7}em`;
  list.replaceChildren();
  for (const info of lines) {
    if (!info) continue;
    const li = document.createElement('li');
    li.dataset.pv = info.pv ?? '';
    const score = document.createElement('span');
    score.className = 'score';
    score.textContent = scoreWords(info.score, side).text;
    const pv = document.createElement('span');
    pv.className = 'pv';
    pv.textContent = info.pv ?? '';
    const meta = document.createElement('div');
    meta.className = 'meta';
    meta.textContent = `depth ${info.depth ?? '?'}  nodes ${info.nodes ?? '?'}  nps ${info.nps ?? '?'}` + (info.tbhits ? `  tbhits ${info.tbhits}` : '');
    li.append(score, ' ', pv, meta);
    li.title = 'click to play this line\'s first move';
    li.onclick = () => playLine(info.pv);
    li.onmouseenter = (e) => preview(info.pv, e);
    li.onmouseleave = hidePreview;
    list.append(li);
  }
  const best = lines[0];
  if (best) {
    const words = scoreWords(best.score, side);
    setEvalBar(words.white, ctx.flipped, words.bar);
    $('analysis-summary').textContent = `depth ${best.depth ?? '?'}, ${best.nodes ?? 0} nodes, ${best.nps ?? 0} nodes/s`;
    // A table position: the engine answers at depth 1 from its tables.
    const tb = best.tbhits && best.nodes <= 1;
    $('tb-value').textContent = tb ? `Tablebase: ${tableValue(best.score)}` : '';
  } else {
    setEvalBar(null, ctx.flipped);
    $('analysis-summary').textContent = wanted ? 'analysing…' : '';
    $('tb-value').textContent = '';
  }
  render();
}

// The table's value from the mover's view, as `yote tb probe` says it.
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

// Hovering a line shows the position at its end on a small board.
let previewing = 0;

async function preview(pv, event) {
  const mine = ++previewing;
  const request = ctx.stateRequest;
  if (!pv || !request) return;
  try {
    const st = await post('/api/state', { ...request, moves: [...request.moves, ...pv.split(' ')] });
    if (mine !== previewing) return;
    const box = $('line-preview');
    box.replaceChildren(miniBoard(st.board));
    box.style.left = `${Math.min(event.clientX + 16, window.innerWidth - 200)}px`;
    box.style.top = `${event.clientY + 16}px`;
    box.hidden = false;
  } catch (_) { /* a line of another position: nothing to show */ }
}

function hidePreview() {
  previewing++;
  $('line-preview').hidden = true;
  $('line-preview').replaceChildren();
}

async function playLine(pv) {
  const first = pv?.split(' ')[0];
  if (!first) return;
  await playText(first).catch(() => {});
}

// The position on the board changed (or analysis was asked for): the
// lines shown are dropped at once and the new position is analysed.
function analyseBoard() {
  current = ++counter;
  lines = [];
  const st = ctx.state;
  if (!wanted || ctx.view !== 'analyse' || !st || st.status) {
    analysed = null;
    if (wanted && st?.status) $('analysis-summary').textContent = `nothing to analyse: ${st.status.text}`;
    drawLines();
    if (wanted && st?.status) stopEngine();
    return;
  }
  const multipv = Math.min(MAX_LINES, Math.max(1, Number($('multipv').value) || 1));
  analysed = { id: current, side: st.board.side, key: keyOf(ctx.stateRequest) };
  queued = { ...ctx.stateRequest, engine: Number($('analyse-engine').value), multipv, id: String(current) };
  drawLines();
  pump();
}

// One request at a time, the latest wanted: requests racing each other
// could reach the server out of order.
async function pump() {
  if (inflight || !queued) return;
  const request = queued;
  queued = null;
  inflight = true;
  try {
    await listen();
    const session = await openSession();
    await post('/api/analyse', { ...request, session });
    if (request.id === String(current)) showError('');
  } catch (e) {
    if (request.id === String(current)) {
      showError(e.message);
      wanted = false;
      $('analyse-go').classList.remove('on');
    }
  } finally {
    inflight = false;
  }
  pump();
}

function startAnalysis() {
  wanted = true;
  $('analyse-go').classList.add('on');
  analyseBoard();
}

async function stopEngine() {
  const session = await openSession();
  await post('/api/stop', { session, slot: 'A' }).catch(() => {});
}

// The search's last lines (sent as it stops) are still taken; its end
// event closes the stream.
function stopAnalysis() {
  wanted = false;
  queued = null;
  $('analyse-go').classList.remove('on');
  stopEngine();
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
  // The server checks the position with the analysis engine, which stops
  // the analysis running there: its end is not the person's stop.
  current = ++counter;
  lines = [];
  drawLines();
  try {
    const session = await openSession();
    const answer = await post('/api/validate', { session, variant: active().variant, fen, engine: Number($('analyse-engine').value) });
    if (!answer.ok) {
      showError(`${answer.by === 'engine' ? 'The engine refuses the position' : 'Not a position'}: ${answer.error}`, 'edit-error');
      analyseBoard();
      return;
    }
    await setGame({ variant: active().variant, fen, moves: [] }, 'analyse');
    showError('', 'edit-error');
    toggleEditing(false);
  } catch (e) {
    showError(e.message, 'edit-error');
    analyseBoard();
  }
}

// The move tree's tools.
function promote() {
  const tree = active().tree;
  if (tree.promote(tree.current)) {
    active().touched = true;
    render();
  }
}

function deleteMove() {
  const tree = active().tree;
  const n = tree.current;
  if (!n.parent) return;
  tree.remove(n);
  active().touched = true;
  goTo(tree.current);
}

function copyTree() {
  const st = ctx.state;
  const g = active();
  const fields = st.start.split(' ');
  const tags = [['Variant', st.variant]];
  if (g.fen) tags.push(['FEN', st.start]);
  const text = tags.map(([k, v]) => `[${k} "${v}"]`).join('\n') + '\n\n' + treeText(g.tree, fields[1] === 'b', Number(fields[5]) || 1) + ' *\n';
  $('tree-text').value = text;
  navigator.clipboard?.writeText(text).catch(() => {});
}

// Text with variations read back: every line is replayed by the server
// before the tree replaces the one shown.
async function loadTree() {
  const text = $('tree-text').value;
  if (!(await ctx.replaceAnalysis())) return;
  try {
    const tag = (name) => text.match(new RegExp(`\\[${name} "([^"]*)"\\]`))?.[1];
    const variant = tag('Variant') ?? active().variant;
    const fen = tag('FEN') ?? null;
    const tree = parseTreeText(text);
    for (const leaf of tree.leaves()) {
      await post('/api/state', { variant, fen, moves: tree.line(leaf) });
    }
    await setGame({ variant, fen, moves: [] }, 'analyse');
    const g = active();
    g.tree = tree;
    tree.current = tree.root;
    showError('', 'tree-error');
    await refresh();
  } catch (e) {
    showError(`not loaded: ${e.message}`, 'tree-error');
  }
}

export function initAnalyse(c) {
  ctx = c;
  // Whether Analyse's game may be replaced ("Analyse this game", Load
  // text): at once when nobody made moves on its board, else once asked.
  ctx.replaceAnalysis = async () => !ctx.games.analyse?.touched
    || ask('Replace the analysis board\'s game? The moves made on it will be lost.', 'Replace');
  ctx.config.engines.forEach((e, i) => $('analyse-engine').append(new Option(e.name, String(i))));
  arrow = recall('arrow', true);
  $('arrow-toggle').classList.toggle('on', arrow);
  $('arrow-toggle').onclick = () => {
    arrow = !arrow;
    remember('arrow', arrow);
    $('arrow-toggle').classList.toggle('on', arrow);
    render();
  };
  $('analyse-go').onclick = startAnalysis;
  $('analyse-stop').onclick = stopAnalysis;
  $('multipv').onchange = () => { if (wanted) analyseBoard(); };
  $('tree-promote').onclick = promote;
  $('tree-delete').onclick = deleteMove;
  $('tree-copy').onclick = copyTree;
  $('tree-load').onclick = loadTree;
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
    if (info.slot !== 'A' || !info.pv || info.id !== String(current)) return;
    const k = Math.min(MAX_LINES, Math.max(1, info.multipv)) - 1;
    // Each line is replaced as its next depth comes; the others stay
    // meanwhile, all of this position.
    lines[k] = info;
    drawLines();
  });
  on('analysis', (a) => {
    if (a.id !== String(current)) return;
    if (a.error) showError(a.error);
    if (!a.running) {
      // The engine ended this analysis by itself (an error, a finished
      // search): nothing more comes.
      wanted = false;
      $('analyse-go').classList.remove('on');
      unlisten();
    }
  });
  // The best line's first move as an arrow on the board.
  ctx.boardArrow = () => (arrow && ctx.view === 'analyse' && lines[0]?.pv ? lines[0].pv.split(' ')[0] : null);
  ctx.hooks.changed.push(() => { if (ctx.view === 'analyse') analyseBoard(); });
  ctx.hooks.moved = [dropStaleLines];
  // Outside editing the editor's fields show the position on the board.
  ctx.hooks.changed.push((state) => { if (!ctx.editing) showPositionFields(state.board); });
  ctx.hooks.view.push((view) => {
    if (view !== 'analyse') {
      if (ctx.editing) toggleEditing(false);
      if (wanted) stopAnalysis();
    }
  });
}

export { MoveTree };

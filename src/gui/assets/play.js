// Play: who plays each side (a person or an engine from the command
// line), strength, clocks, and the engine's moves; takeback, new game,
// resignation and draw offers.

import { post, on } from './api.js';
import { refresh, setGame, playText, showError, render, gameRequest, $ } from './app.js';
import { sessionId, openSession } from './api.js';

let ctx;
let generation = 0;         // bumps on new game / takeback: late replies are dropped
const clock = { left: { W: 0, B: 0 }, turn: null, since: 0, made: { W: 0, B: 0 }, plies: 0, timer: null };
const lastScore = { W: null, B: null };
const failed = { W: null, B: null };
let paused = false;

function players() {
  return { W: $('white-player').value, B: $('black-player').value };
}

const isEngine = (side) => players()[side] !== 'human';

function engineName(side) {
  const p = players()[side];
  return p === 'human' ? 'You' : ctx.config.engines[Number(p)].name;
}

function clockSettings() {
  const kind = $('clock-kind').value;
  const a = Math.max(0.05, Number($('clock-a').value) || 1);
  const b = Math.max(0, Number($('clock-b').value) || 0);
  if (kind === 'movetime') return { kind, movetime: Math.round(a * 1000) };
  if (kind === 'clock') return { kind, base: Math.round(a * 60000), inc: Math.round(b * 1000) };
  return { kind, base: Math.round(a * 60000), inc: 0, moves: Math.max(1, Math.round(b)) };
}

function resetClocks() {
  const c = clockSettings();
  clock.left = { W: c.base ?? 0, B: c.base ?? 0 };
  clock.made = { W: 0, B: 0 };
  clock.turn = null;
  clock.plies = 0;
}

function elapsed() {
  return clock.turn ? performance.now() - clock.since : 0;
}

// A move was completed (not a jump waiting for its removals): charge the
// mover, start the clock of the side now to move.
function onState(st) {
  const completed = st.pending ? st.moves.length - 1 : st.moves.length;
  const c = clockSettings();
  if (clock.turn && completed > clock.plies && c.kind !== 'movetime') {
    const side = clock.turn;
    clock.left[side] = Math.max(0, clock.left[side] - elapsed()) + (c.inc ?? 0);
    clock.made[side] += 1;
    if (c.moves && clock.made[side] % c.moves === 0) clock.left[side] += c.base;
  }
  if (completed !== clock.plies || !clock.turn) {
    clock.turn = st.status || ctx.over ? null : st.board.side;
    clock.since = performance.now();
  }
  clock.plies = completed;
  drawClocks();
  maybeEngine();
}

function format(ms) {
  const s = Math.max(0, ms) / 1000;
  if (s >= 60) return `${Math.floor(s / 60)}:${String(Math.floor(s % 60)).padStart(2, '0')}`;
  return s.toFixed(1);
}

function drawClocks() {
  const c = clockSettings();
  for (const id of ['top-player', 'bottom-player']) {
    const box = $(id);
    const side = box.dataset.side;
    const el = box.querySelector('.clock');
    const running = clock.turn === side && !ctx.over && !ctx.state?.status && ctx.view === 'play' && !failed[side];
    const shown = c.kind === 'movetime'
      ? (running ? elapsed() : 0)
      : clock.left[side] - (running ? elapsed() : 0);
    el.textContent = c.kind === 'movetime' && isEngine(side) ? `${format(shown)} / ${format(c.movetime)}` : format(shown);
    el.classList.toggle('running', running);
    el.classList.toggle('flagged', c.kind !== 'movetime' && shown <= 0);
    if (running && c.kind !== 'movetime' && shown <= 0 && !ctx.over) flag(side);
  }
}

function flag(side) {
  const winner = side === 'W' ? 'Black' : 'White';
  endGame(`${side === 'W' ? 'White' : 'Black'} ran out of time — ${winner} wins (${side === 'W' ? '0-1' : '1-0'})`);
}

function endGame(text) {
  ctx.over = text;
  clock.turn = null;
  stopEngines();
  render();
}

function stopEngines() {
  const session = sessionId();
  if (!session) return;
  for (const slot of ['W', 'B']) post('/api/stop', { session, slot }).catch(() => {});
}

function strength() {
  const kind = $('strength-kind').value;
  const value = Math.round(Number($('strength-value').value));
  if (kind === 'skill') return { skill: Math.min(20, Math.max(0, value)) };
  if (kind === 'elo') return { elo: Math.max(0, value) };
  return {};
}

function goClock(side) {
  const c = clockSettings();
  if (c.kind === 'movetime') return { movetime: c.movetime };
  const left = { ...clock.left };
  left[side] = Math.max(1, left[side] - elapsed());
  const out = { wtime: Math.round(left.W), btime: Math.round(left.B), winc: c.inc, binc: c.inc };
  if (c.moves) out.movestogo = c.moves - (clock.made[side] % c.moves);
  return out;
}

async function maybeEngine() {
  const st = ctx.state;
  if (!st || ctx.view !== 'play' || st.status || ctx.over || st.pending || ctx.thinking || paused) return;
  const side = st.board.side;
  if (!isEngine(side) || failed[side]) return;
  const mine = ++generation;
  ctx.thinking = true;
  render();
  try {
    const session = await openSession();
    const reply = await post('/api/go', gameRequest({
      session, slot: side, engine: Number(players()[side]), clock: goClock(side), ...strength(),
    }));
    if (mine !== generation) return;
    lastScore[side] = reply.score;
    ctx.thinking = false;
    await playText(reply.bestmove);
  } catch (e) {
    if (mine !== generation) return;
    if (e.engine) {
      failed[side] = e.message;
      drawEngineBox();
    }
    showError(e.message);
  } finally {
    if (mine === generation) ctx.thinking = false;
    render();
  }
}

function drawEngineBox() {
  const box = $('engine-box');
  box.replaceChildren();
  for (const side of ['W', 'B']) {
    if (!isEngine(side)) continue;
    const div = document.createElement('div');
    div.className = 'engine-state' + (failed[side] ? ' failed' : '');
    div.dataset.role = `engine-${side}`;
    div.textContent = failed[side] ?? `${side === 'W' ? 'White' : 'Black'}: ${engineName(side)}`;
    if (failed[side]) {
      const button = document.createElement('button');
      button.textContent = 'Restart engine';
      button.dataset.role = `restart-${side}`;
      button.onclick = () => restart(side);
      div.append(' ', button);
    }
    box.append(div);
  }
}

async function restart(side) {
  try {
    const session = await openSession();
    await post('/api/restart', { session, slot: side, variant: ctx.game.variant });
    failed[side] = null;
    showError('');
    drawEngineBox();
    maybeEngine();
  } catch (e) {
    failed[side] = e.message;
    showError(e.message);
    drawEngineBox();
  }
}

async function newGame() {
  generation++;
  stopEngines();
  ctx.thinking = false;
  const variant = $('variant').value === 'custom' ? $('spec').value.trim() || 'standard' : $('variant').value;
  resetClocks();
  paused = false;
  await setGame({ variant, fen: null, moves: [] }).catch(() => {});
}

async function takeback() {
  generation++;
  stopEngines();
  ctx.thinking = false;
  ctx.over = null;
  const moves = ctx.game.moves;
  if (!moves.length) return;
  moves.pop();
  // Back to a position where a person is to move, when one plays.
  const humans = ['W', 'B'].filter((s) => !isEngine(s));
  paused = humans.length === 0;
  while (moves.length && humans.length) {
    const st = await refresh();
    if (humans.includes(st.board.side) && !st.pending) break;
    moves.pop();
  }
  await refresh();
}

function resign() {
  const st = ctx.state;
  if (!st || st.status || ctx.over) return;
  const humans = ['W', 'B'].filter((s) => !isEngine(s));
  const side = humans.length === 1 ? humans[0] : st.board.side;
  const name = side === 'W' ? 'White' : 'Black';
  endGame(`${name} resigns — ${side === 'W' ? 'Black wins (0-1)' : 'White wins (1-0)'}`);
}

function offerDraw() {
  const st = ctx.state;
  if (!st || st.status || ctx.over) return;
  const engines = ['W', 'B'].filter(isEngine);
  if (engines.length === 1) {
    const score = lastScore[engines[0]];
    if (score !== null && Math.abs(score) <= 30) endGame('Draw agreed (1/2-1/2)');
    else showError(`${engineName(engines[0])} declines the draw`);
  } else if (engines.length === 0) {
    endGame('Draw agreed (1/2-1/2)');
  }
}

function recordText() {
  const st = ctx.state;
  const p = players();
  const result = st.status?.result ?? (ctx.over?.match(/\((1-0|0-1|1\/2-1\/2)\)/)?.[1]) ?? '*';
  const tags = [['Event', 'yote gui'], ['White', engineName('W') === 'You' && p.W === 'human' ? 'person' : engineName('W')],
    ['Black', p.B === 'human' ? 'person' : engineName('B')]];
  if (!st.preset || st.preset !== 'standard') tags.push(['Variant', st.preset ?? st.variant]);
  if (ctx.game.fen) tags.push(['FEN', st.start]);
  tags.push(['Result', result]);
  const black = st.start.split(' ')[1] === 'b';
  let number = Number(st.start.split(' ')[5] ?? 1) || 1;
  const parts = [];
  st.engine_moves.forEach((m, i) => {
    const whiteMove = (i % 2 === 0) !== black;
    if (i === 0 && black) parts.push(`${number}...`);
    if (whiteMove) parts.push(`${number}.`);
    parts.push(m);
    if (!whiteMove) number++;
  });
  return tags.map(([k, v]) => `[${k} "${v.replace(/\\/g, '\\\\').replace(/"/g, '\\"')}"]`).join('\n') + `\n\n${parts.join(' ')} ${result}\n`;
}

async function loadText() {
  const text = $('record').value.trim();
  if (!text) return;
  try {
    if (text.startsWith('[') || /^\d+\./.test(text)) {
      const up = await post(`/api/records?name=pasted`, text.startsWith('[') ? text : `[Result "*"]\n\n${text} *\n`);
      const game = await (await fetch(`/api/records/${up.id}/0`)).json();
      if (game.error) throw new Error(game.error);
      resetClocks();
      await setGame({ variant: game.variant, fen: game.start, moves: game.plies.map((p) => p.text) });
    } else {
      const spec = $('variant').value === 'custom' ? $('spec').value.trim() : $('variant').value;
      resetClocks();
      await setGame({ variant: spec, fen: text, moves: [] });
    }
    showError('');
  } catch (e) {
    showError(e.message);
  }
}

function fillSelects() {
  const variant = $('variant');
  for (const p of ctx.config.presets) variant.append(new Option(`${p.name}`, p.name));
  variant.append(new Option('custom rule spec…', 'custom'));
  for (const id of ['white-player', 'black-player']) {
    const select = $(id);
    select.append(new Option('Person', 'human'));
    ctx.config.engines.forEach((e, i) => select.append(new Option(`Engine: ${e.name}`, String(i))));
  }
  $('black-player').value = '0';
}

function clockLabels() {
  const kind = $('clock-kind').value;
  $('clock-a-label').firstChild.textContent = kind === 'movetime' ? 'Seconds per move ' : 'Minutes ';
  $('clock-b-label').hidden = kind === 'movetime';
  $('clock-b-label').firstChild.textContent = kind === 'clock' ? 'Increment (s) ' : 'Moves per period ';
  if (kind === 'moves' && Number($('clock-b').value) < 1) $('clock-b').value = '40';
  if (kind !== 'movetime' && Number($('clock-a').value) < 0.2) $('clock-a').value = '5';
  resetClocks();
  drawClocks();
}

export function initPlay(c) {
  ctx = c;
  fillSelects();
  ctx.playerName = (side) => engineName(side);
  ctx.humanToMove = (side) => !isEngine(side);
  ctx.hooks.changed.push((st) => {
    if (st.preset && $('variant').value !== st.preset) $('variant').value = st.preset;
    if (!st.preset) { $('variant').value = 'custom'; $('spec').value = st.variant; $('spec-label').hidden = false; }
    onState(st);
  });
  $('variant').onchange = () => {
    $('spec-label').hidden = $('variant').value !== 'custom';
    if ($('variant').value !== 'custom') newGame();
  };
  $('spec').onchange = () => newGame();
  for (const id of ['white-player', 'black-player']) {
    $(id).onchange = () => {
      const side = id === 'white-player' ? 'W' : 'B';
      failed[side] = null;
      paused = false;
      drawEngineBox();
      render();
      maybeEngine();
    };
  }
  $('clock-kind').onchange = clockLabels;
  $('clock-a').onchange = () => { resetClocks(); drawClocks(); };
  $('clock-b').onchange = () => { resetClocks(); drawClocks(); };
  $('new-game').onclick = newGame;
  $('takeback').onclick = () => takeback().catch((e) => showError(e.message));
  $('resign').onclick = resign;
  $('draw').onclick = offerDraw;
  $('copy-fen').onclick = () => { $('record').value = ctx.state.board.fen; navigator.clipboard?.writeText(ctx.state.board.fen).catch(() => {}); };
  $('copy-record').onclick = () => { const t = recordText(); $('record').value = t; navigator.clipboard?.writeText(t).catch(() => {}); };
  $('load-text').onclick = loadText;
  on('engine', (status) => {
    if (status.slot !== 'W' && status.slot !== 'B') return;
    if (status.state === 'ready') failed[status.slot] = null;
    else if (status.message) failed[status.slot] = status.message;
    drawEngineBox();
  });
  resetClocks();
  clock.timer = setInterval(drawClocks, 100);
  drawEngineBox();
  ctx.hooks.view.push((view) => { if (view === 'play') maybeEngine(); });
}

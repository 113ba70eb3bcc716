// Play: who plays each side (a person or an engine from the command
// line), strength, clocks, and the engine's moves; takeback, new game,
// resignation and draw offers, the result and a rematch.

import { post, on, sessionId, openSession } from './api.js';
import { refresh, setGame, showError, render, gameRequest, switchView, formatClock, $ } from './app.js';
import { ask } from './dialog.js';
import { remember } from './settings.js';
import { setEvalBar, scoreWords } from './score.js';

let ctx;
let generation = 0;         // bumps on new game / takeback: late replies are dropped
const clock = { left: { W: 0, B: 0 }, turn: null, since: 0, made: { W: 0, B: 0 }, plies: 0, timer: null };
let lastScore = { W: null, B: null };
const failed = { W: null, B: null };
let paused = false;
let variantShown = 'standard';
let endedByRules = false;   // the game at the end of Play's line is over by the rules

function players() {
  return { W: $('white-player').value, B: $('black-player').value };
}

const isEngine = (side) => players()[side] !== 'human';

function engineName(side) {
  const p = players()[side];
  return p === 'human' ? 'You' : ctx.config.engines[Number(p)]?.name ?? 'engine';
}

const game = () => ctx.games.play;

// A game that has begun and not ended: what a new game would throw away.
function inProgress() {
  return game().tree.root.children.length > 0 && !ctx.over && !endedByRules;
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

// A move was completed at the game's end: charge the mover, start the
// clock of the side now to move.
function onState(st) {
  if (ctx.view !== 'play') return;
  const tree = game().tree;
  if (!tree.atEnd()) return;
  endedByRules = Boolean(st.status);
  const completed = tree.depth();
  const c = clockSettings();
  if (clock.turn && completed > clock.plies && c.kind !== 'movetime') {
    const side = clock.turn;
    clock.left[side] = Math.max(0, clock.left[side] - elapsed()) + (c.inc ?? 0);
    clock.made[side] += 1;
    if (c.moves && clock.made[side] % c.moves === 0) clock.left[side] += c.base;
  }
  if (completed !== clock.plies || !clock.turn) {
    clock.turn = st.status || ctx.over || st.pending ? (st.pending ? clock.turn : null) : st.board.side;
    clock.since = performance.now();
  }
  clock.plies = completed;
  drawClocks();
  showBar();
  if (st.status && !ctx.over) showResult(`${st.status.text}`, st.status.result);
  maybeEngine();
}

function drawClocks() {
  const c = clockSettings();
  for (const id of ['top-player', 'bottom-player']) {
    const box = $(id);
    const side = box.dataset.side;
    const el = box.querySelector('.clock');
    if (ctx.view !== 'play') { el.textContent = ''; el.className = 'clock'; continue; }
    const running = clock.turn === side && !ctx.over && !ctx.state?.status && !failed[side] && !paused;
    const shown = c.kind === 'movetime'
      ? (running ? elapsed() : 0)
      : clock.left[side] - (running ? elapsed() : 0);
    const text = c.kind === 'movetime' && isEngine(side) ? `${formatClock(shown)} / ${formatClock(c.movetime)}` : formatClock(shown);
    if (el.textContent !== text) el.textContent = text;
    el.classList.toggle('running', running);
    el.classList.toggle('flagged', c.kind !== 'movetime' && shown <= 0);
    if (running && c.kind !== 'movetime' && shown <= 0 && !ctx.over) flag(side);
  }
}

function flag(side) {
  // The flag fell: the loser has no time left, whatever the last charge.
  clock.left[side] = 0;
  const winner = side === 'W' ? 'Black' : 'White';
  endGame(`${side === 'W' ? 'White' : 'Black'} ran out of time — ${winner} wins`, side === 'W' ? '0-1' : '1-0');
}

function endGame(text, result) {
  ctx.over = `${text} (${result})`;
  clock.turn = null;
  generation++;
  ctx.thinking = false;
  stopEngines();
  render();
  drawClocks();
  showResult(text, result);
}

function showResult(reason, result) {
  const box = $('result');
  box.querySelector('[data-role="result-title"]').textContent = result === '1/2-1/2' ? 'Draw' : result === '1-0' ? 'White wins' : 'Black wins';
  box.querySelector('[data-role="result-reason"]').textContent = `${reason} (${result})`;
  if (!box.open) box.showModal();
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

// The bar in Play: the latest engine's view of the game, from White's
// side (a person against a person shows none).
function showBar() {
  const st = ctx.state;
  const latest = ['W', 'B'].map((s) => lastScore[s]).filter(Boolean).sort((a, b) => b.at - a.at)[0];
  if (!latest || !st) { setEvalBar(null, ctx.flipped); return; }
  const white = latest.side === 'W' ? latest.cp : -latest.cp;
  setEvalBar(white, ctx.flipped, scoreWords({ kind: 'cp', value: latest.cp }, latest.side).bar);
}

async function maybeEngine() {
  const st = ctx.state;
  const g = game();
  if (!st || ctx.view !== 'play' || st.status || ctx.over || st.pending || ctx.thinking || paused || !g.tree.atEnd()) return;
  const side = st.board.side;
  if (!isEngine(side) || failed[side]) return;
  const mine = ++generation;
  const asked = g.tree.current;
  ctx.thinking = true;
  render();
  try {
    const session = await openSession();
    const reply = await post('/api/go', gameRequest({
      session, slot: side, engine: Number(players()[side]), clock: goClock(side), ...strength(),
    }));
    // Only on the position it was asked about: a takeback, a new game or
    // another view since then makes the answer stale.
    if (mine !== generation || game() !== g || g.tree.end() !== asked) return;
    if (reply.score !== null && reply.score !== undefined) lastScore[side] = { cp: reply.score, side, at: performance.now() };
    ctx.thinking = false;
    await playEngineMove(g, reply.bestmove);
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

// The engine's move goes at the end of the game, even when the person is
// looking at an earlier move meanwhile.
async function playEngineMove(g, move) {
  const tree = g.tree;
  const looking = tree.current;
  const end = tree.end();
  tree.current = end;
  tree.play(move);
  if (looking !== end) {
    tree.current = looking;
    render();
    return;
  }
  await refresh();
}

function drawEngineBox() {
  // Strength applies only where an engine plays.
  for (const el of document.querySelectorAll('[data-engines-only]')) el.hidden = !isEngine('W') && !isEngine('B');
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
    await post('/api/restart', { session, slot: side, variant: game().variant });
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

function chosenVariant() {
  return $('variant').value === 'custom' ? $('spec').value.trim() || 'standard' : $('variant').value;
}

async function newGame({ confirm = true } = {}) {
  if (confirm && inProgress() && !(await ask('Start a new game? The game in progress will be lost.', 'New game'))) return false;
  generation++;
  stopEngines();
  ctx.thinking = false;
  lastScore = { W: null, B: null };
  resetClocks();
  paused = false;
  if ($('result').open) $('result').close();
  await setGame({ variant: chosenVariant(), fen: null, moves: [] }, 'play').catch(() => {});
  variantShown = $('variant').value;
  return true;
}

// Moves taken back to a position where a person is to move (one ply when
// nobody is). Positions in between are asked of the server without being
// shown, so that no engine starts thinking on them.
async function takeback() {
  generation++;
  stopEngines();
  ctx.thinking = false;
  ctx.over = null;
  const g = game();
  const tree = g.tree;
  g.pending = null;
  let at = tree.end();
  if (!at.parent) { await refresh(); return; }
  at = at.parent;
  const humans = ['W', 'B'].filter((s) => !isEngine(s));
  paused = humans.length === 0;
  while (at.parent && humans.length) {
    const side = at.side ?? (await post('/api/state', { variant: g.variant, fen: g.fen, moves: tree.line(at) })).board.side;
    if (humans.includes(side)) break;
    at = at.parent;
  }
  for (const gone of at.children.slice()) tree.remove(gone);
  tree.current = at;
  resetClockTurn();
  await refresh();
}

function resetClockTurn() {
  clock.turn = null;
  clock.plies = game().tree.depth(game().tree.end());
}

async function resign() {
  const st = ctx.state;
  if (!st || st.status || ctx.over) return;
  const humans = ['W', 'B'].filter((s) => !isEngine(s));
  const side = humans.length === 1 ? humans[0] : st.board.side;
  const name = side === 'W' ? 'White' : 'Black';
  if (!(await ask(`Resign this game as ${name}?`, 'Resign'))) return;
  endGame(`${name} resigns — ${side === 'W' ? 'Black' : 'White'} wins`, side === 'W' ? '0-1' : '1-0');
}

// An engine agrees to a draw on its own latest view of this game; before
// it has judged the game it declines.
function offerDraw() {
  const st = ctx.state;
  if (!st || st.status || ctx.over) return;
  const engines = ['W', 'B'].filter(isEngine);
  if (engines.length === 1) {
    const score = lastScore[engines[0]];
    if (!score) showError(`${engineName(engines[0])} declines the draw: it has not judged this game yet`);
    else if (Math.abs(score.cp) <= 30) endGame('Draw agreed', '1/2-1/2');
    else showError(`${engineName(engines[0])} declines the draw`);
  } else if (engines.length === 0) {
    endGame('Draw agreed', '1/2-1/2');
  }
}

function recordText() {
  const st = ctx.state;
  const p = players();
  const line = game().tree.line(game().tree.end());
  const result = st.status?.result ?? (ctx.over?.match(/\((1-0|0-1|1\/2-1\/2)\)/)?.[1]) ?? '*';
  const tags = [['Event', 'yote gui'], ['White', p.W === 'human' ? 'person' : engineName('W')],
    ['Black', p.B === 'human' ? 'person' : engineName('B')]];
  if (!st.preset || st.preset !== 'standard') tags.push(['Variant', st.preset ?? st.variant]);
  if (game().fen) tags.push(['FEN', st.start]);
  tags.push(['Result', result]);
  const black = st.start.split(' ')[1] === 'b';
  let number = Number(st.start.split(' ')[5] ?? 1) || 1;
  const parts = [];
  line.forEach((m, i) => {
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
  if (inProgress() && !(await ask('Load this instead of the game in progress?', 'Load'))) return;
  try {
    if (text.startsWith('[') || /^\d+\./.test(text)) {
      const up = await post(`/api/records?name=pasted`, text.startsWith('[') ? text : `[Result "*"]\n\n${text} *\n`);
      const record = await (await fetch(`/api/records/${up.id}/0`)).json();
      if (record.error) throw new Error(record.error);
      resetClocks();
      await setGame({ variant: record.variant, fen: record.start, moves: record.plies.map((p) => p.text) }, 'play');
    } else {
      resetClocks();
      await setGame({ variant: chosenVariant(), fen: text, moves: [] }, 'play');
    }
    lastScore = { W: null, B: null };
    showError('');
  } catch (e) {
    showError(e.message);
  }
}

function fillSelects() {
  const variant = $('variant');
  for (const p of ctx.config.presets) variant.append(new Option(`${p.name}`, p.name));
  variant.append(new Option('custom rule spec…', 'custom'));
  for (const id of ['white-player', 'black-player', 'ng-white', 'ng-black']) {
    const select = $(id);
    select.append(new Option('Person', 'human'));
    ctx.config.engines.forEach((e, i) => select.append(new Option(`Engine: ${e.name}`, String(i))));
  }
  $('black-player').value = '0';
}

function describeVariant() {
  const preset = ctx.config.presets.find((p) => p.name === $('variant').value);
  $('variant-about').textContent = preset ? preset.description : 'rules given as key=value items';
}

function clockLabels() {
  const kind = $('clock-kind').value;
  $('clock-a-label').firstChild.textContent = kind === 'movetime' ? 'Seconds per move ' : 'Minutes ';
  $('clock-b-label').hidden = kind === 'movetime';
  $('clock-b-label').firstChild.textContent = kind === 'clock' ? 'Increment (s) ' : 'Moves per period ';
  if (kind === 'moves' && Number($('clock-b').value) < 1) $('clock-b').value = '40';
  if (kind !== 'movetime' && Number($('clock-a').value) < 0.05) $('clock-a').value = '5';
  resetClocks();
  drawClocks();
}

// Rules changed: a new game, once a game in progress may be thrown away.
async function rulesChanged() {
  $('spec-label').hidden = $('variant').value !== 'custom';
  describeVariant();
  if ($('variant').value === 'custom') return;
  if (!(await newGame())) {
    $('variant').value = variantShown;
    $('spec-label').hidden = variantShown !== 'custom';
    describeVariant();
  }
}

async function analyseThisGame() {
  const g = game();
  if (!(await ctx.replaceAnalysis())) return g;
  ctx.games.analyse = null;
  if ($('result').open) $('result').close();
  switchView('analyse');
  // The analysis board starts at the game's current move, the whole game
  // in its tree.
  return g;
}

// The new-game dialog: the rules, each with its one-line description (a
// custom spec last), the players, the engines' strength (shown only when
// an engine plays) and the clock, filled from the panel's settings; Start
// asks first when a game is in progress, and only then makes them the
// panel's (and the remembered) settings.
const DIALOG_FIELDS = [
  ['ng-white', 'white-player'], ['ng-black', 'black-player'],
  ['ng-strength-kind', 'strength-kind'], ['ng-strength-value', 'strength-value'],
  ['ng-clock-kind', 'clock-kind'], ['ng-clock-a', 'clock-a'], ['ng-clock-b', 'clock-b'],
];

// What applies in the dialog: strength where an engine plays, its value
// for a limited strength; the clock fields of the clock kind.
function dialogFields() {
  const engines = $('ng-white').value !== 'human' || $('ng-black').value !== 'human';
  for (const el of document.querySelectorAll('[data-ng-engines]')) el.hidden = !engines;
  const strength = $('ng-strength-kind').value;
  $('ng-strength-value-label').hidden = !engines || strength === 'full';
  $('ng-strength-value-label').querySelector('span').textContent = strength === 'elo' ? 'Elo' : 'Skill Level (0–20)';
  const kind = $('ng-clock-kind').value;
  $('ng-clock-a-label').querySelector('span').textContent = kind === 'movetime' ? 'Seconds per move' : 'Minutes';
  $('ng-clock-b-label').hidden = kind === 'movetime';
  $('ng-clock-b-label').querySelector('span').textContent = kind === 'clock' ? 'Increment (s)' : 'Moves per period';
  const about = {
    movetime: 'each engine move gets this long; a person\'s clock counts up',
    clock: 'both clocks count down; the increment is added after each move',
    moves: 'both clocks count down; the time is added again after each period',
  }[kind];
  $('new-game-about').textContent = `Clock: ${about}.`;
}

function clockKindChanged() {
  const kind = $('ng-clock-kind').value;
  if (kind === 'moves' && Number($('ng-clock-b').value) < 1) $('ng-clock-b').value = '40';
  if (kind !== 'movetime' && Number($('ng-clock-a').value) < 0.05) $('ng-clock-a').value = '5';
  dialogFields();
}

function openNewGame() {
  const list = $('rules-list');
  list.replaceChildren();
  const choice = (value, title, about) => {
    const label = document.createElement('label');
    const radio = document.createElement('input');
    radio.type = 'radio';
    radio.name = 'new-rules';
    radio.value = value;
    radio.checked = $('variant').value === value;
    const name = document.createElement('b');
    name.textContent = title;
    const text = document.createElement('span');
    text.textContent = about;
    label.append(radio, name, text);
    list.append(label);
    return label;
  };
  for (const p of ctx.config.presets) choice(p.name, p.name, p.description);
  const custom = choice('custom', 'custom', 'rules given as key=value items:');
  const spec = document.createElement('input');
  spec.type = 'text';
  spec.id = 'new-game-spec';
  spec.value = $('spec').value;
  spec.placeholder = 'rows=6,cols=7,multi_jump=true';
  spec.oninput = () => { custom.querySelector('input').checked = true; };
  custom.append(spec);
  for (const [mine, panel] of DIALOG_FIELDS) $(mine).value = $(panel).value;
  dialogFields();
  $('new-game-dialog').showModal();
}

async function startFromDialog() {
  const picked = document.querySelector('input[name="new-rules"]:checked')?.value ?? $('variant').value;
  const spec = $('new-game-spec').value.trim();
  $('new-game-dialog').close();
  if (inProgress() && !(await ask('Start a new game? The game in progress will be lost.', 'New game'))) return;
  // The dialog's choices become the panel's settings, remembered.
  $('variant').value = picked;
  if (picked === 'custom') $('spec').value = spec;
  $('spec-label').hidden = picked !== 'custom';
  describeVariant();
  remember('variant', $('variant').value);
  remember('spec', $('spec').value);
  for (const [mine, panel] of DIALOG_FIELDS) {
    if ($(panel).value !== $(mine).value) {
      $(panel).value = $(mine).value;
      if (panel.endsWith('-player')) failed[panel === 'white-player' ? 'W' : 'B'] = null;
    }
    remember(panel, $(panel).value);
  }
  clockLabels();
  drawEngineBox();
  await newGame({ confirm: false });
}

async function rematch() {
  const [w, b] = [$('white-player').value, $('black-player').value];
  $('white-player').value = b;
  $('black-player').value = w;
  for (const id of ['white-player', 'black-player']) $(id).dispatchEvent(new Event('change'));
  await newGame({ confirm: false });
}

export function initPlay(c) {
  ctx = c;
  fillSelects();
  ctx.playerName = (side) => engineName(side);
  ctx.rulesChosen = chosenVariant;
  ctx.humanToMove = (side) => !isEngine(side);
  ctx.playInProgress = inProgress;
  ctx.hooks.changed.push((st) => {
    if (ctx.view !== 'play') return;
    if (st.preset && $('variant').value !== st.preset) $('variant').value = st.preset;
    if (!st.preset) { $('variant').value = 'custom'; $('spec').value = st.variant; $('spec-label').hidden = false; }
    variantShown = $('variant').value;
    describeVariant();
    onState(st);
  });
  ctx.hooks.settings = [clockLabels, describeVariant, () => { $('spec-label').hidden = $('variant').value !== 'custom'; variantShown = $('variant').value; }];
  $('variant').onchange = () => rulesChanged();
  $('spec').onchange = () => newGame().then((done) => { if (!done) $('spec').value = ctx.state?.variant ?? ''; });
  for (const id of ['white-player', 'black-player']) {
    $(id).addEventListener('change', () => {
      const side = id === 'white-player' ? 'W' : 'B';
      failed[side] = null;
      paused = false;
      drawEngineBox();
      render();
      maybeEngine();
    });
  }
  $('clock-kind').onchange = clockLabels;
  $('clock-a').onchange = () => { resetClocks(); drawClocks(); };
  $('clock-b').onchange = () => { resetClocks(); drawClocks(); };
  $('new-game').onclick = openNewGame;
  for (const id of ['ng-white', 'ng-black', 'ng-strength-kind']) $(id).onchange = dialogFields;
  $('ng-clock-kind').onchange = clockKindChanged;
  $('start-game').onclick = startFromDialog;
  $('new-game-cancel').onclick = () => $('new-game-dialog').close();
  $('takeback').onclick = () => takeback().catch((e) => showError(e.message));
  $('resign').onclick = resign;
  $('draw').onclick = offerDraw;
  $('rematch').onclick = rematch;
  $('result-close').onclick = () => $('result').close();
  $('result-analyse').onclick = analyseThisGame;
  $('play-analyse').onclick = analyseThisGame;
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
  ctx.hooks.view.push((view) => {
    if (view === 'play') { drawEngineBox(); maybeEngine(); } else {
      // Away from Play nothing plays: the search is dropped, and asked
      // again on return.
      generation++;
      if (ctx.thinking) stopEngines();
      ctx.thinking = false;
    }
    drawClocks();
  });
}

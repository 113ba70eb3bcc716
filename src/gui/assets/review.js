// Review: records from the command line or pasted/uploaded, a game list,
// stepping through a game with the keyboard, the marks and comments of
// `yote analyse`, and an evaluation graph that jumps to a move.

import { get, post } from './api.js';
import { setGame, showError, render, switchView, $ } from './app.js';
import { setEvalBar, commentWords } from './score.js';
import { lastMoveMarks } from './board.js';
import { MoveTree } from './tree.js';
import { renderTree } from './moves.js';

let ctx;
let source = null;
let game = null;       // the game shown, as the server sent it
let ply = 0;           // 0: the start; n: after the n-th ply
let tree = null;       // the game's moves as a tree (one line), for the list

const MARK_CLASS = { '??': 'mark-qq', '?': 'mark-q', '?!': 'mark-qe' };

// The files to choose from; the options are replaced only when the list
// changed, so that a choice being made is not pulled from under it.
async function loadSources(select) {
  const list = await get('/api/records');
  const wanted = ['', ...list.map((r) => `${r.id}:${r.name}`)].join('|');
  const shown = [...select.options].map((o) => (o.value ? `${o.value}:${o.text}` : '')).join('|');
  if (wanted === shown) return list;
  const chosen = select.value;
  select.replaceChildren(new Option('—', ''));
  for (const r of list) select.append(new Option(r.name, r.id));
  select.value = chosen;
  return list;
}

async function openSource(id) {
  source = id;
  game = null;
  const tbody = $('game-list').querySelector('tbody');
  tbody.replaceChildren();
  if (!id) return;
  try {
    const list = await get(`/api/records/${id}`);
    for (const g of list.games) {
      const tr = document.createElement('tr');
      tr.dataset.index = g.index;
      for (const v of [g.index + 1, g.white, g.black, g.result, g.plies]) {
        const td = document.createElement('td');
        td.textContent = String(v);
        tr.append(td);
      }
      tr.onclick = () => openGame(g.index);
      tbody.append(tr);
    }
    showError('', 'review-error');
    if (list.games.length) await openGame(0);
  } catch (e) {
    showError(e.message, 'review-error');
  }
}

async function openGame(index) {
  try {
    game = await get(`/api/records/${source}/${index}`);
  } catch (e) {
    showError(e.message, 'review-error');
    return;
  }
  for (const tr of $('game-list').querySelectorAll('tbody tr')) tr.classList.toggle('current', Number(tr.dataset.index) === index);
  tree = new MoveTree(game.plies.map((p) => p.text));
  const tag = (name) => game.tags.find(([k]) => k === name)?.[1] ?? '?';
  ctx.shownNames = { W: tag('White'), B: tag('Black') };
  $('review-tags').textContent = game.tags.map(([k, v]) => `${k}: ${v}`).join(' · ') + (game.end ? ` · ${game.end}` : '');
  drawGraph();
  step(0);
}

function step(to) {
  if (!game) return;
  ply = Math.max(0, Math.min(game.plies.length, to));
  ctx.shownBoard = game.boards[ply];
  ctx.reviewPly = ply;
  const p = game.plies[ply - 1];
  ctx.shownMarks = p ? lastMoveMarks(p.text, game.boards[ply]) : {};
  render();
  tree.current = tree.root;
  for (let i = 0; i < ply; i++) tree.forward();
  renderTree($('review-moves'), tree, { start: game.start, onPick: (n) => step(tree.depth(n)), decorate: markMove });
  $('review-comment').textContent = p ? commentText(p, game.boards[ply - 1].side) : 'start';
  const side = game.boards[ply].side === 'W' ? 'White' : 'Black';
  $('status').textContent = ply === game.plies.length && endText() ? `Game over — ${endText()}` : `Ply ${ply} of ${game.plies.length}, ${side} to move`;
  const value = valueAt(ply);
  setEvalBar(value, ctx.flipped);
  const marker = $('graph').querySelector('.marker');
  if (marker) marker.setAttribute('x1', x(ply)), marker.setAttribute('x2', x(ply));
}

function markMove(node, el) {
  const p = game.plies[tree.depth(node) - 1];
  if (!p?.mark) return;
  const mark = document.createElement('span');
  mark.className = MARK_CLASS[p.mark];
  mark.textContent = p.mark;
  el.append(mark);
}

// The move, its mark, and the comment's value said from White's side
// (the records hold it from the mover's), then the rest of the comment.
function commentText(p, mover) {
  const words = p.comment ? commentWords(p.comment, mover) : null;
  const rest = p.comment ? p.comment.replace(/^[^\s;]*/, '').replace(/^[\s;]+/, '') : '';
  const parts = [`${ply}. ${p.text}${p.mark ? ' ' + p.mark : ''}`];
  if (words) parts.push(words);
  if (rest && words) parts.push(rest.replace(/^\?+!?\s*/, ''));
  else if (p.comment && !words) parts.push(p.comment);
  return parts.join(' — ');
}

// How the game ended: the rules' word, else the record's (a ply limit,
// an adjudication, a forfeit) with its result.
function endText() {
  if (game.end) return game.end;
  const tag = (name) => game.tags.find(([k]) => k === name)?.[1];
  const result = game.result && game.result !== '*' ? game.result : tag('Result');
  if (!result || result === '*') return null;
  const outcome = result === '1/2-1/2' ? 'drawn' : result === '1-0' ? 'White wins' : 'Black wins';
  const why = tag('Reason') ?? tag('Termination');
  return `${outcome}${why ? ` — ${why}` : ''} (${result})`;
}

// The last value known at or before `ply`, White's view.
function valueAt(n) {
  for (let i = n; i > 0; i--) if (game.plies[i - 1].white_cp !== null) return game.plies[i - 1].white_cp;
  return null;
}

const W = 400, H = 120, CAP = 1000;
const x = (n) => (game.plies.length ? (n / game.plies.length) * W : 0);
const y = (cp) => H / 2 - (Math.max(-CAP, Math.min(CAP, cp)) / CAP) * (H / 2 - 4);

function drawGraph() {
  const svg = $('graph');
  const ns = 'http://www.w3.org/2000/svg';
  svg.replaceChildren();
  const mid = document.createElementNS(ns, 'line');
  Object.entries({ x1: 0, x2: W, y1: H / 2, y2: H / 2, stroke: '#bbb', 'stroke-width': 1 }).forEach(([k, v]) => mid.setAttribute(k, v));
  svg.append(mid);
  const points = [];
  game.plies.forEach((p, i) => { if (p.white_cp !== null) points.push(`${x(i + 1).toFixed(1)},${y(p.white_cp).toFixed(1)}`); });
  if (points.length) {
    const area = document.createElementNS(ns, 'polyline');
    area.setAttribute('points', points.join(' '));
    area.setAttribute('fill', 'none');
    area.setAttribute('stroke', '#2f6fb3');
    area.setAttribute('stroke-width', '2');
    area.setAttribute('vector-effect', 'non-scaling-stroke');
    svg.append(area);
  }
  game.plies.forEach((p, i) => {
    if (!p.mark || p.white_cp === null) return;
    const dot = document.createElementNS(ns, 'circle');
    Object.entries({ cx: x(i + 1), cy: y(p.white_cp), r: 3, fill: p.mark === '??' ? '#c0392b' : '#d35400' }).forEach(([k, v]) => dot.setAttribute(k, v));
    svg.append(dot);
  });
  const marker = document.createElementNS(ns, 'line');
  marker.classList.add('marker');
  Object.entries({ x1: 0, x2: 0, y1: 0, y2: H, stroke: '#c0392b', 'stroke-width': 1, 'vector-effect': 'non-scaling-stroke' }).forEach(([k, v]) => marker.setAttribute(k, v));
  svg.append(marker);
  if (!points.length) {
    const t = document.createElementNS(ns, 'text');
    Object.entries({ x: 8, y: 20, 'font-size': 12, fill: '#888' }).forEach(([k, v]) => t.setAttribute(k, v));
    t.textContent = 'no values in this record (annotate it with yote analyse)';
    svg.append(t);
  }
}

function graphClick(event) {
  if (!game || !game.plies.length) return;
  const box = $('graph').getBoundingClientRect();
  const share = (event.clientX - box.left) / box.width;
  step(Math.round(share * game.plies.length));
}

async function upload(name, text) {
  try {
    const up = await post(`/api/records?name=${encodeURIComponent(name).replace(/%/g, '')}`, text);
    await loadSources($('records-source'));
    $('records-source').value = up.id;
    await openSource(up.id);
  } catch (e) {
    showError(e.message, 'review-error');
  }
}

// The whole game into Analyse's tree, at the move shown.
async function analyseThisGame() {
  if (!game || !(await ctx.replaceAnalysis())) return;
  const at = ply;
  ctx.shownBoard = null;
  switchView('analyse');
  try {
    const g = await setGame({ variant: game.variant, fen: game.start, moves: game.plies.map((p) => p.text) }, 'analyse');
    g.tree.current = g.tree.root;
    for (let i = 0; i < at; i++) g.tree.forward();
    const { refresh } = await import('./app.js');
    await refresh();
  } catch (_) { /* shown by setGame */ }
}

export function initReview(c) {
  ctx = c;
  loadSources($('records-source')).catch(() => {});
  $('records-source').onchange = (e) => openSource(e.target.value);
  $('records-load').onclick = () => upload('pasted', $('records-paste').value);
  $('records-file').onchange = async (e) => {
    const file = e.target.files[0];
    if (file) upload(file.name, await file.text());
  };
  $('graph').addEventListener('click', graphClick);
  $('rv-first').onclick = () => step(0);
  $('rv-prev').onclick = () => step(ply - 1);
  $('rv-next').onclick = () => step(ply + 1);
  $('rv-last').onclick = () => step(game ? game.plies.length : 0);
  $('rv-play').onclick = analyseThisGame;
  ctx.hooks.keys.push((e) => {
    if (ctx.view !== 'review' || !game) return;
    const moves = { ArrowLeft: ply - 1, ArrowRight: ply + 1, Home: 0, End: game.plies.length, ArrowUp: 0, ArrowDown: game.plies.length };
    if (e.key in moves) { e.preventDefault(); step(moves[e.key]); }
  });
  ctx.hooks.view.push((view) => {
    if (view === 'review' && game) step(ply);
    else if (view === 'review') loadSources($('records-source')).catch(() => {});
  });
}

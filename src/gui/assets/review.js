// Review: records from the command line or pasted/uploaded, a game list,
// stepping through a game with the keyboard, the marks and comments of
// `yote analyse`, and an evaluation graph that jumps to a move.

import { get, post } from './api.js';
import { setGame, showError, render, $ } from './app.js';
import { setEvalBar } from './analyse.js';

let ctx;
let source = null;
let game = null;       // the game shown, as the server sent it
let ply = 0;           // 0: the start; n: after the n-th ply

const MARK_CLASS = { '??': 'mark-qq', '?': 'mark-q', '?!': 'mark-qe' };

async function loadSources(select) {
  const list = await get('/api/records');
  select.replaceChildren(new Option('—', ''));
  for (const r of list) select.append(new Option(r.name, r.id));
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
  const list = $('review-moves');
  list.replaceChildren();
  game.plies.forEach((p, i) => {
    const li = document.createElement('li');
    li.dataset.ply = i + 1;
    li.textContent = p.text;
    if (p.mark) {
      const mark = document.createElement('span');
      mark.className = MARK_CLASS[p.mark];
      mark.textContent = p.mark;
      li.append(mark);
    }
    li.onclick = () => step(i + 1);
    list.append(li);
  });
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
  render();
  for (const li of $('review-moves').children) li.classList.toggle('current', Number(li.dataset.ply) === ply);
  $('review-moves').querySelector('.current')?.scrollIntoView({ block: 'nearest' });
  const p = game.plies[ply - 1];
  $('review-comment').textContent = p ? `${ply}. ${p.text}${p.mark ? ' ' + p.mark : ''}${p.comment ? ' — ' + p.comment : ''}` : 'start';
  const side = game.boards[ply].side === 'W' ? 'White' : 'Black';
  $('status').textContent = ply === game.plies.length && game.end ? `Game over — ${game.end}` : `Ply ${ply} of ${game.plies.length}, ${side} to move`;
  const value = valueAt(ply);
  setEvalBar(value ?? 0);
  const marker = $('graph').querySelector('.marker');
  if (marker) marker.setAttribute('x1', x(ply)), marker.setAttribute('x2', x(ply));
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

function playFromHere() {
  if (!game) return;
  const moves = game.plies.slice(0, ply).map((p) => p.text);
  ctx.shownBoard = null;
  setGame({ variant: game.variant, fen: game.start, moves }).then(() => {
    document.querySelector('#views button[data-view="analyse"]').click();
  }, () => {});
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
  $('rv-play').onclick = playFromHere;
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

// Watch: follow a records file a running `yote match` appends to. Games
// arrive as events; the page keeps only the latest few hundred rows and
// a handful of boards, so a long match does not grow its memory.

import { $ } from './app.js';
import { miniBoard } from './board.js';

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
  $('watch-games').querySelector('tbody').replaceChildren();
  $('watch-boards').replaceChildren();
  stream = new EventSource(`/api/watch?records=${id}`);
  stream.addEventListener('game', (e) => addGame(JSON.parse(e.data)));
  stream.addEventListener('standings', (e) => drawStandings(JSON.parse(e.data)));
  stream.addEventListener('error', (e) => {
    if (e.data) $('watch-info').textContent = JSON.parse(e.data).error;
  });
  $('watch-info').textContent = 'following…';
}

function addGame(g) {
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

window.addEventListener('pagehide', () => stream?.close());

export function initWatch(ctx) {
  const select = $('watch-source');
  for (const r of ctx.config.records.filter((r) => r.file)) select.append(new Option(r.name, r.id));
  if (!select.options.length) select.append(new Option('(start yote gui with --records FILE)', ''));
  $('watch-start').onclick = () => follow(select.value);
  $('watch-stop').onclick = stop;
}

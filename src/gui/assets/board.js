// Drawing a board the server described: `cells` holds one character per
// cell in index order (a1, b1, …), rank 1 at the bottom unless flipped.
// Every cell is an element with data-square, every piece data-piece.

const FILES = 'abcdefgh';

export function squareName(index, cols) {
  return FILES[index % cols] + (Math.floor(index / cols) + 1);
}

export function squareIndex(name, cols) {
  return (Number(name.slice(1)) - 1) * cols + FILES.indexOf(name[0]);
}

const xy = (name) => [FILES.indexOf(name[0]), Number(name.slice(1)) - 1];

// What the last move did, read from its text: the cells it went through,
// the cells it jumped (a piece taken there) and those it removed; the
// taken pieces are the mover's foe's, drawn as ghosts.
export function lastMoveMarks(text, board) {
  const marks = { last: new Set(), jumped: new Set(), removed: new Set(), ghost: null };
  if (!text) return marks;
  const [path, ...removals] = text.split('x');
  const cells = path.match(/[a-h]\d+/g) ?? [];
  for (const c of cells) marks.last.add(c);
  for (let i = 1; i < cells.length; i++) {
    const [a, b] = [xy(cells[i - 1]), xy(cells[i])];
    if (Math.abs(a[0] - b[0]) === 2 || Math.abs(a[1] - b[1]) === 2) {
      marks.jumped.add(FILES[(a[0] + b[0]) / 2] + ((a[1] + b[1]) / 2 + 1));
    }
  }
  for (const r of removals) if (r !== '@' && /^[a-h]\d+$/.test(r)) marks.removed.add(r);
  const landed = cells.at(-1);
  const mover = landed && board ? board.cells[squareIndex(landed, board.cols)] : null;
  marks.ghost = mover === 'W' ? 'B' : mover === 'B' ? 'W' : null;
  return marks;
}

export class BoardView {
  constructor(element, { cellSize = 64, coords = true } = {}) {
    this.el = element;
    this.cellSize = cellSize;
    this.coords = coords;
    this.flipped = false;
    this.shape = '';
    this.cellEls = new Map();
    this.onSquare = null;
    this.width = 0;
    this.el.addEventListener('pointerdown', (e) => this.pointer(e, 'down'));
    this.el.addEventListener('pointerup', (e) => this.pointer(e, 'up'));
  }

  // Click and drag are one gesture: a press selects, a release over
  // another square moves there.
  pointer(event, phase) {
    const cell = document.elementFromPoint(event.clientX, event.clientY)?.closest('[data-square]');
    if (!cell || !this.onSquare) return;
    if (phase === 'down') {
      this.pressed = cell.dataset.square;
      this.onSquare(this.pressed, 'down');
    } else if (this.pressed && cell.dataset.square !== this.pressed) {
      this.onSquare(cell.dataset.square, 'drop');
      this.pressed = null;
    } else {
      this.pressed = null;
    }
  }

  // Cells as large as `room` pixels of width allow.
  fit(rows, cols, room) {
    const size = Math.max(16, Math.floor((room - 6) / cols));
    if (size !== this.cellSize) {
      this.cellSize = size;
      this.el.style.setProperty('--cell', `${size}px`);
    }
    this.width = size * cols + 6;
  }

  build(rows, cols) {
    const shape = `${rows}x${cols}:${this.flipped}`;
    if (shape === this.shape) return;
    this.shape = shape;
    this.rows = rows;
    this.cols = cols;
    this.el.style.setProperty('--cell', `${this.cellSize}px`);
    this.el.style.gridTemplateColumns = `repeat(${cols}, var(--cell))`;
    this.el.replaceChildren();
    this.cellEls.clear();
    for (let r = 0; r < rows; r++) {
      for (let c = 0; c < cols; c++) {
        const rank = this.flipped ? r : rows - 1 - r;
        const file = this.flipped ? cols - 1 - c : c;
        const name = FILES[file] + (rank + 1);
        const cell = document.createElement('div');
        cell.className = 'cell' + ((rank + file) % 2 === 0 ? ' dark' : '');
        cell.dataset.square = name;
        if (this.coords && r === rows - 1) cell.append(coord('file', FILES[file]));
        if (this.coords && c === 0) cell.append(coord('rank', String(rank + 1)));
        this.el.append(cell);
        this.cellEls.set(name, cell);
      }
    }
    this.arrowSvg = null;
  }

  // Redraws only what changed: pieces, ghosts of taken pieces and
  // highlight classes.
  draw(board, marks = {}) {
    this.build(board.rows, board.cols);
    for (let i = 0; i < board.cells.length; i++) {
      const name = squareName(i, board.cols);
      const cell = this.cellEls.get(name);
      const want = board.cells[i] === '.' ? null : board.cells[i];
      let piece = cell.querySelector('.piece');
      if (!want && piece) piece.remove();
      if (want) {
        if (!piece) {
          piece = document.createElement('div');
          piece.className = 'piece';
          cell.append(piece);
        }
        if (piece.dataset.piece !== want) piece.dataset.piece = want;
      }
      const taken = !want && marks.ghost && (marks.jumped?.has(name) || marks.removed?.has(name));
      let ghost = cell.querySelector('.ghost');
      if (!taken && ghost) ghost.remove();
      if (taken) {
        if (!ghost) {
          ghost = document.createElement('div');
          ghost.className = 'ghost';
          cell.append(ghost);
        }
        ghost.dataset.ghost = marks.ghost;
      }
      cell.classList.toggle('selected', marks.selected === name);
      cell.classList.toggle('target', !!marks.targets?.has(name));
      cell.classList.toggle('capture', !!marks.captures?.has(name));
      cell.classList.toggle('removable', !!marks.removable?.has(name));
      cell.classList.toggle('picked', !!marks.picked?.includes(name));
      cell.classList.toggle('last', !!marks.last?.has(name));
      cell.classList.toggle('jumped', !!marks.jumped?.has(name) || !!marks.removed?.has(name));
    }
    this.drawArrow(marks.arrow);
  }

  // The best line's first move as an arrow (a ring for a placement).
  drawArrow(move) {
    if (!this.arrowSvg) {
      this.arrowSvg = document.createElementNS('http://www.w3.org/2000/svg', 'svg');
      this.arrowSvg.classList.add('arrows');
      this.arrowSvg.dataset.role = 'arrow';
      this.el.append(this.arrowSvg);
    }
    const svg = this.arrowSvg;
    svg.setAttribute('viewBox', `0 0 ${this.cols} ${this.rows}`);
    const key = move ?? '';
    if (svg.dataset.move === key) return;
    svg.dataset.move = key;
    svg.replaceChildren();
    if (!move) return;
    const cells = (move.split('x')[0].match(/[a-h]\d+/g) ?? []).map((c) => this.center(c));
    const ns = 'http://www.w3.org/2000/svg';
    const add = (tag, attrs) => {
      const el = document.createElementNS(ns, tag);
      for (const [k, v] of Object.entries(attrs)) el.setAttribute(k, v);
      svg.append(el);
      return el;
    };
    if (cells.length === 1) {
      add('circle', { cx: cells[0][0], cy: cells[0][1], r: 0.38, fill: 'none', stroke: '#15781b', 'stroke-width': 0.1, opacity: 0.8 });
      return;
    }
    add('polyline', { points: cells.map((p) => p.join(',')).join(' '), fill: 'none', stroke: '#15781b', 'stroke-width': 0.15, 'stroke-linecap': 'round', 'stroke-linejoin': 'round', opacity: 0.75 });
    const [a, b] = [cells.at(-2), cells.at(-1)];
    const angle = Math.atan2(b[1] - a[1], b[0] - a[0]);
    const tip = (d, t) => [b[0] - d * Math.cos(angle + t), b[1] - d * Math.sin(angle + t)].join(',');
    add('polygon', { points: `${b.join(',')} ${tip(0.35, 0.5)} ${tip(0.35, -0.5)}`, fill: '#15781b', opacity: 0.85 });
  }

  center(name) {
    const [f, r] = xy(name);
    const col = this.flipped ? this.cols - 1 - f : f;
    const row = this.flipped ? r : this.rows - 1 - r;
    return [col + 0.5, row + 0.5];
  }
}

function coord(kind, text) {
  const span = document.createElement('span');
  span.className = `coord ${kind}`;
  span.textContent = text;
  return span;
}

// A small board for lists (Watch), not interactive.
export function miniBoard(board) {
  const el = document.createElement('div');
  el.className = 'board';
  const view = new BoardView(el, { cellSize: 18, coords: false });
  view.draw(board);
  return el;
}

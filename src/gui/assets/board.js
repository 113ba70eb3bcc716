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

export class BoardView {
  constructor(element, { cellSize = 64, coords = true } = {}) {
    this.el = element;
    this.cellSize = cellSize;
    this.coords = coords;
    this.flipped = false;
    this.shape = '';
    this.cellEls = new Map();
    this.onSquare = null;
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

  build(rows, cols) {
    const shape = `${rows}x${cols}:${this.flipped}`;
    if (shape === this.shape) return;
    this.shape = shape;
    const size = Math.min(this.cellSize, Math.floor(440 / Math.max(rows, cols)));
    this.el.style.setProperty('--cell', `${size}px`);
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
  }

  // Redraws only what changed: pieces and highlight classes.
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
      cell.classList.toggle('selected', marks.selected === name);
      cell.classList.toggle('target', !!marks.targets?.has(name));
      cell.classList.toggle('removable', !!marks.removable?.has(name));
      cell.classList.toggle('picked', !!marks.picked?.includes(name));
      cell.classList.toggle('last', !!marks.last?.has(name));
    }
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

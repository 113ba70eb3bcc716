// The move list of a tree: one entry per turn (data-ply, its depth), move
// numbers, variations in parentheses; an entry's click goes to its node.

import { plyNumber } from './tree.js';

// `start`: the start position's text (side and move number are read from
// it); `decorate(node, element)` adds marks (Review); `pending`: a jump
// whose removals are still being chosen.
export function renderTree(box, tree, { start, onPick, decorate, pending } = {}) {
  const fields = (start ?? '').split(' ');
  const black = fields[1] === 'b';
  const number = Number(fields[5]) || 1;
  const frag = document.createDocumentFragment();
  const entry = (n, ply, force, into) => {
    const p = plyNumber(ply, black, number);
    if (p.white || force) {
      const no = document.createElement('span');
      no.className = 'no';
      no.textContent = p.white ? `${p.number}.` : `${p.number}…`;
      into.append(no);
    }
    const el = document.createElement('span');
    el.className = 'move' + (n === tree.current ? ' current' : '');
    el.dataset.ply = String(ply + 1);
    el.dataset.node = String(n.id);
    el.textContent = n.move;
    el.onclick = () => onPick?.(n);
    decorate?.(n, el);
    into.append(el, ' ');
  };
  const walk = (parent, ply, force, into) => {
    const [main, ...variations] = parent.children;
    if (!main) return;
    entry(main, ply, force, into);
    for (const v of variations) {
      const box = document.createElement('span');
      box.className = 'variation';
      entry(v, ply, true, box);
      walk(v, ply + 1, false, box);
      into.append(box);
    }
    walk(main, ply + 1, variations.length > 0, into);
  };
  walk(tree.root, 0, true, frag);
  if (pending) {
    const el = document.createElement('span');
    el.className = 'move pending';
    el.textContent = `${pending}…`;
    frag.append(el);
  }
  box.replaceChildren(frag);
  const current = box.querySelector('.current');
  if (current) {
    const top = current.offsetTop; // the box is positioned: its own offsets
    if (top < box.scrollTop || top > box.scrollTop + box.clientHeight - 20) box.scrollTop = top - box.clientHeight / 2;
  } else if (tree.current === tree.root) {
    box.scrollTop = 0;
  }
}

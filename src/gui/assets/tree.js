// A move tree: each node one whole move (a capture with its removals is
// one move, however it was entered); the line from the root to the
// current node is the position on the board. A node's first child is its
// main line, the others are variations. Legality is the server's: a tree
// holds only moves the rules accepted when they were played or loaded.

let nextId = 1;
const node = (move, parent) => ({ id: nextId++, move, parent, children: [] });

export class MoveTree {
  constructor(moves = []) {
    this.root = node(null, null);
    this.current = this.root;
    this.version = 0; // bumps on every change of shape, for redrawing
    for (const m of moves) this.play(m);
  }

  line(n = this.current) {
    const out = [];
    for (; n.parent; n = n.parent) out.push(n.move);
    return out.reverse();
  }

  depth(n = this.current) {
    let d = 0;
    for (; n.parent; n = n.parent) d++;
    return d;
  }

  // Goes to the child playing `move`, made when there is none: a move from
  // an earlier position starts a variation.
  play(move) {
    let child = this.current.children.find((c) => c.move === move);
    if (!child) {
      child = node(move, this.current);
      this.current.children.push(child);
      this.version++;
    }
    this.current = child;
    return child;
  }

  end(n = this.root) {
    while (n.children.length) n = n.children[0];
    return n;
  }

  atEnd() {
    return this.current === this.end();
  }

  find(id) {
    const walk = (n) => {
      if (n.id === id) return n;
      for (const c of n.children) {
        const hit = walk(c);
        if (hit) return hit;
      }
      return null;
    };
    return walk(this.root);
  }

  back() { if (this.current.parent) this.current = this.current.parent; }
  forward() { if (this.current.children.length) this.current = this.current.children[0]; }
  first() { this.current = this.root; }
  // The end of the line the current node is on.
  last() { this.current = this.end(this.current); }

  // Removes a node and what follows it; the current node moves out of it.
  remove(n) {
    if (!n.parent) return;
    for (let c = this.current; c; c = c.parent) {
      if (c === n) { this.current = n.parent; break; }
    }
    n.parent.children = n.parent.children.filter((c) => c !== n);
    this.version++;
  }

  // The variation holding `n` moves one step towards the main line.
  promote(n) {
    let v = n;
    while (v.parent && v.parent.children[0] === v) v = v.parent;
    if (!v.parent) return false;
    const siblings = v.parent.children;
    const at = siblings.indexOf(v);
    siblings.splice(at, 1);
    siblings.splice(at - 1, 0, v);
    this.version++;
    return true;
  }

  isMainline(n) {
    for (; n.parent; n = n.parent) if (n.parent.children[0] !== n) return false;
    return true;
  }

  // Every line from the root to a leaf (for checking a loaded tree).
  leaves(n = this.root, out = []) {
    if (!n.children.length) out.push(n);
    for (const c of n.children) this.leaves(c, out);
    return out;
  }
}

// Ply i (0-based) of a game whose start has `black` to move and carries
// move number `number`: its number and whether White makes it.
export function plyNumber(i, black, number) {
  const k = i + (black ? 1 : 0);
  return { number: number + Math.floor(k / 2), white: k % 2 === 0 };
}

// The tree as records movetext: numbered, variations in parentheses.
export function treeText(tree, black, number) {
  const out = [];
  const label = (ply, force) => {
    const p = plyNumber(ply, black, number);
    return p.white ? `${p.number}. ` : force ? `${p.number}... ` : '';
  };
  const walk = (parent, ply, force) => {
    const [main, ...variations] = parent.children;
    if (!main) return;
    out.push(label(ply, force) + main.move);
    for (const v of variations) {
      out.push('(' + label(ply, true) + v.move);
      walk(v, ply + 1, false);
      out[out.length - 1] += ')';
    }
    walk(main, ply + 1, variations.length > 0);
  };
  walk(tree.root, 0, true);
  return out.join(' ');
}

// Reads movetext back into a tree: numbers, results and {comments} are
// skipped, parentheses open and close variations. The moves are checked by
// the server afterwards.
export function parseTreeText(text) {
  const tree = new MoveTree();
  const body = text.replace(/^\s*\[[^\]]*\]\s*$/gm, ' ').replace(/\{[^}]*\}/g, ' ');
  const tokens = body.match(/\(|\)|[^\s()]+/g) ?? [];
  const stack = [];
  let last = null; // the node of the latest move on this level
  for (const t of tokens) {
    if (t === '(') {
      if (!last) throw new Error('a variation before any move');
      stack.push(last);
      tree.current = last.parent;
    } else if (t === ')') {
      if (!stack.length) throw new Error('a ")" with no "("');
      last = stack.pop();
      tree.current = last;
    } else if (/^\d+\.+$/.test(t) || /^(1-0|0-1|1\/2-1\/2|\*)$/.test(t)) {
      continue;
    } else {
      const move = t.replace(/^\d+\.+/, '');
      last = tree.play(move);
    }
  }
  if (stack.length) throw new Error('a "(" with no ")"');
  tree.current = tree.root;
  return tree;
}

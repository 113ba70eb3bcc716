// Scores as people read them: always from White's side (a plus is good for
// White), table values in words, and the evaluation bar.

// A table win scores `cp 30744 - d`, d plies to the next capture
// (protocol.md); tables of distances to the end give a mate instead.
export const TABLE_WIN = 30744;
const TABLE_BAND = 1000;

const plies = (n) => `${n} pl${n === 1 ? 'y' : 'ies'}`;
const sign = (v) => (v > 0 ? '+' : v < 0 ? '\u2212' : '');

// `score` as an engine gives it (`{kind, value}` from the mover's view,
// `side` the mover): {text, white (centipawns for the bar), bar (its label)}.
export function scoreWords(score, side) {
  if (!score) return { text: '', white: null, bar: '' };
  const toWhite = (v) => (side === 'W' ? v : -v);
  if (score.kind === 'mate') {
    const v = toWhite(score.value);
    const winner = v > 0 ? 'White' : 'Black';
    return { text: `${winner} wins in ${Math.abs(score.value)} move${Math.abs(score.value) === 1 ? '' : 's'}`, white: v > 0 ? 10000 : -10000, bar: v > 0 ? '1-0' : '0-1' };
  }
  const v = toWhite(score.value);
  if (Math.abs(score.value) >= TABLE_WIN - TABLE_BAND) {
    const winner = v > 0 ? 'White' : 'Black';
    return { text: `${winner} wins (tables), the next capture in ${plies(TABLE_WIN - Math.abs(score.value))}`, white: v > 0 ? 10000 : -10000, bar: v > 0 ? '1-0' : '0-1' };
  }
  return { text: sign(v) + (Math.abs(v) / 100).toFixed(2), white: v, bar: sign(v) + (Math.abs(v) / 100).toFixed(1) };
}

// The bar: White's share grows from White's side of the board (the
// bottom, or the top when the board is flipped). `white` null: no value.
export function setEvalBar(white, flipped, label) {
  const bar = document.getElementById('evalbar');
  const share = white === null ? 0.5 : 1 / (1 + Math.exp(-white / 200));
  bar.dataset.white = share.toFixed(3);
  bar.classList.toggle('flipped', !!flipped);
  bar.classList.toggle('empty', white === null);
  bar.style.setProperty('--share', `${(share * 100).toFixed(1)}%`);
  bar.querySelector('span').textContent = white === null ? '' : label ?? sign(white) + (Math.abs(white) / 100).toFixed(1);
}

// A comment of `yote analyse` or the match runner (`+0.35/7 …`, `+W5/12`,
// `-L4`, `=D`, `+M`), from the mover's view, said from White's side.
export function commentWords(comment, mover) {
  const m = /^([+-]?)(W|L|M|D|\d+(?:\.\d+)?)(\d*)(?:\/(\d+))?/.exec(comment.replace(/^=/, ''));
  if (!m) return null;
  const [, s, what, n, depth] = m;
  const forWhite = (good) => (good === (mover === 'W') ? 'White' : 'Black');
  const at = depth ? `, depth ${depth}` : '';
  if (what === 'W' || what === 'L') {
    const winner = forWhite(what === 'W');
    return `${winner} wins (tables${n ? `, ${plies(Number(n))} to the next capture` : ''})`;
  }
  if (what === 'D') return 'draw (tables)';
  if (what === 'M') return `${forWhite(s !== '-')} mates${at}`;
  const pawns = Number(what) * (s === '-' ? -1 : 1);
  const white = mover === 'W' ? pawns : -pawns;
  return `${sign(white) || '+'}${Math.abs(white).toFixed(2)} (White's view${at})`.replace('+0.00', '0.00');
}

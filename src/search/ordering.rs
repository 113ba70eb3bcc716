//! Move ordering: the hash move, then captures by what they win (and, among
//! the removal choices of one jump, by which enemy piece they take), then
//! killer moves, then quiet moves by history.

use crate::eval::RemovalValues;
use crate::rules::{Move, Player, Position, Rules};

const TT_MOVE: i32 = 1 << 30;
const CAPTURE: i32 = 1 << 26;
const PER_PIECE_TAKEN: i32 = 1 << 20;
const KILLER: i32 = 1 << 24;
/// History scores stay within ±HISTORY_MAX, below every killer.
const HISTORY_MAX: i32 = 1 << 20;
/// Cells a move can start from: the board (at most 64), plus one for placements.
const FROM_SLOTS: usize = 65;

/// Which ordering heuristics are on (each can be switched off to measure it).
#[derive(Clone, Copy, Debug)]
pub struct OrderingFeatures {
    pub killers: bool,
    pub history: bool,
    pub removal_order: bool,
}

/// Per-thread ordering memory: two killers per ply and a history table per
/// colour indexed by start cell (or "placement") and target cell.
pub struct Heuristics {
    killers: Vec<[Option<Move>; 2]>,
    history: Vec<i32>,
}

fn from_slot(mv: &Move) -> usize {
    if mv.is_placement() {
        64
    } else {
        usize::from(mv.from())
    }
}

fn history_index(side: Player, mv: &Move) -> usize {
    (side.index() * FROM_SLOTS + from_slot(mv)) * 64 + usize::from(mv.to())
}

impl Heuristics {
    pub fn new(max_ply: usize) -> Heuristics {
        Heuristics {
            killers: vec![[None; 2]; max_ply + 1],
            history: vec![0; 2 * FROM_SLOTS * 64],
        }
    }

    pub fn clear(&mut self) {
        self.killers.fill([None; 2]);
        self.history.fill(0);
    }

    /// A quiet move caused a cutoff at `ply` after `depth` plies of search.
    pub fn reward(&mut self, side: Player, ply: usize, mv: &Move, depth: i32, tried: &[Move]) {
        let k = &mut self.killers[ply];
        if k[0] != Some(*mv) {
            k[1] = k[0];
            k[0] = Some(*mv);
        }
        let bonus = (depth * depth).min(400);
        self.update(side, mv, bonus);
        for other in tried.iter().filter(|m| !m.is_capture() && *m != mv) {
            self.update(side, other, -bonus);
        }
    }

    /// Gravity update: scores drift towards ±HISTORY_MAX and never pass it.
    fn update(&mut self, side: Player, mv: &Move, bonus: i32) {
        let h = &mut self.history[history_index(side, mv)];
        // The gravity term overflows i32 once |h| * |bonus| passes 2^26
        // (from depth 9 on at a full table): release builds have always
        // wrapped there, and the tuned search and its `bench` signature
        // rest on that. Wrapping is kept explicit so debug builds do not
        // panic; computing it without overflow is a search change to be
        // measured by a match (docs/measurements/search-log.md).
        let gravity = (*h).wrapping_mul(bonus.abs()).wrapping_mul(32) / HISTORY_MAX;
        *h = h.wrapping_add(bonus * 32 - gravity);
        *h = (*h).clamp(-HISTORY_MAX, HISTORY_MAX);
    }

    pub fn is_killer(&self, ply: usize, mv: &Move) -> bool {
        self.killers[ply].contains(&Some(*mv))
    }
}

/// Fills `scores[i]` with the ordering score of `moves[i]`.
#[allow(clippy::too_many_arguments)]
pub fn score_moves(
    rules: &Rules,
    pos: &Position,
    moves: &[Move],
    scores: &mut Vec<i32>,
    tt_move: u32,
    ply: usize,
    heuristics: &Heuristics,
    features: OrderingFeatures,
) {
    scores.clear();
    let side = pos.side_to_move();
    let removal = (features.removal_order && moves.iter().any(Move::is_capture))
        .then(|| RemovalValues::new(rules, pos));
    for mv in moves {
        let s = if tt_move != 0 && mv.signature() == tt_move {
            TT_MOVE
        } else if mv.is_capture() {
            CAPTURE
                + PER_PIECE_TAKEN * mv.pieces_taken() as i32
                + removal.map_or(0, |r| r.score(mv.removed(), mv.hand_removed()))
        } else if features.killers && heuristics.is_killer(ply, mv) {
            KILLER
        } else if features.history {
            heuristics.history[history_index(side, mv)]
        } else {
            0
        };
        scores.push(s);
    }
}

/// Moves the best-scored move of `moves[i..]` to position `i` (selection
/// sort, one step at a time: most nodes cut off after a few moves).
#[inline]
pub fn pick_next(moves: &mut [Move], scores: &mut [i32], i: usize) {
    let mut best = i;
    for j in i + 1..moves.len() {
        if scores[j] > scores[best] {
            best = j;
        }
    }
    moves.swap(i, best);
    scores.swap(i, best);
}

/// Moves picked one at a time before the rest of a list is sorted at once:
/// a cut usually comes within the first few moves, and past them picking
/// each move by a scan of the rest costs the square of the list's length
/// (at a node that tries all 40 moves of a midgame, most of them).
pub const PICKS_BEFORE_SORT: usize = 3;

/// Puts `moves[from..]` in the order `pick_next` would have tried them
/// from `from` on, by score, the earlier of equal scores first.
pub fn sort_rest(
    moves: &mut [Move],
    scores: &mut [i32],
    from: usize,
    scratch: &mut Vec<(i32, Move)>,
) {
    scratch.clear();
    scratch.extend(
        scores[from..]
            .iter()
            .copied()
            .zip(moves[from..].iter().copied()),
    );
    scratch.sort_by_key(|&(score, _)| std::cmp::Reverse(score));
    for (i, &(score, mv)) in scratch.iter().enumerate() {
        scores[from + i] = score;
        moves[from + i] = mv;
    }
}

/// Whether an ordering score belongs to a move that should be searched at
/// full depth (hash move, winning captures, killers).
#[inline]
pub fn is_early(score: i32) -> bool {
    score >= KILLER
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rng::SplitMix64;

    /// Past the first picks the rest is sorted at once: the same moves
    /// in the same order as picking them one by one, when no two scores
    /// tie; among ties, the earlier move first.
    #[test]
    fn sorting_the_rest_tries_what_picking_would() {
        let mut rng = SplitMix64::new(3);
        let mut scratch = Vec::new();
        for len in [4, 9, 40, 64] {
            let moves: Vec<Move> = (0..len).map(|c| Move::place(c as u8)).collect();
            let distinct: Vec<i32> = (0..len).map(|i| (i as i32 * 7919) % 1009 - 500).collect();
            let (mut picked, mut picked_scores) = (moves.clone(), distinct.clone());
            for i in 0..len {
                pick_next(&mut picked, &mut picked_scores, i);
            }
            let (mut sorted, mut sorted_scores) = (moves.clone(), distinct.clone());
            for i in 0..PICKS_BEFORE_SORT {
                pick_next(&mut sorted, &mut sorted_scores, i);
            }
            sort_rest(
                &mut sorted,
                &mut sorted_scores,
                PICKS_BEFORE_SORT,
                &mut scratch,
            );
            assert_eq!(
                (&sorted, &sorted_scores),
                (&picked, &picked_scores),
                "{len} moves"
            );

            let ties: Vec<i32> = (0..len).map(|_| rng.below(3) as i32).collect();
            let (mut tied, mut tied_scores) = (moves.clone(), ties.clone());
            sort_rest(&mut tied, &mut tied_scores, 0, &mut scratch);
            for w in tied.iter().zip(&tied_scores).collect::<Vec<_>>().windows(2) {
                let ((a, sa), (b, sb)) = (w[0], w[1]);
                assert!(
                    sa > sb || (sa == sb && a.to() < b.to()),
                    "{len} moves: {tied_scores:?}"
                );
            }
        }
    }
}

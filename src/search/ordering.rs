//! Move ordering: the hash move, then captures by what they win (and, among
//! the removal choices of one jump, by which enemy piece they take), then
//! killer moves, then quiet moves by history.

use super::eval::RemovalValues;
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
        *h += bonus * 32 - *h * bonus.abs() * 32 / HISTORY_MAX;
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

/// Whether an ordering score belongs to a move that should be searched at
/// full depth (hash move, winning captures, killers).
#[inline]
pub fn is_early(score: i32) -> bool {
    score >= KILLER
}

//! Correction history: what the search has learnt about how far the static
//! evaluation is off, by what kind of position it is, added to every static
//! evaluation the search makes (Stockfish's correction histories).
//!
//! The evaluation errs the same way in positions that share a feature it
//! prices poorly: a material balance (pieces on the board and in hand, both
//! sides), or a formation of one side's pieces. Each node where the search
//! finds a quiet result that disagrees with the static evaluation moves the
//! entries of its material balance and of both sides' formations towards the
//! difference; later evaluations of positions that share one of them are
//! corrected by it. The tables belong to one search thread; between
//! searches the transposition table keeps them (`kept::Kept`), so what one move's
//! search learnt about the evaluation still holds for the next move of the
//! same game, and a new game starts them empty.

use crate::rules::Position;

/// Entries per table and side to move (a power of two).
const SIZE: usize = 4096;
/// An entry holds the correction in 1/GRAIN centipawns.
const GRAIN: i32 = 64;
/// The largest correction an entry may hold, in centipawns.
const MAX_CP: i32 = 200;
/// An update moves the correction (depth + 1)/256 of the way to what the
/// search found, at most `MAX_WEIGHT`/256, scaled by the search parameter
/// `correction_rate` (in 256ths).
const MAX_WEIGHT: i32 = 16;
/// The largest difference an update uses, in centipawns.
const MAX_DIFF: i32 = 400;

/// The three tables: the material balance, the side to move's formation,
/// the other side's formation; each indexed by side to move, then by hash.
#[derive(PartialEq, Eq, Debug)]
pub struct CorrectionHistory {
    tables: Box<[[[i16; SIZE]; 2]; 3]>,
}

impl Default for CorrectionHistory {
    fn default() -> Self {
        CorrectionHistory {
            tables: Box::new([[[0; SIZE]; 2]; 3]),
        }
    }
}

impl CorrectionHistory {
    /// The correction of `pos`'s static evaluation, in centipawns for the
    /// side to move.
    #[inline]
    pub fn correction(&self, pos: &Position) -> i32 {
        let side = pos.side_to_move().index();
        let sum: i32 = indices(pos)
            .iter()
            .zip(self.tables.iter())
            .map(|(&i, table)| i32::from(table[side][i]))
            .sum();
        sum / (3 * GRAIN)
    }

    /// The search of `pos` at `depth` found `best` where the corrected
    /// static evaluation said `eval`.
    #[inline]
    pub fn update(&mut self, pos: &Position, depth: i32, rate: i32, eval: i32, best: i32) {
        let side = pos.side_to_move().index();
        // `eval` is corrected already: each step takes a share of what is
        // still wrong, so the correction settles where the search agrees.
        let error = (best - eval).clamp(-MAX_DIFF, MAX_DIFF) * GRAIN;
        let step = error * (depth + 1).min(MAX_WEIGHT) * rate / (256 * 256);
        for (&i, table) in indices(pos).iter().zip(self.tables.iter_mut()) {
            let entry = &mut table[side][i];
            let new = i32::from(*entry) + step;
            *entry = new.clamp(-MAX_CP * GRAIN, MAX_CP * GRAIN) as i16;
        }
    }
}

/// The entries of `pos` in the three tables.
#[inline(always)]
fn indices(pos: &Position) -> [usize; 3] {
    let us = pos.side_to_move();
    let material = u64::from(pos.pieces(us).count())
        | u64::from(pos.pieces(!us).count()) << 8
        | u64::from(pos.hand(us)) << 16
        | u64::from(pos.hand(!us)) << 24;
    [
        slot(material),
        slot(pos.pieces(us).0 ^ 0x5bd1_e995),
        slot(pos.pieces(!us).0 ^ 0x2545_f491_4f6c_dd1d),
    ]
}

#[inline(always)]
fn slot(x: u64) -> usize {
    (x.wrapping_mul(0x9e37_79b9_7f4a_7c15) >> 52) as usize & (SIZE - 1)
}

#[cfg(test)]
mod tests {
    use super::*;
    use crate::rules::{Rules, Variant};
    use crate::search::kept::Kept;

    fn position(text: &str) -> Position {
        Rules::new(Variant::default())
            .unwrap()
            .parse_position(text)
            .unwrap()
    }

    #[test]
    fn an_empty_history_corrects_nothing() {
        let pos = position("W5/6/6/6/5B w 11 11 0 1");
        assert_eq!(CorrectionHistory::default().correction(&pos), 0);
    }

    #[test]
    fn updates_pull_the_correction_towards_what_the_search_found() {
        let pos = position("W5/6/6/6/5B w 11 11 0 1");
        let mut ch = CorrectionHistory::default();
        let mut last = 0;
        for _ in 0..100 {
            ch.update(&pos, 8, 256, ch.correction(&pos), 150);
            let now = ch.correction(&pos);
            assert!(now >= last, "{now} after {last}");
            last = now;
        }
        // Each update moves the entries 9/256 of the way to the difference
        // between the search and the corrected evaluation, so the
        // correction converges on the search's 150.
        assert!((140..=150).contains(&last), "{last}");
        // Black to move in the same position is another entry.
        let black = position("W5/6/6/6/5B b 11 11 0 1");
        assert_eq!(ch.correction(&black), 0);
    }

    #[test]
    fn a_position_sharing_one_feature_shares_a_third_of_the_correction() {
        let pos = position("W5/6/6/6/5B w 11 11 0 1");
        let mut ch = CorrectionHistory::default();
        for _ in 0..400 {
            ch.update(&pos, 15, 256, ch.correction(&pos), -90);
        }
        assert_eq!(ch.correction(&pos), -90);
        // The same material and White's pieces where they were: two of the
        // three entries; Black's piece moved: the third is another one.
        let moved = position("W5/6/6/6/4B1 w 11 11 0 1");
        assert_eq!(ch.correction(&moved), -60);
    }

    #[test]
    fn the_rate_scales_each_step() {
        let pos = position("W5/6/6/6/5B w 11 11 0 1");
        let step = |rate| {
            let mut ch = CorrectionHistory::default();
            ch.update(&pos, 15, rate, 0, 400);
            ch.correction(&pos)
        };
        // 16/256 of 400 cp is 25 cp; twice the rate, twice the step.
        assert_eq!(step(256), 25);
        assert_eq!(step(512), 50);
        assert_eq!(step(128), 12);
    }

    #[test]
    fn corrections_are_bounded() {
        let pos = position("W5/6/6/6/5B w 11 11 0 1");
        let mut ch = CorrectionHistory::default();
        for _ in 0..1000 {
            ch.update(&pos, 30, 256, 0, 30_000);
        }
        assert_eq!(ch.correction(&pos), MAX_CP);
    }

    #[test]
    fn kept_histories_come_back_to_their_thread_until_cleared() {
        let pos = position("W5/6/6/6/5B w 11 11 0 1");
        let mut kept: Kept<CorrectionHistory> = Kept::default();
        let mut ch = kept.take(1);
        ch.update(&pos, 15, 256, 0, 100);
        let learnt = ch.correction(&pos);
        assert!(learnt > 0);
        kept.keep(1, ch);
        assert_eq!(kept.take(0).correction(&pos), 0);
        let again = kept.take(1);
        assert_eq!(again.correction(&pos), learnt);
        kept.keep(1, again);
        kept.clear();
        assert_eq!(kept.take(1).correction(&pos), 0);
    }
}

//! Combinatorial indexing of the positions of one class: the mover's cells
//! ranked among all k-subsets of the board (colexicographic order, the
//! combinatorial number system), then the opponent's cells ranked among the
//! cells the mover leaves free. Every index names one position and back.

use super::class::Class;
use crate::rules::movegen::BINOMIAL;
use crate::rules::{Bitboard, Player, Position};

#[inline(always)]
fn binomial(n: u32, k: u32) -> u64 {
    BINOMIAL[n as usize][k as usize]
}

/// The rank of a set of cells among the sets of its size.
#[inline(always)]
fn rank(cells: Bitboard) -> u64 {
    let mut r = 0;
    for (i, cell) in cells.enumerate() {
        r += binomial(u32::from(cell), i as u32 + 1);
    }
    r
}

/// The rank of `cells` once the cells of `taken` are removed from the board
/// and the rest renumbered.
#[inline(always)]
fn rank_among_free(cells: Bitboard, taken: Bitboard) -> u64 {
    let mut r = 0;
    for (i, cell) in cells.enumerate() {
        let below = taken.0 & ((1u64 << cell) - 1);
        let free_index = u32::from(cell) - below.count_ones();
        r += binomial(free_index, i as u32 + 1);
    }
    r
}

/// The `k`-subset of rank `r` (inverse of `rank`).
fn unrank(mut r: u64, k: u32, n: u32) -> u64 {
    let mut bits = 0;
    let mut c = n;
    for i in (1..=k).rev() {
        c -= 1;
        while binomial(c, i) > r {
            c -= 1;
        }
        r -= binomial(c, i);
        bits |= 1 << c;
    }
    bits
}

/// Spreads the low bits of `compact` over the set bits of `mask`, in order.
fn deposit(mut compact: u64, mut mask: u64) -> u64 {
    let mut out = 0;
    while compact != 0 && mask != 0 {
        let low = mask & mask.wrapping_neg();
        if compact & 1 != 0 {
            out |= low;
        }
        compact >>= 1;
        mask ^= low;
    }
    out
}

/// The index of one class on one board.
#[derive(Clone, Copy, Debug)]
pub struct ClassIndex {
    pub class: Class,
    cells: u32,
    board: u64,
    /// Placements of the opponent's pieces for each placement of the mover's.
    inner: u64,
    size: u64,
}

impl ClassIndex {
    pub fn new(class: Class, cells: u8) -> ClassIndex {
        let cells = u32::from(cells);
        let inner = binomial(
            cells - u32::from(class.mover_board),
            class.opponent_board.into(),
        );
        ClassIndex {
            class,
            cells,
            board: if cells == 64 {
                u64::MAX
            } else {
                (1 << cells) - 1
            },
            inner,
            size: class.size(cells as u8),
        }
    }

    pub fn size(&self) -> u64 {
        self.size
    }

    /// The index of the position with these cells (of this class's counts).
    #[inline(always)]
    pub fn index(&self, mover: Bitboard, opponent: Bitboard) -> u64 {
        rank(mover) * self.inner + rank_among_free(opponent, mover)
    }

    /// The mover's and the opponent's cells of position `index`.
    pub fn cells(&self, index: u64) -> (Bitboard, Bitboard) {
        let mover = unrank(
            index / self.inner,
            self.class.mover_board.into(),
            self.cells,
        );
        let compact = unrank(
            index % self.inner,
            self.class.opponent_board.into(),
            self.cells - u32::from(self.class.mover_board),
        );
        (
            Bitboard(mover),
            Bitboard(deposit(compact, self.board & !mover)),
        )
    }
}

/// The next set of as many cells, in rank order (Gosper's hack); `bits`
/// must not be empty.
#[inline(always)]
fn next_set(bits: u64) -> u64 {
    let low = bits & bits.wrapping_neg();
    let ripple = bits + low;
    (((ripple ^ bits) >> 2) / low) | ripple
}

/// The positions of a class in index order from a given index: the next
/// one is a step of the combination, not a new unranking.
pub struct Walk<'a> {
    index: &'a ClassIndex,
    mover: u64,
    /// The opponent's cells among the free ones, as a compact set.
    compact: u64,
    free: [u8; 64],
}

impl<'a> Walk<'a> {
    fn free_cells(index: &ClassIndex, mover: u64) -> [u8; 64] {
        let mut free = [0u8; 64];
        for (n, cell) in Bitboard(index.board & !mover).enumerate() {
            free[n] = cell;
        }
        free
    }

    /// The current position's cells.
    #[inline(always)]
    pub fn cells(&self) -> (Bitboard, Bitboard) {
        let mut opponent = 0u64;
        for n in Bitboard(self.compact) {
            opponent |= 1 << self.free[n as usize];
        }
        (Bitboard(self.mover), Bitboard(opponent))
    }

    /// Moves to the next index (past the last one the walk is meaningless).
    #[inline(always)]
    pub fn advance(&mut self) {
        let free_count = self.index.cells - u32::from(self.index.class.mover_board);
        if self.compact != 0 {
            self.compact = next_set(self.compact);
            if free_count >= 64 || self.compact >> free_count == 0 {
                return;
            }
        }
        if self.mover != 0 {
            self.mover = next_set(self.mover);
        }
        self.free = Walk::free_cells(self.index, self.mover);
        self.compact = (1u64 << self.index.class.opponent_board) - 1;
    }
}

impl ClassIndex {
    /// A walk over the positions from `start` on.
    pub fn walk(&self, start: u64) -> Walk<'_> {
        let (mover, _) = self.cells(start);
        let compact = unrank(
            start % self.inner,
            self.class.opponent_board.into(),
            self.cells - u32::from(self.class.mover_board),
        );
        Walk {
            index: self,
            mover: mover.0,
            compact,
            free: Walk::free_cells(self, mover.0),
        }
    }
}

/// Builds the position of `class` with these cells, its mover as White.
#[inline(always)]
pub fn position(class: Class, mover: Bitboard, opponent: Bitboard) -> Position {
    Position::from_parts(
        [mover, opponent],
        [class.mover_hand, class.opponent_hand],
        Player::White,
        0,
        1,
    )
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn every_index_round_trips() {
        for class in [
            Class::new(2, 3, 0, 0),
            Class::new(0, 2, 1, 1),
            Class::new(3, 0, 0, 2),
        ] {
            let ix = ClassIndex::new(class, 9);
            let mut seen = std::collections::HashSet::new();
            for i in 0..ix.size() {
                let (m, o) = ix.cells(i);
                assert_eq!(m.count(), u32::from(class.mover_board));
                assert_eq!(o.count(), u32::from(class.opponent_board));
                assert!((m & o).is_empty() && (m | o).0 < 1 << 9);
                assert_eq!(ix.index(m, o), i);
                assert!(seen.insert((m, o)));
            }
        }
        for class in [
            Class::new(2, 3, 0, 0),
            Class::new(0, 2, 1, 1),
            Class::new(3, 0, 0, 2),
            Class::new(0, 0, 2, 2),
        ] {
            let ix = ClassIndex::new(class, 9);
            for start in [0, ix.size() / 3] {
                let mut walk = ix.walk(start);
                for i in start..ix.size() {
                    assert_eq!(walk.cells(), ix.cells(i), "{class} index {i}");
                    walk.advance();
                }
            }
        }
        let ix = ClassIndex::new(Class::new(3, 3, 0, 0), 30);
        assert_eq!(ix.size(), 11_875_500);
        assert_eq!(
            ix.index(ix.cells(ix.size() - 1).0, ix.cells(ix.size() - 1).1),
            ix.size() - 1
        );
    }
}

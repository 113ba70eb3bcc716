//! A set of board cells, one bit per cell (bit `rank * columns + file`).
//!
//! Boards are at most 8×8, so a `u64` holds any of them. The type is a thin
//! wrapper: every operation compiles to one or two machine instructions.

use std::ops::{BitAnd, BitAndAssign, BitOr, BitOrAssign, BitXor, BitXorAssign, Not};

#[derive(Clone, Copy, Default, PartialEq, Eq, Hash)]
pub struct Bitboard(pub u64);

impl Bitboard {
    pub const EMPTY: Bitboard = Bitboard(0);

    #[inline(always)]
    pub const fn from_cell(cell: u8) -> Bitboard {
        Bitboard(1 << cell)
    }

    #[inline(always)]
    pub const fn count(self) -> u32 {
        self.0.count_ones()
    }

    #[inline(always)]
    pub const fn is_empty(self) -> bool {
        self.0 == 0
    }

    #[inline(always)]
    pub const fn any(self) -> bool {
        self.0 != 0
    }

    #[inline(always)]
    pub const fn contains(self, cell: u8) -> bool {
        self.0 >> cell & 1 != 0
    }

    /// The lowest cell of the set; only meaningful on a non-empty set.
    #[inline(always)]
    pub const fn first(self) -> u8 {
        self.0.trailing_zeros() as u8
    }

    #[inline(always)]
    pub fn insert(&mut self, cell: u8) {
        self.0 |= 1 << cell;
    }

    #[inline(always)]
    pub fn remove(&mut self, cell: u8) {
        self.0 &= !(1 << cell);
    }

    #[inline(always)]
    pub const fn without(self, other: Bitboard) -> Bitboard {
        Bitboard(self.0 & !other.0)
    }
}

impl Iterator for Bitboard {
    type Item = u8;

    /// Yields cells in increasing index order, consuming the set.
    #[inline(always)]
    fn next(&mut self) -> Option<u8> {
        if self.0 == 0 {
            return None;
        }
        let cell = self.0.trailing_zeros() as u8;
        self.0 &= self.0 - 1;
        Some(cell)
    }

    fn size_hint(&self) -> (usize, Option<usize>) {
        let n = self.0.count_ones() as usize;
        (n, Some(n))
    }
}

impl ExactSizeIterator for Bitboard {}

impl std::fmt::Debug for Bitboard {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "Bitboard({:#x})", self.0)
    }
}

macro_rules! bit_op {
    ($trait:ident, $fn:ident, $assign_trait:ident, $assign_fn:ident, $op:tt) => {
        impl $trait for Bitboard {
            type Output = Bitboard;
            #[inline(always)]
            fn $fn(self, rhs: Bitboard) -> Bitboard {
                Bitboard(self.0 $op rhs.0)
            }
        }
        impl $assign_trait for Bitboard {
            #[inline(always)]
            fn $assign_fn(&mut self, rhs: Bitboard) {
                self.0 = self.0 $op rhs.0;
            }
        }
    };
}

bit_op!(BitAnd, bitand, BitAndAssign, bitand_assign, &);
bit_op!(BitOr, bitor, BitOrAssign, bitor_assign, |);
bit_op!(BitXor, bitxor, BitXorAssign, bitxor_assign, ^);

impl Not for Bitboard {
    type Output = Bitboard;
    /// The complement over all 64 bits: callers mask with the board.
    #[inline(always)]
    fn not(self) -> Bitboard {
        Bitboard(!self.0)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn iterates_cells_in_increasing_order() {
        let b = Bitboard(0b1010_0101);
        assert_eq!(b.collect::<Vec<_>>(), vec![0, 2, 5, 7]);
        assert_eq!(b.count(), 4);
        assert!(b.contains(5) && !b.contains(4));
    }
}

//! Board size, cell names and the four orthogonal directions.

use super::bitboard::Bitboard;
use std::fmt;

pub const MIN_SIZE: u8 = 3;
pub const MAX_SIZE: u8 = 8;
/// A cell index that names no cell (used for tables and placements).
pub const NO_CELL: u8 = u8::MAX;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Direction {
    North,
    East,
    South,
    West,
}

impl Direction {
    pub const ALL: [Direction; 4] = [
        Direction::North,
        Direction::East,
        Direction::South,
        Direction::West,
    ];

    #[inline(always)]
    pub const fn opposite(self) -> Direction {
        Direction::from_index(self as u32 + 2)
    }

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    #[inline(always)]
    pub const fn from_index(i: u32) -> Direction {
        Direction::ALL[(i & 3) as usize]
    }
}

/// An R×C board: which bits are cells and how cells neighbour each other.
/// Built once per variant; the shift helpers are the hot path of move
/// generation, so they use only masks and shifts, no table look-ups.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Geometry {
    rows: u8,
    cols: u8,
    board: Bitboard,
    not_first_file: Bitboard,
    not_last_file: Bitboard,
    /// `neighbour[cell][dir]`, or `NO_CELL` off the board.
    neighbour: Vec<[u8; 4]>,
}

impl Geometry {
    /// Panics on sizes outside `MIN_SIZE..=MAX_SIZE`; `Variant` validates first.
    pub fn new(rows: u8, cols: u8) -> Geometry {
        assert!((MIN_SIZE..=MAX_SIZE).contains(&rows) && (MIN_SIZE..=MAX_SIZE).contains(&cols));
        let cells = u32::from(rows) * u32::from(cols);
        let board = Bitboard(if cells == 64 {
            u64::MAX
        } else {
            (1u64 << cells) - 1
        });
        let mut first_file = Bitboard::EMPTY;
        for rank in 0..rows {
            first_file.insert(rank * cols);
        }
        let last_file = Bitboard(first_file.0 << (cols - 1));
        let mut geometry = Geometry {
            rows,
            cols,
            board,
            not_first_file: board.without(first_file),
            not_last_file: board.without(last_file),
            neighbour: Vec::new(),
        };
        geometry.neighbour = (0..geometry.cell_count())
            .map(|cell| {
                Direction::ALL.map(|dir| {
                    let moved = geometry.shift(Bitboard::from_cell(cell), dir);
                    if moved.any() { moved.first() } else { NO_CELL }
                })
            })
            .collect();
        geometry
    }

    pub const fn rows(&self) -> u8 {
        self.rows
    }

    pub const fn cols(&self) -> u8 {
        self.cols
    }

    pub const fn cell_count(&self) -> u8 {
        self.rows * self.cols
    }

    /// Every cell of the board.
    #[inline(always)]
    pub const fn board(&self) -> Bitboard {
        self.board
    }

    /// Every cell moved one step in `dir`; cells that would leave the board vanish.
    #[inline(always)]
    pub fn shift(&self, b: Bitboard, dir: Direction) -> Bitboard {
        match dir {
            Direction::North => Bitboard((b.0 << self.cols) & self.board.0),
            Direction::South => Bitboard(b.0 >> self.cols),
            Direction::East => Bitboard((b.0 & self.not_last_file.0) << 1),
            Direction::West => Bitboard((b.0 & self.not_first_file.0) >> 1),
        }
    }

    /// The cell one step from `cell` in `dir`, or `NO_CELL`.
    #[inline(always)]
    pub fn neighbour(&self, cell: u8, dir: Direction) -> u8 {
        self.neighbour[cell as usize][dir.index()]
    }

    pub fn cell(&self, file: u8, rank: u8) -> u8 {
        rank * self.cols + file
    }

    pub fn file_of(&self, cell: u8) -> u8 {
        cell % self.cols
    }

    pub fn rank_of(&self, cell: u8) -> u8 {
        cell / self.cols
    }

    /// Parses a cell name such as `c3` (file letter, then rank from 1).
    /// Boards have at most eight ranks, so a name is always two characters.
    pub fn parse_cell(&self, text: &str) -> Option<u8> {
        let &[file, rank] = text.as_bytes() else {
            return None;
        };
        let file = file.wrapping_sub(b'a');
        let rank = rank.wrapping_sub(b'1');
        (file < self.cols && rank < self.rows).then(|| self.cell(file, rank))
    }

    pub fn cell_name(&self, cell: u8) -> CellName {
        CellName {
            file: self.file_of(cell),
            rank: self.rank_of(cell),
        }
    }
}

/// A printable cell name (`c3`), made without allocating.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct CellName {
    file: u8,
    rank: u8,
}

impl fmt::Display for CellName {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "{}{}", (b'a' + self.file) as char, self.rank + 1)
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn shifts_stay_on_the_board() {
        let g = Geometry::new(5, 6);
        let f1 = Bitboard::from_cell(g.cell(5, 0));
        assert!(g.shift(f1, Direction::East).is_empty());
        assert_eq!(
            g.shift(f1, Direction::West),
            Bitboard::from_cell(g.cell(4, 0))
        );
        let a5 = Bitboard::from_cell(g.cell(0, 4));
        assert!(g.shift(a5, Direction::North).is_empty());
        assert!(g.shift(a5, Direction::West).is_empty());
        assert_eq!(
            g.shift(a5, Direction::South),
            Bitboard::from_cell(g.cell(0, 3))
        );
        assert!(g.shift(g.board(), Direction::North).count() == 24);
    }

    #[test]
    fn full_8x8_board_uses_all_bits() {
        let g = Geometry::new(8, 8);
        assert_eq!(g.board().0, u64::MAX);
        assert_eq!(g.shift(g.board(), Direction::North).count(), 56);
        assert_eq!(g.neighbour(63, Direction::North), NO_CELL);
        assert_eq!(g.neighbour(63, Direction::West), 62);
    }

    #[test]
    fn cell_names_round_trip() {
        let g = Geometry::new(5, 6);
        for cell in 0..g.cell_count() {
            let name = g.cell_name(cell).to_string();
            assert_eq!(g.parse_cell(&name), Some(cell), "{name}");
        }
        assert_eq!(g.cell_name(0).to_string(), "a1");
        assert_eq!(g.cell_name(29).to_string(), "f5");
        for bad in ["", "g1", "a0", "a6", "A1", "a", "1a", "a01x", "a+1"] {
            assert_eq!(g.parse_cell(bad), None, "{bad}");
        }
    }
}

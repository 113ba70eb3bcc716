//! The move type, move lists, and the text form of moves.
//!
//! Text: `@c3` places, `c3c4` steps, `c3c5` jumps, `c3c5e5` jumps twice;
//! removals follow as `x<cell>` (a board piece) or `x@` (a piece in hand),
//! board cells in increasing index order, then the `x@`s. A removal-only
//! move (`xd4`, `x@`) is the removals alone: the second half of a capture
//! played as two turns, legal only where removals are owed.
//!
//! A capture may also be given in parts (a front end that plays the jump
//! and each removal as turns of their own): its jump without the removals
//! it owes, then removal-only moves. Such a part is a move that leaves
//! removals owed (`owed_after`); move generation never makes one, only
//! `Rules::parse_move` reads one, so perft and the search see whole moves.

use super::bitboard::Bitboard;
use super::geometry::{Direction, Geometry, NO_CELL};
use std::fmt;

/// The most jumps one move can make: landing cells are distinct and share the
/// start cell's file and rank parity, so on an 8×8 board at most 15 of them.
pub const MAX_JUMPS: usize = 16;

/// One move, complete with the pieces it removes. Two legal moves of one
/// position are equal exactly when their texts are equal (removal order is
/// canonical by construction). The text does not show `owed_after`: in a
/// given position a jump written without removals is either the whole move
/// (nothing to remove) or the part of a capture that owes them, never both.
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Move {
    /// Enemy pieces jumped over (removed by the jumps themselves).
    captured: Bitboard,
    /// Extra enemy pieces removed from the board after the jumps.
    removed: Bitboard,
    /// The small fields in one word, so that generation writes a move with
    /// two stores, not six: the direction of jump i in bits 2i..2i+2 of
    /// the low 32 bits, then the start cell, the target cell, the number of
    /// jumps (low four bits) with the removals still owed after a part of
    /// a capture (high four bits), and the extra enemy pieces removed from
    /// the hand, a byte each. A move jumps at most 15 times and so owes
    /// and takes at most 15 removals: four bits hold either count.
    code: u64,
}

const FROM_SHIFT: u32 = 32;
const TO_SHIFT: u32 = 40;
const JUMPS_SHIFT: u32 = 48;
const OWED_AFTER_SHIFT: u32 = 52;
const HAND_SHIFT: u32 = 56;

impl Move {
    #[inline(always)]
    const fn new(captured: Bitboard, from: u8, to: u8, path: u32, jumps: u8) -> Move {
        Move {
            captured,
            removed: Bitboard::EMPTY,
            code: path as u64
                | (from as u64) << FROM_SHIFT
                | (to as u64) << TO_SHIFT
                | (jumps as u64) << JUMPS_SHIFT,
        }
    }

    #[inline(always)]
    pub const fn place(to: u8) -> Move {
        Move::new(Bitboard::EMPTY, NO_CELL, to, 0, 0)
    }

    #[inline(always)]
    pub const fn step(from: u8, to: u8) -> Move {
        Move::new(Bitboard::EMPTY, from, to, 0, 0)
    }

    /// A jump chain without its removals; `path` holds `jumps` directions.
    #[inline(always)]
    pub(crate) const fn jump(from: u8, to: u8, path: u32, jumps: u8, captured: Bitboard) -> Move {
        Move::new(captured, from, to, path, jumps)
    }

    /// The removals of a jump already made, without the jump; no start or
    /// target cell. Removals are added by `with_removals`.
    #[inline(always)]
    pub(crate) const fn removal_only() -> Move {
        Move::new(Bitboard::EMPTY, NO_CELL, NO_CELL, 0, 0)
    }

    #[inline(always)]
    pub(crate) const fn with_removals(self, removed: Bitboard, hand_removed: u8) -> Move {
        Move {
            removed,
            code: self.code & !(0xff << HAND_SHIFT) | (hand_removed as u64) << HAND_SHIFT,
            ..self
        }
    }

    /// This move as the part of a capture that leaves `owed` (1 to 15)
    /// removals still to make: its jump without (all) its removals, or
    /// some of the removals owed.
    #[inline(always)]
    pub(crate) const fn leaving_owed(self, owed: u32) -> Move {
        Move {
            code: self.code & !(0xf << OWED_AFTER_SHIFT)
                | ((owed & 0xf) as u64) << OWED_AFTER_SHIFT,
            ..self
        }
    }

    #[inline(always)]
    const fn path(&self) -> u32 {
        self.code as u32
    }

    #[inline(always)]
    const fn jumps(&self) -> u8 {
        (self.code >> JUMPS_SHIFT) as u8 & 0xf
    }

    /// The removals the mover still owes after this move: 0 for a whole
    /// move (every move generation makes), k ≥ 1 for a part of a capture
    /// (a jump given without its removals, or only some of the removals
    /// owed), after which the same side moves again with a removal-only
    /// move.
    #[inline(always)]
    pub const fn owed_after(&self) -> u32 {
        ((self.code >> OWED_AFTER_SHIFT) & 0xf) as u32
    }

    #[inline(always)]
    const fn hand_removed_u8(&self) -> u8 {
        (self.code >> HAND_SHIFT) as u8
    }

    #[inline(always)]
    pub const fn is_placement(&self) -> bool {
        self.from() == NO_CELL && self.to() != NO_CELL
    }

    /// No start cell: a placement or a removal-only move. One comparison,
    /// for the hot paths that never see removal-only moves (they occur only
    /// where removals are owed, which those paths check first).
    #[inline(always)]
    pub(crate) const fn starts_off_board(&self) -> bool {
        self.from() == NO_CELL
    }

    /// Jumped at least one enemy piece (`is_capture` without the
    /// removal-only moves that finish a capture).
    #[inline(always)]
    pub(crate) const fn jumped_enemy(&self) -> bool {
        self.captured.0 != 0
    }

    /// Only removals (`xd4`): the end of a capture whose jump was played
    /// on its own.
    #[inline(always)]
    pub const fn is_removal_only(&self) -> bool {
        self.to() == NO_CELL
    }

    #[inline(always)]
    pub const fn is_jump(&self) -> bool {
        self.jumps() > 0
    }

    /// Jumped at least one enemy piece, or finishes such a jump (a
    /// removal-only move): what MandatoryCapture, BonusTurn and the
    /// no-capture counter mean by a capture.
    #[inline(always)]
    pub const fn is_capture(&self) -> bool {
        self.jumped_enemy() || self.is_removal_only()
    }

    /// Start cell; `NO_CELL` for a placement or a removal-only move.
    #[inline(always)]
    pub const fn from(&self) -> u8 {
        (self.code >> FROM_SHIFT) as u8
    }

    /// The start cell as a set: empty for a placement or a removal-only
    /// move (no branch: `apply` runs this at every node).
    #[inline(always)]
    pub(crate) const fn start_bit(&self) -> Bitboard {
        match 1u64.checked_shl(self.from() as u32) {
            Some(bit) => Bitboard(bit),
            None => Bitboard::EMPTY,
        }
    }

    /// Target of a placement or step, final landing cell of a jump;
    /// `NO_CELL` for a removal-only move.
    #[inline(always)]
    pub const fn to(&self) -> u8 {
        (self.code >> TO_SHIFT) as u8
    }

    pub const fn jump_count(&self) -> u32 {
        self.jumps() as u32
    }

    pub const fn captured(&self) -> Bitboard {
        self.captured
    }

    pub const fn removed(&self) -> Bitboard {
        self.removed
    }

    pub const fn hand_removed(&self) -> u32 {
        self.hand_removed_u8() as u32
    }

    /// Every enemy piece the move takes: jumped, removed from the board, and
    /// removed from the hand.
    pub const fn pieces_taken(&self) -> u32 {
        self.captured.count() + self.removed.count() + self.hand_removed()
    }

    /// Direction of the `i`th jump.
    pub fn jump_direction(&self, i: usize) -> Direction {
        Direction::from_index(self.path() >> (2 * i))
    }

    /// The cells the piece lands on, in order (empty for placements and steps).
    pub fn landings<'g>(&self, geometry: &'g Geometry) -> impl Iterator<Item = u8> + 'g {
        let (mut cell, path, jumps) = (self.from(), self.path(), self.jumps() as usize);
        (0..jumps).map(move |i| {
            let dir = Direction::from_index(path >> (2 * i));
            cell = geometry.neighbour(geometry.neighbour(cell, dir), dir);
            cell
        })
    }

    /// A 32-bit digest, never 0, for storing a move in a hash table and
    /// recognising it among the legal moves later.
    pub fn signature(&self) -> u32 {
        let a = self.captured.0
            ^ self.removed.0.rotate_left(17)
            ^ u64::from(self.path()).rotate_left(40);
        let b = u64::from(self.from())
            | u64::from(self.to()) << 8
            | (self.code >> JUMPS_SHIFT & 0xff) << 16
            | u64::from(self.hand_removed_u8()) << 24;
        let h = (a ^ b.wrapping_mul(0x9e37_79b9_7f4a_7c15)).wrapping_mul(0xff51_afd7_ed55_8ccd);
        ((h >> 32) as u32).max(1)
    }

    /// The move's text on a board of this geometry.
    pub fn text<'g>(&self, geometry: &'g Geometry) -> MoveText<'g> {
        MoveText {
            mv: *self,
            geometry,
        }
    }
}

impl fmt::Debug for Move {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Move")
            .field("from", &self.from())
            .field("to", &self.to())
            .field("jumps", &self.jumps())
            .field("path", &self.path())
            .field("captured", &self.captured)
            .field("removed", &self.removed)
            .field("hand_removed", &self.hand_removed())
            .field("owed_after", &self.owed_after())
            .finish()
    }
}

/// Displays a move in the project's notation.
pub struct MoveText<'g> {
    mv: Move,
    geometry: &'g Geometry,
}

impl fmt::Display for MoveText<'_> {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let (mv, g) = (&self.mv, self.geometry);
        if mv.is_placement() {
            return write!(f, "@{}", g.cell_name(mv.to()));
        }
        if !mv.is_removal_only() {
            write!(f, "{}", g.cell_name(mv.from()))?;
            if mv.jumps() == 0 {
                write!(f, "{}", g.cell_name(mv.to()))?;
            }
            for cell in mv.landings(g) {
                write!(f, "{}", g.cell_name(cell))?;
            }
        }
        for cell in mv.removed {
            write!(f, "x{}", g.cell_name(cell))?;
        }
        for _ in 0..mv.hand_removed() {
            f.write_str("x@")?;
        }
        Ok(())
    }
}

/// The most moves any list holds. Ordinary positions have a few hundred
/// legal moves at most, but with MultiJump on a large board every jump
/// chain can be combined with every choice of removals, and a legal
/// position may have 10^12 moves: no input may make the engine allocate
/// without bound, so generation stops at a list's limit and the list
/// records that moves were left out (`is_truncated`).
pub const MAX_MOVES: usize = 1 << 16;

/// A reusable list of moves. Search and perft keep one per ply, so after the
/// first few nodes generation allocates nothing.
#[derive(Clone)]
pub struct MoveList {
    /// Every slot ever filled, kept (initialised) when the list is cleared:
    /// the first `len` are the list. Generation writes a batch of moves
    /// into slots with one length update, where `Vec::push` would check the
    /// capacity and store the length once per move.
    slots: Vec<Move>,
    len: usize,
    limit: usize,
    truncated: bool,
}

/// An empty list that has not allocated: the search swaps its per-ply
/// lists out with `std::mem::take`, which must cost nothing per node (an
/// allocating default cost the search about 8 % of its time in malloc and
/// free).
impl Default for MoveList {
    fn default() -> MoveList {
        MoveList {
            slots: Vec::new(),
            len: 0,
            limit: MAX_MOVES,
            truncated: false,
        }
    }
}

impl fmt::Debug for MoveList {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("MoveList")
            .field("moves", &self.as_slice())
            .field("limit", &self.limit)
            .field("truncated", &self.truncated)
            .finish()
    }
}

impl MoveList {
    /// A list that holds up to `MAX_MOVES` moves.
    pub fn new() -> MoveList {
        MoveList::with_limit(MAX_MOVES)
    }

    /// A list that holds up to `limit` moves (at least 1, at most
    /// `MAX_MOVES`); generation into it stops there.
    pub fn with_limit(limit: usize) -> MoveList {
        MoveList {
            slots: Vec::with_capacity(256),
            len: 0,
            limit: limit.clamp(1, MAX_MOVES),
            truncated: false,
        }
    }

    /// Adds a move, or when the list is full records that one was left out.
    #[inline(always)]
    pub fn push(&mut self, mv: Move) {
        if self.len >= self.limit {
            self.truncated = true;
        } else if self.len < self.slots.len() {
            self.slots[self.len] = mv;
            self.len += 1;
        } else {
            self.slots.push(mv);
            self.len += 1;
        }
    }

    /// Adds every move of `moves`, for which the caller made room
    /// (`has_room`): generation checks the limit once per batch of moves,
    /// not once per move.
    #[inline(always)]
    pub(crate) fn push_batch(&mut self, moves: impl ExactSizeIterator<Item = Move>) {
        let end = self.len + moves.len();
        debug_assert!(end <= self.limit);
        if self.slots.len() < end {
            self.slots.resize(end, Move::removal_only());
        }
        for (slot, mv) in self.slots[self.len..end].iter_mut().zip(moves) {
            *slot = mv;
        }
        self.len = end;
    }

    /// Whether `n` more moves fit.
    #[inline(always)]
    pub(crate) fn has_room(&self, n: u64) -> bool {
        n <= (self.limit - self.len) as u64
    }

    pub fn clear(&mut self) {
        self.len = 0;
        self.truncated = false;
    }

    pub fn len(&self) -> usize {
        self.len
    }

    pub fn is_empty(&self) -> bool {
        self.len == 0
    }

    pub fn limit(&self) -> usize {
        self.limit
    }

    #[inline(always)]
    pub fn is_full(&self) -> bool {
        self.len >= self.limit
    }

    /// Some legal moves did not fit: the list is a prefix of them.
    pub fn is_truncated(&self) -> bool {
        self.truncated
    }

    /// Records that generation stopped with moves left over.
    pub(crate) fn mark_truncated(&mut self) {
        self.truncated = true;
    }

    #[inline(always)]
    pub fn as_slice(&self) -> &[Move] {
        &self.slots[..self.len]
    }

    #[inline(always)]
    pub fn as_mut_slice(&mut self) -> &mut [Move] {
        &mut self.slots[..self.len]
    }

    #[inline(always)]
    pub fn iter(&self) -> std::slice::Iter<'_, Move> {
        self.as_slice().iter()
    }

    pub fn contains(&self, mv: &Move) -> bool {
        self.as_slice().contains(mv)
    }
}

impl<'a> IntoIterator for &'a MoveList {
    type Item = &'a Move;
    type IntoIter = std::slice::Iter<'a, Move>;
    fn into_iter(self) -> Self::IntoIter {
        self.iter()
    }
}

/// A move text taken apart, before it is checked against a position.
#[derive(Clone, Debug, PartialEq, Eq)]
pub(crate) struct MoveSyntax {
    pub placement: bool,
    /// The cells of the text in order (one for a placement, none for a
    /// removal-only move).
    pub cells: Vec<u8>,
    pub removed: Bitboard,
    pub hand_removed: u32,
}

/// Why a move text was not accepted.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum MoveError {
    Empty,
    /// Not a cell of this board (`z9`, `c`, or a cell past the edge).
    BadCell {
        text: String,
        cell: String,
    },
    /// The text's shape is wrong (a cell missing, stray characters, …).
    Malformed {
        text: String,
        reason: &'static str,
    },
    /// Well formed, but not a legal move here.
    Illegal {
        text: String,
        reason: String,
    },
}

impl fmt::Display for MoveError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            MoveError::Empty => f.write_str("empty move"),
            MoveError::BadCell { text, cell } => {
                write!(f, "move '{text}': '{cell}' is not a cell of this board")
            }
            MoveError::Malformed { text, reason } => {
                write!(f, "move '{text}' is malformed: {reason}")
            }
            MoveError::Illegal { text, reason } => write!(f, "move '{text}' is illegal: {reason}"),
        }
    }
}

impl std::error::Error for MoveError {}

impl MoveSyntax {
    pub(crate) fn parse(text: &str, geometry: &Geometry) -> Result<MoveSyntax, MoveError> {
        if text.is_empty() {
            return Err(MoveError::Empty);
        }
        let malformed = |reason| MoveError::Malformed {
            text: text.to_string(),
            reason,
        };
        let cell = |name: &str| {
            geometry.parse_cell(name).ok_or_else(|| MoveError::BadCell {
                text: text.to_string(),
                cell: name.to_string(),
            })
        };
        let (path, removals) = match text.find('x') {
            Some(i) => (&text[..i], &text[i..]),
            None => (text, ""),
        };
        let placement = path.starts_with('@');
        let path = path.strip_prefix('@').unwrap_or(path);
        let cells = if path.is_empty() && !placement {
            // A removal-only move: `xd4`, `x@`.
            Vec::new()
        } else {
            split_cells(path).ok_or_else(|| malformed("expected cells such as c3"))?
        };
        let cells = cells.into_iter().map(cell).collect::<Result<Vec<_>, _>>()?;
        match (placement, cells.len()) {
            (false, 0) => {}
            (true, 1) | (false, 2..) => {}
            (true, _) => return Err(malformed("a placement names exactly one cell")),
            (false, _) => return Err(malformed("a move names at least two cells")),
        }
        let mut syntax = MoveSyntax {
            placement,
            cells,
            removed: Bitboard::EMPTY,
            hand_removed: 0,
        };
        for item in removals.split('x').skip(1) {
            if item == "@" {
                syntax.hand_removed += 1;
            } else if item.is_empty() {
                return Err(malformed("'x' must be followed by a cell or '@'"));
            } else {
                let c = cell(item)?;
                if syntax.removed.contains(c) {
                    return Err(malformed("the same cell is removed twice"));
                }
                syntax.removed.insert(c);
            }
        }
        if syntax.is_removal_only() && syntax.removed.is_empty() && syntax.hand_removed == 0 {
            return Err(malformed("'x' must be followed by a cell or '@'"));
        }
        Ok(syntax)
    }

    pub(crate) fn is_removal_only(&self) -> bool {
        self.cells.is_empty()
    }
}

/// Splits `c3c5e5` into `["c3", "c5", "e5"]`: a cell is a letter followed by
/// digits. Returns None on any other shape.
fn split_cells(text: &str) -> Option<Vec<&str>> {
    let bytes = text.as_bytes();
    let mut cells = Vec::new();
    let mut start = 0;
    while start < bytes.len() {
        if !bytes[start].is_ascii_alphabetic() {
            return None;
        }
        let mut end = start + 1;
        while end < bytes.len() && bytes[end].is_ascii_digit() {
            end += 1;
        }
        if end == start + 1 {
            return None;
        }
        cells.push(&text[start..end]);
        start = end;
    }
    (!cells.is_empty()).then_some(cells)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn prints_every_kind_of_move() {
        let g = Geometry::new(5, 6);
        let c3 = g.parse_cell("c3").unwrap();
        assert_eq!(Move::place(c3).text(&g).to_string(), "@c3");
        assert_eq!(
            Move::step(c3, g.parse_cell("c4").unwrap())
                .text(&g)
                .to_string(),
            "c3c4"
        );
        let d4 = g.parse_cell("d4").unwrap();
        let a1 = g.parse_cell("a1").unwrap();
        // c3 -> c5 (north) -> e5 (east), two removals from the board and one from the hand.
        let path = Direction::North as u32 | (Direction::East as u32) << 2;
        let mv = Move::jump(c3, g.parse_cell("e5").unwrap(), path, 2, Bitboard::EMPTY)
            .with_removals(Bitboard::from_cell(d4) | Bitboard::from_cell(a1), 1);
        assert_eq!(mv.text(&g).to_string(), "c3c5e5xa1xd4x@");
        let finish = Move::removal_only().with_removals(Bitboard::from_cell(d4), 1);
        assert_eq!(finish.text(&g).to_string(), "xd4x@");
        assert!(finish.is_removal_only() && finish.is_capture() && !finish.is_placement());
        assert!(!mv.is_removal_only() && Move::place(c3).is_placement());
    }

    #[test]
    fn parses_removal_only_syntax() {
        let g = Geometry::new(5, 6);
        let s = MoveSyntax::parse("x@xd4", &g).unwrap();
        assert!(s.is_removal_only() && !s.placement);
        assert_eq!((s.removed.count(), s.hand_removed), (1, 1));
        for bad in ["x", "xx", "x@x", "@x@", "@xd4", "xd4xd4", "xd9"] {
            assert!(MoveSyntax::parse(bad, &g).is_err(), "{bad}");
        }
    }

    #[test]
    fn parses_syntax_and_rejects_bad_shapes() {
        let g = Geometry::new(5, 6);
        let s = MoveSyntax::parse("c3c5e5xd4x@xa1", &g).unwrap();
        assert_eq!(s.cells.len(), 3);
        assert_eq!(s.removed.count(), 2);
        assert_eq!(s.hand_removed, 1);
        assert!(MoveSyntax::parse("@c3", &g).unwrap().placement);
        for bad in [
            "",
            "@",
            "@c3c4",
            "c3",
            "c3c",
            "3c3c",
            "c3c4x",
            "c3c4xx@",
            "c3c4xa1xa1",
            "c3-c4",
            "@c3 ",
        ] {
            assert!(MoveSyntax::parse(bad, &g).is_err(), "{bad}");
        }
        assert!(matches!(
            MoveSyntax::parse("c3g4", &g),
            Err(MoveError::BadCell { .. })
        ));
        assert!(matches!(
            MoveSyntax::parse("c3c9", &g),
            Err(MoveError::BadCell { .. })
        ));
    }
}

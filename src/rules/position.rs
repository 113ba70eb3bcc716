//! A game state: pieces on the board, pieces in hand, side to move, counters.

use super::bitboard::Bitboard;
use super::moves::Move;
use super::variant::Variant;
use std::fmt;
use std::ops::Not;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Player {
    /// Player 1, who moves first.
    White,
    Black,
}

impl Player {
    pub const BOTH: [Player; 2] = [Player::White, Player::Black];

    #[inline(always)]
    pub const fn index(self) -> usize {
        self as usize
    }

    pub const fn letter(self) -> char {
        match self {
            Player::White => 'w',
            Player::Black => 'b',
        }
    }
}

impl Not for Player {
    type Output = Player;
    #[inline(always)]
    fn not(self) -> Player {
        match self {
            Player::White => Player::Black,
            Player::Black => Player::White,
        }
    }
}

impl fmt::Display for Player {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            Player::White => "white",
            Player::Black => "black",
        })
    }
}

/// A position of some variant. It holds no reference to its `Rules`: the
/// rules that made it (by `Rules::start_position` or `Rules::parse_position`)
/// are the ones to pass back in. Fields are private so that every position in
/// existence has passed those checks; `apply` keeps them true for legal moves.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct Position {
    pieces: [Bitboard; 2],
    hand: [u8; 2],
    side: Player,
    plies_since_capture: u32,
    move_number: u32,
    /// Extra removals the side to move still owes for the jump it has just
    /// made, when a front end plays a capture as two turns; 0 otherwise.
    owed: u8,
}

impl Position {
    pub(crate) fn from_parts(
        pieces: [Bitboard; 2],
        hand: [u8; 2],
        side: Player,
        plies_since_capture: u32,
        move_number: u32,
    ) -> Position {
        Position {
            pieces,
            hand,
            side,
            plies_since_capture,
            move_number,
            owed: 0,
        }
    }

    /// The same position in the middle of a capture: the side to move has
    /// jumped and still owes `owed` removals (checked by the parser).
    pub(crate) fn with_owed_removals(self, owed: u8) -> Position {
        Position { owed, ..self }
    }

    pub(crate) fn start(variant: &Variant) -> Position {
        Position::from_parts(
            [Bitboard::EMPTY; 2],
            [variant.pieces; 2],
            Player::White,
            0,
            1,
        )
    }

    #[inline(always)]
    pub fn side_to_move(&self) -> Player {
        self.side
    }

    #[inline(always)]
    pub fn pieces(&self, player: Player) -> Bitboard {
        self.pieces[player.index()]
    }

    #[inline(always)]
    pub fn hand(&self, player: Player) -> u32 {
        u32::from(self.hand[player.index()])
    }

    /// Pieces on the board and in hand: what the win conditions count.
    #[inline(always)]
    pub fn total(&self, player: Player) -> u32 {
        self.pieces(player).count() + self.hand(player)
    }

    #[inline(always)]
    pub fn occupied(&self) -> Bitboard {
        self.pieces[0] | self.pieces[1]
    }

    pub fn plies_since_capture(&self) -> u32 {
        self.plies_since_capture
    }

    /// Starts at 1 and goes up after every Black move.
    pub fn move_number(&self) -> u32 {
        self.move_number
    }

    /// The removals the side to move owes for a jump already made (a capture
    /// played as two turns): while it is not 0, the only legal moves are
    /// removal-only moves (`xd4`, `x@`).
    #[inline(always)]
    pub fn owed_removals(&self) -> u32 {
        u32::from(self.owed)
    }

    /// A 64-bit hash of what makes positions the same for repetition:
    /// board, hands, side to move and owed removals (not the counters).
    /// Computed from scratch by mixing, so it needs no tables and no
    /// incremental upkeep.
    #[inline]
    pub fn key(&self) -> u64 {
        let extra = u64::from(self.hand[0])
            | u64::from(self.hand[1]) << 8
            | (self.side as u64) << 16
            | u64::from(self.owed) << 24;
        let h = mix(self.pieces[0].0 ^ 0x9e37_79b9_7f4a_7c15);
        let h = mix(h ^ self.pieces[1].0);
        mix(h ^ extra)
    }

    /// Plays a move produced by move generation for this position (or parsed
    /// against it). `bonus_turn` is the variant's rule: a capture then keeps
    /// the same side on move. A removal-only move (the only kind legal while
    /// removals are owed) ends the capture as the jump's removals would have:
    /// the turn passes, or stays with BonusTurn.
    #[inline(always)]
    pub fn apply(&mut self, mv: &Move, bonus_turn: bool) {
        *self = self.after(mv, bonus_turn);
    }

    /// `apply` to a copy: the position after `mv`.
    #[inline(always)]
    pub fn after(&self, mv: &Move, bonus_turn: bool) -> Position {
        // Built as a new value from the old fields, the two sides taken out
        // as mover and other and put back by selects: updating a copy in
        // place, indexed by the side, kept it in memory and updated each
        // field there just after the copy's wide store (a stall on every
        // field), which made `apply` most of the cost of a perft leaf.
        let white = self.side == Player::White;
        let [a, b] = self.pieces;
        let [ha, hb] = self.hand;
        let (mut own, mut other) = if white { (a, b) } else { (b, a) };
        let (mut own_hand, mut other_hand) = if white { (ha, hb) } else { (hb, ha) };
        let capture = if self.owed != 0 {
            true
        } else {
            // A placement has no start cell: nothing leaves, a hand piece arrives.
            own ^= mv.from_bit() | Bitboard::from_cell(mv.to());
            own_hand -= u8::from(mv.starts_off_board());
            mv.jumped_enemy()
        };
        other = other.without(mv.captured() | mv.removed());
        other_hand -= mv.hand_removed() as u8;
        let side = if capture && bonus_turn {
            self.side
        } else {
            !self.side
        };
        Position {
            pieces: if white { [own, other] } else { [other, own] },
            hand: if white {
                [own_hand, other_hand]
            } else {
                [other_hand, own_hand]
            },
            side,
            plies_since_capture: if capture {
                0
            } else {
                self.plies_since_capture.saturating_add(1)
            },
            move_number: self.move_number.saturating_add(u32::from(!white)),
            owed: 0,
        }
    }
}

impl Position {
    /// Plays only the jump of a capture (`mv`, legal here), leaving the same
    /// side on move owing `owed` removals: the first of a capture's two
    /// turns. The jumped pieces leave and the no-capture counter resets now;
    /// the move number and the turn change with the removals.
    pub(crate) fn apply_jump_owing(&mut self, mv: &Move, owed: u8) {
        let us = self.side.index();
        self.pieces[us] ^= Bitboard::from_cell(mv.from()) | Bitboard::from_cell(mv.to());
        self.pieces[1 - us] = self.pieces[1 - us].without(mv.captured());
        self.plies_since_capture = 0;
        self.owed = owed;
    }
}

/// The 64-bit finaliser of MurmurHash3: every input bit affects every output bit.
#[inline(always)]
fn mix(mut x: u64) -> u64 {
    x ^= x >> 33;
    x = x.wrapping_mul(0xff51_afd7_ed55_8ccd);
    x ^= x >> 33;
    x = x.wrapping_mul(0xc4ce_b9fe_1a85_ec53);
    x ^ (x >> 33)
}

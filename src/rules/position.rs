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
///
/// ```
/// use yote::rules::{Player, Rules};
///
/// let rules = Rules::standard();
/// // Ranks top first; White on c3, Black on c2; one and two pieces in hand.
/// let pos = rules.parse_position("6/6/2W3/2B3/6 w 1 2").unwrap();
/// assert_eq!(pos.side_to_move(), Player::White);
/// assert_eq!(pos.pieces(Player::White).count(), 1);
/// assert_eq!(pos.hand(Player::Black), 2);
/// // Printed with the counters: plies since a capture, the move number.
/// assert_eq!(rules.position_text(&pos), "6/6/2W3/2B3/6 w 1 2 0 1");
///
/// // A text that does not fit the rules is refused, not half-built.
/// assert!(rules.parse_position("6/6/6/6 w 12 12").is_err()); // four ranks
/// assert!(rules.parse_position("6/6/6/6/6 w 13 12").is_err()); // 13 in hand
/// ```
#[derive(Clone, Copy, PartialEq, Eq, Hash)]
pub struct Position {
    pieces: [Bitboard; 2],
    plies_since_capture: u32,
    move_number: u32,
    /// White's and Black's pieces in hand, the side to move (0 White,
    /// 1 Black) and the removals owed, a byte each from the lowest: one
    /// word that `apply` updates with a few shifts and stores once, and
    /// that `key` hashes as it is.
    state: u32,
}

const SIDE_SHIFT: u32 = 16;
const OWED_SHIFT: u32 = 24;

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
            plies_since_capture,
            move_number,
            state: u32::from(hand[0])
                | u32::from(hand[1]) << 8
                | (side.index() as u32) << SIDE_SHIFT,
        }
    }

    /// The same position in the middle of a capture: the side to move has
    /// jumped and still owes `owed` removals (checked by the parser).
    pub(crate) fn with_owed_removals(self, owed: u8) -> Position {
        Position {
            state: self.state & !(0xff << OWED_SHIFT) | u32::from(owed) << OWED_SHIFT,
            ..self
        }
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
        match (self.state >> SIDE_SHIFT) & 1 {
            0 => Player::White,
            _ => Player::Black,
        }
    }

    #[inline(always)]
    pub fn pieces(&self, player: Player) -> Bitboard {
        self.pieces[player.index()]
    }

    #[inline(always)]
    pub fn hand(&self, player: Player) -> u32 {
        (self.state >> (8 * player.index())) & 0xff
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
        self.state >> OWED_SHIFT
    }

    /// A 64-bit hash of what makes positions the same for repetition:
    /// board, hands, side to move and owed removals (not the counters).
    /// Computed from scratch by mixing, so it needs no tables and no
    /// incremental upkeep.
    #[inline]
    pub fn key(&self) -> u64 {
        let h = mix(self.pieces[0].0 ^ 0x9e37_79b9_7f4a_7c15);
        let h = mix(h ^ self.pieces[1].0);
        mix(h ^ u64::from(self.state))
    }

    /// Plays a move produced by move generation for this position (or parsed
    /// against it). `bonus_turn` is the variant's rule: a capture then keeps
    /// the same side on move. A removal-only move (the only kind legal while
    /// removals are owed) ends the capture as the jump's removals would have:
    /// the turn passes, or stays with BonusTurn. A part of a capture that
    /// leaves removals owed (`Move::owed_after`: its jump alone, or some of
    /// the removals) is played too, by `after_capture_part`.
    #[inline(always)]
    pub fn apply(&mut self, mv: &Move, bonus_turn: bool) {
        *self = match mv.owed_after() {
            0 => self.after(mv, bonus_turn),
            _ => self.after_capture_part(mv),
        };
    }

    /// `apply` to a copy for a whole move (every move generation makes):
    /// the position after `mv`. Not for a part of a capture, which only
    /// `apply` plays: handling parts here too cost full perft a sixth
    /// (folded in without a branch) to a third (a branch and a call) of
    /// its speed in the fast build profile; as it is, the release build
    /// runs full perft 6 at the speed it had before parts existed.
    #[inline(always)]
    pub fn after(&self, mv: &Move, bonus_turn: bool) -> Position {
        debug_assert_eq!(mv.owed_after(), 0, "a part of a capture: use apply");
        // Built as a new value from the old fields, the two sides taken out
        // as mover and other and put back by selects: updating a copy in
        // place, indexed by the side, kept it in memory and updated each
        // field there just after the copy's wide store (a stall on every
        // field), which made `apply` most of the cost of a perft leaf.
        let us = self.side_to_move().index();
        let white = us == 0;
        let [a, b] = self.pieces;
        let (mut own, mut other) = if white { (a, b) } else { (b, a) };
        let mut state = self.state;
        let capture = if self.owed_removals() != 0 {
            state &= !(0xff << OWED_SHIFT);
            true
        } else {
            // A placement has no start cell: nothing leaves, a hand piece arrives.
            own ^= mv.start_bit() | Bitboard::from_cell(mv.to());
            state -= u32::from(mv.starts_off_board()) << (8 * us);
            mv.jumped_enemy()
        };
        other = other.without(mv.captured() | mv.removed());
        // Legal moves never take more hand pieces than there are: no borrow.
        state -= mv.hand_removed() << (8 * (1 - us));
        if !(capture && bonus_turn) {
            state ^= 1 << SIDE_SHIFT;
        }
        Position {
            pieces: if white { [own, other] } else { [other, own] },
            plies_since_capture: if capture {
                0
            } else {
                self.plies_since_capture.saturating_add(1)
            },
            move_number: self.move_number.saturating_add(u32::from(!white)),
            state,
        }
    }

    /// A part of a capture played as a turn of its own (its jump without
    /// its removals, or removals made while some stay owed): the pieces
    /// it takes leave and the no-capture counter resets at once; the same
    /// side moves next, owing the rest, and the move number waits for the
    /// part that ends the capture.
    #[cold]
    #[inline(never)]
    fn after_capture_part(&self, mv: &Move) -> Position {
        let us = self.side_to_move();
        let mut next = *self;
        if !mv.is_removal_only() {
            next.pieces[us.index()] ^= mv.start_bit() | Bitboard::from_cell(mv.to());
        }
        next.pieces[(!us).index()] = self.pieces(!us).without(mv.captured() | mv.removed());
        next.state -= mv.hand_removed() << (8 * (!us).index());
        next.plies_since_capture = 0;
        next.with_owed_removals(mv.owed_after() as u8)
    }

    /// The capture under way is over, with whatever removals it owed
    /// forfeited: nothing is owed, the turn passes (with BonusTurn the
    /// capturer moves again) and the move number goes up after Black.
    pub(crate) fn capture_finished(self, bonus_turn: bool) -> Position {
        let mut next = self.with_owed_removals(0);
        if !bonus_turn {
            next.state ^= 1 << SIDE_SHIFT;
        }
        if self.side_to_move() == Player::Black {
            next.move_number = next.move_number.saturating_add(1);
        }
        next
    }
}

impl fmt::Debug for Position {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.debug_struct("Position")
            .field("pieces", &self.pieces)
            .field(
                "hand",
                &[self.hand(Player::White), self.hand(Player::Black)],
            )
            .field("side", &self.side_to_move())
            .field("plies_since_capture", &self.plies_since_capture)
            .field("move_number", &self.move_number)
            .field("owed", &self.owed_removals())
            .finish()
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

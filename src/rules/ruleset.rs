//! `Rules`: one variant made ready to play — its board geometry built, its
//! options checked — and the entry points that need both.

use super::bitboard::Bitboard;
use super::geometry::Geometry;
use super::movegen::{self, Found};
use super::moves::{Move, MoveError, MoveList, MoveSyntax};
use super::notation::{self, PositionError};
use super::position::{Player, Position};
use super::status::{self, GameEnd, Outcome};
use super::variant::{Variant, VariantError};

/// One variant made ready to play: where positions, moves, legality and the
/// end of the game are asked for.
///
/// ```
/// use yote::rules::{MoveList, Player, Rules};
///
/// let rules = Rules::standard();
/// let start = rules.start_position();
/// let mut moves = MoveList::default();
/// rules.legal_moves(&start, &mut moves);
/// assert_eq!(moves.len(), 30); // a placement on each cell of the 5×6 board
///
/// let c3 = rules.parse_move(&start, "@c3").unwrap();
/// let next = rules.after(&start, &c3);
/// assert_eq!(next.side_to_move(), Player::Black);
/// assert_eq!(rules.position_text(&next), "6/6/2W3/6/6 b 11 12 1 1");
/// assert_eq!(rules.status(&next), None); // the game goes on
/// ```
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct Rules {
    variant: Variant,
    geometry: Geometry,
}

impl Rules {
    pub fn new(variant: Variant) -> Result<Rules, VariantError> {
        variant.validate()?;
        Ok(Rules {
            geometry: Geometry::new(variant.rows, variant.cols),
            variant,
        })
    }

    pub fn standard() -> Rules {
        Rules::new(Variant::STANDARD).expect("the standard variant is valid")
    }

    pub fn variant(&self) -> &Variant {
        &self.variant
    }

    pub fn geometry(&self) -> &Geometry {
        &self.geometry
    }

    /// The empty board, every piece in hand, White to move.
    pub fn start_position(&self) -> Position {
        Position::start(&self.variant)
    }

    /// Reads a position text (`6/6/6/6/6 w 12 12 0 1`), checked against this
    /// variant's board and piece count.
    pub fn parse_position(&self, text: &str) -> Result<Position, PositionError> {
        notation::parse_position(text, &self.variant, &self.geometry)
    }

    pub fn position_text(&self, pos: &Position) -> String {
        notation::position_text(pos, &self.geometry)
    }

    /// Fills `list` with every legal move (empty once the game is over by
    /// having no move; callers check `status` for the other endings).
    pub fn legal_moves(&self, pos: &Position, list: &mut MoveList) {
        movegen::generate(&self.variant, &self.geometry, pos, list);
    }

    /// Only the legal moves that capture. Under MandatoryCapture these are all
    /// the legal moves whenever there is one.
    pub fn capture_moves(&self, pos: &Position, list: &mut MoveList) {
        movegen::generate_captures(&self.variant, &self.geometry, pos, list);
    }

    /// The legal moves when they fit in `list` (see `MoveList::with_limit`),
    /// else a varied sample of them: every placement, step and jump path,
    /// with the first few removal choices of each jump. What a search
    /// needs: a bounded set, never empty while the side can move.
    pub fn legal_moves_bounded(&self, pos: &Position, list: &mut MoveList) {
        movegen::generate_bounded(&self.variant, &self.geometry, pos, list, false);
    }

    /// `capture_moves`, bounded like `legal_moves_bounded`.
    pub fn capture_moves_bounded(&self, pos: &Position, list: &mut MoveList) {
        movegen::generate_bounded(&self.variant, &self.geometry, pos, list, true);
    }

    /// The number of legal moves, counted without making them.
    #[inline(always)]
    pub fn count_legal_moves(&self, pos: &Position) -> u64 {
        movegen::count(&self.variant, &self.geometry, pos)
    }

    pub fn has_legal_move(&self, pos: &Position) -> bool {
        movegen::has_legal_move(&self.variant, &self.geometry, pos)
    }

    /// Whether the side to move could capture now.
    pub fn has_capture(&self, pos: &Position) -> bool {
        if self.variant.jump_own && self.variant.multi_jump {
            // A chain may open with a jump over an own piece and capture
            // further on, which no single-jump pattern shows.
            let mut list = MoveList::with_limit(1);
            self.capture_moves(pos, &mut list);
            return !list.is_empty();
        }
        movegen::has_capture(&self.geometry, pos)
    }

    /// Plays a legal move of `pos`.
    #[inline(always)]
    pub fn apply(&self, pos: &mut Position, mv: &Move) {
        pos.apply(mv, self.variant.bonus_turn);
    }

    /// The position after a legal whole move of `pos` (every move
    /// generation makes), which stays as it was: what a search or perft
    /// wants for each child. Cheaper than a copy followed by `apply`, which
    /// the compiler does not see through (the fields are read back from the
    /// fresh copy). A part of a capture (`Move::owed_after`) goes through
    /// `apply` or `played`.
    #[inline(always)]
    pub fn after(&self, pos: &Position, mv: &Move) -> Position {
        pos.after(mv, self.variant.bonus_turn)
    }

    /// How the game stands by the rules of the position alone (win by pieces,
    /// three-piece draw, no legal move), or None while it goes on.
    pub fn status(&self, pos: &Position) -> Option<GameEnd> {
        status::position_status(self, pos)
    }

    /// How the game ends when `pos` reaches the NoCaptureDraw limit: a draw,
    /// or (NoCaptureOutcome more-pieces) a win for the side with more pieces.
    pub fn no_capture_outcome(&self, pos: &Position) -> Outcome {
        status::no_capture_outcome(self, pos)
    }

    /// The position after any legal move of `pos`, a part of a capture
    /// included: `apply` to a copy.
    pub fn played(&self, pos: &Position, mv: &Move) -> Position {
        let mut next = *pos;
        self.apply(&mut next, mv);
        next
    }

    /// A legal capture played as two turns, as many front ends do: the
    /// position after its jump alone, owing the removals, and the
    /// removal-only move that finishes it (applying both equals applying
    /// `mv`). None for a move that removes nothing after its jump.
    pub fn split_capture(&self, pos: &Position, mv: &Move) -> Option<(Position, Move)> {
        let removals = mv.removed().count() + mv.hand_removed();
        if mv.is_removal_only() || mv.owed_after() != 0 || removals == 0 {
            return None;
        }
        // The jump owes what the whole move removes: one removal per enemy
        // piece jumped, fewer when the Removal rule finds fewer to take.
        let jump = mv.with_removals(Bitboard::EMPTY, 0).leaving_owed(removals);
        let finish = Move::removal_only().with_removals(mv.removed(), mv.hand_removed() as u8);
        Some((self.played(pos, &jump), finish))
    }

    /// When `now` is `before` part way through the capture `mv` (its jump
    /// played, maybe some of its removals made, the rest owed), the
    /// removal-only move that completes it as `mv` would: so that an engine
    /// asked for the removals of its own capture gives the pieces it chose.
    /// None when `now` is not on the way to the position after `mv`.
    pub fn rest_of_capture(&self, before: &Position, mv: &Move, now: &Position) -> Option<Move> {
        if now.owed_removals() == 0 || !self.is_legal(before, mv) {
            return None;
        }
        let victim = !now.side_to_move();
        let hand_taken = before.hand(victim).checked_sub(now.hand(victim))?;
        let hand_left = mv.hand_removed().checked_sub(hand_taken)?;
        let board_left = mv.removed() & now.pieces(victim);
        let rest = Move::removal_only().with_removals(board_left, hand_left as u8);
        let rest = self.parse_move(now, &self.move_text(&rest)).ok()?;
        (self.played(now, &rest) == self.played(before, mv)).then_some(rest)
    }

    /// Rules (a) and (b): the piece counts alone end the game. Cheaper than
    /// `status`, which also looks for a legal move. Never in the middle of a
    /// capture (owed removals): the end is judged after the removals.
    #[inline(always)]
    pub fn ended_by_pieces(&self, pos: &Position) -> bool {
        pos.owed_removals() == 0
            && self.ended_by_totals((pos.total(Player::White), pos.total(Player::Black)))
    }

    /// `ended_by_pieces` given the two players' totals, in either order.
    #[inline(always)]
    pub(crate) fn ended_by_totals(&self, (a, b): (u32, u32)) -> bool {
        let limit = self.variant.loss_threshold();
        a <= limit || b <= limit || (self.variant.three_draw && a <= 3 && b <= 3)
    }

    pub fn move_text(&self, mv: &Move) -> String {
        mv.text(&self.geometry).to_string()
    }

    /// Reads a move and checks it is legal in `pos`. Removals may come in any
    /// order; the result prints in canonical order.
    ///
    /// ```
    /// use yote::rules::{MoveError, Rules};
    ///
    /// let rules = Rules::standard();
    /// // White on c3 can jump Black's c2 and take the e2 piece as well.
    /// let pos = rules.parse_position("6/6/2W3/2B1B1/6 w 1 1").unwrap();
    /// let capture = rules.parse_move(&pos, "c3c1xe2").unwrap();
    /// assert_eq!(rules.move_text(&capture), "c3c1xe2");
    ///
    /// // The jump alone is a move too (a capture in two turns): the
    /// // removal it owes is the next move.
    /// let jump = rules.parse_move(&pos, "c3c1").unwrap();
    /// assert_eq!(rules.played(&pos, &jump).owed_removals(), 1);
    ///
    /// // What is not legal here is refused, with the reason.
    /// assert!(matches!(rules.parse_move(&pos, "c3c5"), Err(MoveError::Illegal { .. })));
    /// assert!(matches!(rules.parse_move(&pos, "@z9"), Err(MoveError::BadCell { .. })));
    /// ```
    pub fn parse_move(&self, pos: &Position, text: &str) -> Result<Move, MoveError> {
        let syntax = MoveSyntax::parse(text, &self.geometry)?;
        let illegal = |reason: String| MoveError::Illegal {
            text: text.to_string(),
            reason,
        };
        if let Some(end) = self.status(pos) {
            return Err(illegal(format!("the game is over ({end})")));
        }
        // Checked directly: listing the moves to look this one up could
        // take more memory than there is (see `MAX_MOVES`).
        match movegen::find_move(&self.variant, &self.geometry, pos, &syntax) {
            Found::Legal(mv) => Ok(mv),
            Found::NoSuchPath => Err(illegal(self.why_no_such_move(pos, &syntax))),
            Found::WrongRemovals(example) => Err(illegal(format!(
                "wrong removals; this move removes {} piece(s){}, for example {}",
                example.removed().count() + example.hand_removed(),
                if example.is_removal_only() {
                    ""
                } else {
                    " after its jumps"
                },
                self.move_text(&example)
            ))),
        }
    }

    /// Whether `mv` is a legal move of `pos`, checked without listing moves.
    pub fn is_legal(&self, pos: &Position, mv: &Move) -> bool {
        self.parse_move(pos, &self.move_text(mv)).as_ref() == Ok(mv)
    }

    /// A reason a move path is not among the legal moves, for error messages.
    fn why_no_such_move(&self, pos: &Position, syntax: &MoveSyntax) -> String {
        let us = pos.side_to_move();
        let owed = pos.owed_removals();
        if owed > 0 {
            return format!(
                "{us} owes {owed} removal(s) for the jump just made; only a removal-only move (such as xd4 or x@) is legal"
            );
        }
        let Some(&first) = syntax.cells.first() else {
            return "no removal is owed here (a removal-only move such as xd4 is legal only after a jump played without its removals, or in a position that owes removals)".to_string();
        };
        if syntax.placement {
            return if pos.hand(us) == 0 {
                format!("{us} has no piece in hand")
            } else if pos.occupied().contains(first) {
                "that cell is not empty".to_string()
            } else {
                "a capture is mandatory".to_string()
            };
        }
        if !pos.pieces(us).contains(first) {
            return format!("no {us} piece on {}", self.geometry.cell_name(first));
        }
        if syntax.cells.len() > 2 && !self.variant.multi_jump {
            return "multiple jumps are off in this variant".to_string();
        }
        if self.variant.mandatory_capture && self.has_capture(pos) {
            return "a capture is mandatory".to_string();
        }
        "no such step or jump".to_string()
    }
}

//! How a game ends: who won, or that it is drawn, and by which rule.

use super::position::{Player, Position};
use super::ruleset::Rules;
use super::variant::{NoCaptureOutcome, NoMoves};
use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum Outcome {
    Win(Player),
    Draw,
}

/// The rule that ended the game, in the order the rules are checked.
#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub enum EndReason {
    /// (a) A player is down to the WinCondition's piece count.
    FewPieces,
    /// (b) ThreeDraw: both players have three pieces or fewer.
    ThreeDraw,
    /// (c) The player to move has no legal move.
    NoMoves,
    /// (d) NoCaptureDraw: too many plies without a capture; drawn, or
    /// judged on material (NoCaptureOutcome).
    NoCaptureLimit,
    /// (d) RepetitionDraw: the position occurred the given number of times.
    Repetition,
}

#[derive(Clone, Copy, Debug, PartialEq, Eq, Hash)]
pub struct GameEnd {
    pub outcome: Outcome,
    pub reason: EndReason,
}

impl GameEnd {
    pub fn winner(&self) -> Option<Player> {
        match self.outcome {
            Outcome::Win(p) => Some(p),
            Outcome::Draw => None,
        }
    }
}

impl fmt::Display for EndReason {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        f.write_str(match self {
            EndReason::FewPieces => "too few pieces left",
            EndReason::ThreeDraw => "both players have three pieces or fewer",
            EndReason::NoMoves => "no legal move",
            EndReason::NoCaptureLimit => "no-capture limit reached",
            EndReason::Repetition => "repetition",
        })
    }
}

impl fmt::Display for GameEnd {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self.outcome {
            Outcome::Win(p) => write!(f, "{p} wins: {}", self.reason),
            Outcome::Draw => write!(f, "draw: {}", self.reason),
        }
    }
}

/// Rules (a)–(c), which depend on the position alone. A position that owes
/// removals is in the middle of a capture, which is one move: the game end
/// is checked once the removals are made, as for the capture in one turn
/// (and the parser made sure there is something to remove).
pub(crate) fn position_status(rules: &Rules, pos: &Position) -> Option<GameEnd> {
    if pos.owed_removals() > 0 {
        return None;
    }
    let variant = rules.variant();
    let limit = variant.loss_threshold();
    let (white, black) = (pos.total(Player::White), pos.total(Player::Black));
    let end = |outcome, reason| Some(GameEnd { outcome, reason });
    match (white <= limit, black <= limit) {
        (true, true) => return end(Outcome::Draw, EndReason::FewPieces),
        (true, false) => return end(Outcome::Win(Player::Black), EndReason::FewPieces),
        (false, true) => return end(Outcome::Win(Player::White), EndReason::FewPieces),
        (false, false) => {}
    }
    if variant.three_draw && white <= 3 && black <= 3 {
        return end(Outcome::Draw, EndReason::ThreeDraw);
    }
    if !rules.has_legal_move(pos) {
        let outcome = match variant.no_moves {
            NoMoves::Loses => Outcome::Win(!pos.side_to_move()),
            NoMoves::MorePieces => more_pieces(pos),
        };
        return end(outcome, EndReason::NoMoves);
    }
    None
}

/// The outcome when the no-capture limit is reached in `pos` (rule (d)).
pub(crate) fn no_capture_outcome(rules: &Rules, pos: &Position) -> Outcome {
    match rules.variant().no_capture_outcome {
        NoCaptureOutcome::Draw => Outcome::Draw,
        NoCaptureOutcome::MorePieces => more_pieces(pos),
    }
}

/// More pieces in total (board and hand) wins; equal totals draw.
fn more_pieces(pos: &Position) -> Outcome {
    let (white, black) = (pos.total(Player::White), pos.total(Player::Black));
    match white.cmp(&black) {
        std::cmp::Ordering::Greater => Outcome::Win(Player::White),
        std::cmp::Ordering::Less => Outcome::Win(Player::Black),
        std::cmp::Ordering::Equal => Outcome::Draw,
    }
}

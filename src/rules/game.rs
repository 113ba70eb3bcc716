//! A game in progress: a position with the history the draw rules need.

use super::moves::{Move, MoveError, MoveList};
use super::position::Position;
use super::ruleset::Rules;
use super::status::{EndReason, GameEnd, Outcome};

#[derive(Clone, Debug)]
pub struct Game {
    rules: Rules,
    start: Position,
    position: Position,
    moves: Vec<Move>,
    /// `Position::key` of the start and of every position after it.
    keys: Vec<u64>,
    /// The position before each move played, so that `undo` restores it
    /// exactly (a part of a capture cannot be reversed from the move alone).
    before: Vec<Position>,
}

impl Game {
    pub fn new(rules: Rules) -> Game {
        let start = rules.start_position();
        Game::from_position(rules, start)
    }

    pub fn from_position(rules: Rules, start: Position) -> Game {
        Game {
            rules,
            start,
            position: start,
            moves: Vec::new(),
            keys: vec![start.key()],
            before: Vec::new(),
        }
    }

    pub fn rules(&self) -> &Rules {
        &self.rules
    }

    pub fn position(&self) -> &Position {
        &self.position
    }

    pub fn start(&self) -> &Position {
        &self.start
    }

    pub fn moves(&self) -> &[Move] {
        &self.moves
    }

    /// Keys of every position so far, the start first.
    pub fn keys(&self) -> &[u64] {
        &self.keys
    }

    /// Plays a move known to be legal here (from `legal_moves` or `parse_move`).
    pub fn play(&mut self, mv: &Move) {
        self.before.push(self.position);
        self.rules.apply(&mut self.position, mv);
        self.moves.push(*mv);
        self.keys.push(self.position.key());
    }

    /// Reads and plays a whole move (as game records and opening lines
    /// hold them), refusing it if the game is over, it is illegal, or it is
    /// only a part of a capture (a jump without the removals it owes).
    pub fn play_text(&mut self, text: &str) -> Result<Move, MoveError> {
        let illegal = |reason: String| MoveError::Illegal {
            text: text.to_string(),
            reason,
        };
        if let Some(end) = self.status() {
            return Err(illegal(format!("the game is over ({end})")));
        }
        let mv = self.rules.parse_move(&self.position, text)?;
        if mv.owed_after() > 0 {
            return Err(illegal(format!(
                "a capture is written whole here, with its {} removal(s)",
                mv.owed_after()
            )));
        }
        self.play(&mv);
        Ok(mv)
    }

    /// Takes back the last move played, if any, and returns it.
    pub fn undo(&mut self) -> Option<Move> {
        let mv = self.moves.pop()?;
        self.keys.pop();
        self.position = self.before.pop().expect("a position before every move");
        Some(mv)
    }

    /// Reads a move against the running game, as a `position … moves`
    /// list holds them: legal here, the game not over by any rule (the
    /// history rules included), and a part of a capture (its jump alone, or
    /// some of its removals) accepted as a turn of its own. The history
    /// rules are looked at only when on; the position rules are checked by
    /// `parse_move` itself, so long move lists generate moves once per ply.
    pub fn parse_move(&self, text: &str) -> Result<Move, MoveError> {
        let variant = self.rules.variant();
        if (variant.no_capture_draw > 0 || variant.repetition_draw > 0)
            && let Some(end) = self.status()
        {
            return Err(MoveError::Illegal {
                text: text.to_string(),
                reason: format!("the game is over ({end})"),
            });
        }
        self.rules.parse_move(&self.position, text)
    }

    pub fn legal_moves(&self, list: &mut MoveList) {
        list.clear();
        if self.status().is_none() {
            self.rules.legal_moves(&self.position, list);
        }
    }

    /// How many times the current position has occurred, this time included.
    pub fn repetitions(&self) -> usize {
        let now = self.position.key();
        self.keys.iter().filter(|&&k| k == now).count()
    }

    /// The game's end by every rule, (a)–(c) first, then the history rules;
    /// None in the middle of a capture (owed removals), which is one move.
    pub fn status(&self) -> Option<GameEnd> {
        if self.position.owed_removals() > 0 {
            return None;
        }
        if let Some(end) = self.rules.status(&self.position) {
            return Some(end);
        }
        let variant = self.rules.variant();
        if variant.no_capture_draw > 0
            && self.position.plies_since_capture() >= variant.no_capture_draw
        {
            return Some(GameEnd {
                outcome: self.rules.no_capture_outcome(&self.position),
                reason: EndReason::NoCaptureLimit,
            });
        }
        if variant.repetition_draw > 0 && self.repetitions() >= variant.repetition_draw as usize {
            return Some(GameEnd {
                outcome: Outcome::Draw,
                reason: EndReason::Repetition,
            });
        }
        None
    }
}

//! Games as the page sends them (rules, start position, moves) replayed by
//! the rules library, and the board, hands, status and legal moves the page
//! draws. The page never decides legality: it picks among the moves here.
//!
//! A capture may come as two plies, the jump and then the removal-only move
//! (`c3c5`, `xd1`), as a player clicks it; the jump alone leaves a position
//! that owes the removals (`x<k>` in the position text). To engines the two
//! plies are sent as the one move they make (`c3c5xd1`), which every UGI
//! engine reads.

use crate::rules::{
    Game, Move, MoveError, MoveList, Outcome, Player, Position, PositionError, Rules, Variant,
    VariantError,
};
use serde_json::{Value, json};
use std::fmt;

/// The most legal moves listed to the page; beyond it (huge MultiJump
/// boards) moves are entered as text and checked here.
pub const MAX_LISTED_MOVES: usize = 4096;

/// Most plies accepted in one game.
pub const MAX_PLIES: usize = 4096;

/// A game replayed from what the page sent.
pub struct Replayed {
    pub rules: Rules,
    pub start: Position,
    pub game: Game,
    /// The jump of a capture played alone, as its text, and the position
    /// after it, which owes the removals.
    pub pending: Option<(String, Position)>,
    /// The moves as the engines get them: a two-ply capture joined.
    pub engine_moves: Vec<String>,
    /// The plies as played (what the move list shows).
    pub plies: Vec<String>,
}

impl Replayed {
    /// The position shown: after the pending jump if there is one.
    pub fn position(&self) -> &Position {
        self.pending
            .as_ref()
            .map_or(self.game.position(), |(_, p)| p)
    }

    /// `position …` for an engine: `startpos` when the game began there;
    /// in the middle of a capture played as two plies, the position that
    /// owes the removals (its text ends in `x<k>`).
    pub fn position_command(&self) -> String {
        if let Some((_, jumped)) = &self.pending {
            return format!("position fen {}", self.rules.position_text(jumped));
        }
        let mut command = if self.start == self.rules.start_position() {
            "position startpos".to_string()
        } else {
            format!("position fen {}", self.rules.position_text(&self.start))
        };
        if !self.engine_moves.is_empty() {
            command.push_str(" moves ");
            command.push_str(&self.engine_moves.join(" "));
        }
        command
    }

    pub fn legal_moves(&self) -> MoveList {
        let mut list = MoveList::with_limit(MAX_LISTED_MOVES);
        match &self.pending {
            Some((_, pos)) => self.rules.legal_moves_bounded(pos, &mut list),
            None if self.game.status().is_none() => self
                .rules
                .legal_moves_bounded(self.game.position(), &mut list),
            None => {}
        }
        list
    }
}

/// A rule spec the rules library refused, as the page sent it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct RulesSpecError {
    pub spec: String,
    pub error: VariantError,
}

impl fmt::Display for RulesSpecError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        write!(f, "variant '{}': {}", self.spec, self.error)
    }
}

impl std::error::Error for RulesSpecError {}

/// Why a game the page sent could not be replayed: the field or the ply
/// that is wrong, as the protocol's errors say it.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum ReplayError {
    Rules(RulesSpecError),
    Position {
        text: String,
        error: PositionError,
    },
    TooManyPlies,
    /// The ply at `number` (from 1), as written.
    Ply {
        number: usize,
        text: String,
        error: PlyError,
    },
}

impl fmt::Display for ReplayError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            ReplayError::Rules(e) => e.fmt(f),
            ReplayError::Position { text, error } => write!(f, "position '{text}': {error}"),
            ReplayError::TooManyPlies => write!(f, "more than {MAX_PLIES} moves"),
            ReplayError::Ply {
                number,
                text,
                error,
            } => write!(f, "move {number} '{text}': {error}"),
        }
    }
}

impl std::error::Error for ReplayError {}

/// Why one ply was refused.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum PlyError {
    Illegal(MoveError),
    /// The removals finishing the jump `jump`, played alone before them.
    Removals {
        jump: String,
        error: MoveError,
    },
}

impl fmt::Display for PlyError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            PlyError::Illegal(e) => e.fmt(f),
            PlyError::Removals { jump, error } => write!(
                f,
                "{error} (the removals after the jump {jump} must be removal-only, like xd4)"
            ),
        }
    }
}

impl std::error::Error for PlyError {}

/// Reads a rule spec: a preset name and/or `key=value` items.
pub fn parse_rules(spec: &str) -> Result<Rules, RulesSpecError> {
    let refused = |error| RulesSpecError {
        spec: spec.to_string(),
        error,
    };
    Rules::new(Variant::from_spec(spec).map_err(refused)?).map_err(refused)
}

/// Replays `moves` from `fen` (or the start) under `spec`.
pub fn replay(spec: &str, fen: Option<&str>, moves: &[String]) -> Result<Replayed, ReplayError> {
    let rules = parse_rules(spec).map_err(ReplayError::Rules)?;
    let start = match fen.map(str::trim).filter(|f| !f.is_empty()) {
        Some(text) => rules
            .parse_position(text)
            .map_err(|error| ReplayError::Position {
                text: text.to_string(),
                error,
            })?,
        None => rules.start_position(),
    };
    if moves.len() > MAX_PLIES {
        return Err(ReplayError::TooManyPlies);
    }
    let mut replayed = Replayed {
        game: Game::from_position(rules.clone(), start),
        rules,
        start,
        pending: None,
        engine_moves: Vec::new(),
        plies: Vec::new(),
    };
    for (index, text) in moves.iter().enumerate() {
        let text = text.trim();
        play_ply(&mut replayed, text).map_err(|error| ReplayError::Ply {
            number: index + 1,
            text: text.to_string(),
            error,
        })?;
    }
    Ok(replayed)
}

/// Plays one ply: a whole move, the jump of a capture alone, or the
/// removals finishing that jump.
pub fn play_ply(r: &mut Replayed, text: &str) -> Result<(), PlyError> {
    if let Some((jump, _)) = r.pending.take() {
        let mv = r
            .game
            .play_text(&format!("{jump}{text}"))
            .map_err(|error| PlyError::Removals { jump, error })?;
        r.engine_moves.push(r.rules.move_text(&mv));
        r.plies.push(text.to_string());
        return Ok(());
    }
    match r.game.play_text(text) {
        Ok(mv) => {
            r.engine_moves.push(r.rules.move_text(&mv));
            r.plies.push(r.rules.move_text(&mv));
            Ok(())
        }
        Err(error) => play_jump_alone(r, text, error),
    }
}

/// `text` as the jump of a capture played alone, its removals owed; the
/// move's own error when it is not one.
fn play_jump_alone(r: &mut Replayed, text: &str, error: MoveError) -> Result<(), PlyError> {
    let jumped = capture_by_jump(&r.rules, r.game.position(), text)
        .and_then(|example| r.rules.split_capture(r.game.position(), &example))
        .map(|(jumped, _)| jumped)
        .ok_or(PlyError::Illegal(error))?;
    r.pending = Some((text.to_string(), jumped));
    r.plies.push(text.to_string());
    Ok(())
}

/// A legal capture whose jump path is `text` and that removes pieces after
/// it: the jump of a capture played alone.
fn capture_by_jump(rules: &Rules, pos: &Position, text: &str) -> Option<Move> {
    if text.contains('x') || text.starts_with('@') {
        return None;
    }
    let mut list = MoveList::new();
    rules.legal_moves_bounded(pos, &mut list);
    list.iter().copied().find(|mv| {
        mv.is_jump()
            && mv.removed().count() + mv.hand_removed() > 0
            && jump_path_text(rules, mv) == text
    })
}

/// The move's text without its removals (`c3c5` of `c3c5xd1`).
fn jump_path_text(rules: &Rules, mv: &Move) -> String {
    let text = rules.move_text(mv);
    match text.find('x') {
        Some(at) => text[..at].to_string(),
        None => text,
    }
}

pub fn player_letter(p: Player) -> &'static str {
    match p {
        Player::White => "W",
        Player::Black => "B",
    }
}

/// The board as the page draws it: one character per cell in index order
/// (a1, b1, …), `W`, `B` or `.`.
pub fn board_json(rules: &Rules, pos: &Position) -> Value {
    let geometry = rules.geometry();
    let cells: String = (0..geometry.cell_count())
        .map(|c| {
            if pos.pieces(Player::White).contains(c) {
                'W'
            } else if pos.pieces(Player::Black).contains(c) {
                'B'
            } else {
                '.'
            }
        })
        .collect();
    json!({
        "rows": geometry.rows(),
        "cols": geometry.cols(),
        "cells": cells,
        "hands": { "W": pos.hand(Player::White), "B": pos.hand(Player::Black) },
        "side": player_letter(pos.side_to_move()),
        "owed": pos.owed_removals(),
        "fen": rules.position_text(pos),
    })
}

/// One legal move for the page: where it starts and lands, the cells it
/// jumps through, what it removes, and its jump text when it can be played
/// as a jump first and removals after.
fn move_json(rules: &Rules, mv: &Move) -> Value {
    let geometry = rules.geometry();
    let name = |c: u8| geometry.cell_name(c).to_string();
    let from = (!mv.is_placement() && !mv.is_removal_only()).then(|| name(mv.from()));
    let to = (!mv.is_removal_only()).then(|| name(mv.to()));
    let path: Vec<String> = from
        .iter()
        .cloned()
        .chain(mv.landings(geometry).map(name))
        .collect();
    let removes: Vec<String> = mv.removed().map(name).collect();
    let removal_count = mv.removed().count() + mv.hand_removed();
    json!({
        "text": rules.move_text(mv),
        "from": from,
        "to": to,
        "path": path,
        "captured": mv.captured().map(name).collect::<Vec<_>>(),
        "removes": removes,
        "hand": mv.hand_removed(),
        "jump": (mv.is_jump() && removal_count > 0).then(|| jump_path_text(rules, mv)),
    })
}

pub fn result_token(outcome: Outcome) -> &'static str {
    match outcome {
        Outcome::Win(Player::White) => "1-0",
        Outcome::Win(Player::Black) => "0-1",
        Outcome::Draw => "1/2-1/2",
    }
}

/// Everything the page needs to show a game and take the next move.
pub fn state_json(r: &Replayed) -> Value {
    let pos = r.position();
    let legal = r.legal_moves();
    let status = match (&r.pending, r.game.status()) {
        (None, Some(end)) => json!({
            "result": result_token(end.outcome),
            "winner": end.winner().map(player_letter),
            "reason": end.reason.to_string(),
            "text": end.to_string(),
        }),
        _ => Value::Null,
    };
    json!({
        "variant": r.rules.variant().spec(),
        "preset": r.rules.variant().preset_name(),
        "start": r.rules.position_text(&r.start),
        "board": board_json(&r.rules, pos),
        "moves": r.plies,
        "engine_moves": r.engine_moves,
        "pending": r.pending.as_ref().map(|(jump, _)| jump),
        "status": status,
        "legal": legal.iter().map(|m| move_json(&r.rules, m)).collect::<Vec<_>>(),
        "legal_truncated": legal.is_truncated(),
        "position_command": r.position_command(),
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    fn moves(texts: &[&str]) -> Vec<String> {
        texts.iter().map(|t| t.to_string()).collect()
    }

    /// White c3, Black d3 and a1: c3e3 jumps d3 and owes one more removal.
    const CAPTURE: &str = "6/6/2WB2/6/B5 w 11 10 0 1";

    #[test]
    fn a_capture_is_played_as_its_jump_then_the_removal() {
        let jumped = replay("standard", Some(CAPTURE), &moves(&["c3e3"])).unwrap();
        assert_eq!(jumped.position().owed_removals(), 1);
        assert!(jumped.legal_moves().iter().all(|m| m.is_removal_only()));
        let done = replay("standard", Some(CAPTURE), &moves(&["c3e3", "xa1"])).unwrap();
        assert_eq!(done.engine_moves, vec!["c3e3xa1"]);
        assert_eq!(done.plies, vec!["c3e3", "xa1"]);
        assert!(done.pending.is_none());
        assert!(done.position_command().ends_with("moves c3e3xa1"));
    }

    #[test]
    fn bad_input_names_the_field_or_ply() {
        let e = replay("standard", None, &moves(&["@c3", "c3c4"]))
            .err()
            .unwrap();
        assert!(
            matches!(
                &e,
                ReplayError::Ply {
                    number: 2,
                    error: PlyError::Illegal(_),
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().starts_with("move 2 'c3c4'"), "{e}");
        let e = replay("nonsense", None, &[]).err().unwrap();
        assert!(matches!(&e, ReplayError::Rules(_)), "{e:?}");
        assert!(e.to_string().contains("variant 'nonsense'"), "{e}");
        let e = replay("standard", Some("6/6 w"), &[]).err().unwrap();
        assert!(matches!(&e, ReplayError::Position { .. }), "{e:?}");
        assert!(e.to_string().contains("position '6/6 w'"), "{e}");
        let e = replay("standard", Some(CAPTURE), &moves(&["c3e3", "c3c4"]))
            .err()
            .unwrap();
        assert!(
            matches!(
                &e,
                ReplayError::Ply {
                    error: PlyError::Removals { .. },
                    ..
                }
            ),
            "{e:?}"
        );
        assert!(e.to_string().contains("removal-only"), "{e}");
    }
}

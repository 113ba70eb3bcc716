//! Records for Review and Watch: the files the command line named and the
//! texts the page uploaded, read with `client::records`, replayed with
//! the rules so every ply has its board, and the `yote analyse` / match
//! runner comments turned into values for the evaluation graph.

use super::board::board_json;
use super::engines::ApiError;
use crate::analysis::GameInput;
use crate::client::records::{GameRecord, RecordReader};
use crate::rules::{Game, Player, Variant};
use crate::tournament::standings::standings;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::io::{Read, Seek, SeekFrom};
use std::path::PathBuf;
use std::sync::{Arc, Mutex};

/// Uploaded texts kept at once; the oldest goes first.
const MAX_UPLOADS: usize = 8;

/// Largest records text read (a file is read up to here).
pub const MAX_RECORDS_BYTES: usize = 32 << 20;

/// Graph values are clamped here, in centipawns, as `yote analyse` caps
/// proved results.
const CP_CAP: i64 = 1000;

pub struct Records {
    files: Vec<PathBuf>,
    uploads: Mutex<VecDeque<(String, String, Arc<String>)>>,
    uploaded: Mutex<u64>,
}

impl Records {
    pub fn new(files: Vec<PathBuf>) -> Records {
        Records {
            files,
            uploads: Mutex::new(VecDeque::new()),
            uploaded: Mutex::new(0),
        }
    }

    pub fn list(&self) -> Value {
        let files = self.files.iter().enumerate().map(|(i, path)| {
            json!({"id": format!("f{i}"), "name": path.display().to_string(), "file": true})
        });
        let uploads = self.uploads.lock().expect("uploads lock");
        let uploads = uploads
            .iter()
            .map(|(id, name, _)| json!({"id": id, "name": name, "file": false}));
        Value::Array(files.chain(uploads).collect())
    }

    /// Keeps an uploaded text (checked to hold at least one game) and gives
    /// its id.
    pub fn upload(&self, name: &str, text: String) -> Result<Value, ApiError> {
        let games = read_games(&text).map_err(|e| ApiError::new(400, e))?;
        if games.is_empty() {
            return Err(ApiError::new(400, "no complete game in the text"));
        }
        let mut counter = self.uploaded.lock().expect("upload lock");
        *counter += 1;
        let id = format!("u{counter}");
        let name: String = name.chars().filter(|c| !c.is_control()).take(80).collect();
        let mut uploads = self.uploads.lock().expect("uploads lock");
        if uploads.len() >= MAX_UPLOADS {
            uploads.pop_front();
        }
        uploads.push_back((id.clone(), name, Arc::new(text)));
        Ok(json!({"id": id, "games": games.len()}))
    }

    /// The text of a source: a named file (read now, so a growing file
    /// shows its new games) or an upload.
    pub fn text(&self, id: &str) -> Result<Arc<String>, ApiError> {
        let missing = || ApiError::new(404, format!("no records '{id}'"));
        if let Some(index) = id.strip_prefix('f') {
            let index: usize = index.parse().map_err(|_| missing())?;
            let path = self.files.get(index).ok_or_else(missing)?;
            return read_file_from(path, 0)
                .map(|(text, _)| Arc::new(text))
                .map_err(|e| ApiError::new(500, format!("{}: {e}", path.display())));
        }
        let uploads = self.uploads.lock().expect("uploads lock");
        uploads
            .iter()
            .find(|(u, _, _)| u == id)
            .map(|(_, _, text)| text.clone())
            .ok_or_else(missing)
    }

    pub fn path(&self, id: &str) -> Option<&PathBuf> {
        let index: usize = id.strip_prefix('f')?.parse().ok()?;
        self.files.get(index)
    }
}

/// Up to [`MAX_RECORDS_BYTES`] of a file from `offset`, cut after its last
/// complete line; and the offset after that line.
pub fn read_file_from(path: &PathBuf, offset: u64) -> std::io::Result<(String, u64)> {
    let mut file = std::fs::File::open(path)?;
    file.seek(SeekFrom::Start(offset))?;
    let mut bytes = Vec::new();
    file.take(MAX_RECORDS_BYTES as u64)
        .read_to_end(&mut bytes)?;
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    bytes.truncate(complete);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Ok((text, offset + complete as u64))
}

/// The complete games of a text; a game still being written at its end is
/// left out (a file that grows), a malformed one is an error.
pub fn read_games(text: &str) -> Result<Vec<GameRecord>, String> {
    let mut reader = RecordReader::default();
    let mut games = Vec::new();
    for line in text.lines() {
        match reader.line(line) {
            Ok(Some(game)) => games.push(game),
            Ok(None) => {}
            Err(e) => return Err(e.to_string()),
        }
    }
    Ok(games)
}

/// One line of the game list.
pub fn summary_json(index: usize, game: &GameRecord) -> Value {
    json!({
        "index": index,
        "white": game.tag("White").unwrap_or("?"),
        "black": game.tag("Black").unwrap_or("?"),
        "result": game.result.as_str(),
        "plies": game.moves.len(),
        "termination": game.tag("Termination").unwrap_or(""),
        "round": game.tag("Game").or(game.tag("Round")).unwrap_or(""),
    })
}

/// The game list of a text and, for a match's file, its standings.
pub fn list_json(text: &str) -> Result<Value, ApiError> {
    let games = read_games(text).map_err(|e| ApiError::new(422, e))?;
    let summaries: Vec<Value> = games
        .iter()
        .enumerate()
        .map(|(i, g)| summary_json(i, g))
        .collect();
    Ok(json!({"games": summaries, "standings": standings_json(text)}))
}

/// Everyone's points and rating, best first, by the match runner's own
/// rescoring; null when the text is not a match's (no White/Black tags).
pub fn standings_json(text: &str) -> Value {
    let Ok(tallies) = crate::tournament::rescore(text) else {
        return Value::Null;
    };
    let mut names: Vec<String> = Vec::new();
    for t in &tallies {
        for name in [&t.a, &t.b] {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    let rows: Vec<Value> = standings(&names, &tallies, None)
        .iter()
        .map(|s| {
            json!({
                "name": s.name,
                "games": s.games,
                "points": s.points,
                "elo": s.elo.is_finite().then_some(s.elo.round()),
                "error": s.error.is_finite().then_some(s.error.round()),
            })
        })
        .collect();
    Value::Array(rows)
}

/// A whole game for Review: tags, plies with their comments, marks and
/// values, and the board after every ply.
pub fn game_json(game: GameRecord, index: usize) -> Result<Value, ApiError> {
    let input = GameInput::from_record(game, &Variant::STANDARD, index + 1)
        .map_err(|e| ApiError::new(422, e.to_string()))?;
    let mut replay = Game::from_position(input.rules.clone(), input.start);
    let mut boards = vec![board_json(&input.rules, &input.start)];
    let mut plies = Vec::with_capacity(input.moves.len());
    for (i, mv) in input.moves.iter().enumerate() {
        let mover = replay.position().side_to_move();
        replay.play(mv);
        boards.push(board_json(&input.rules, replay.position()));
        let comment = input.record.comments.get(i).map_or("", String::as_str);
        let value = comment_value(comment).map(|v| match mover {
            Player::White => v,
            Player::Black => -v,
        });
        plies.push(json!({
            "text": input.record.moves[i],
            "comment": comment,
            "mark": comment_mark(comment),
            "white_cp": value,
        }));
    }
    let tags: Vec<Value> = input
        .record
        .tags
        .iter()
        .map(|(k, v)| json!([k, v]))
        .collect();
    Ok(json!({
        "index": index,
        "variant": input.rules.variant().spec(),
        "start": input.rules.position_text(&input.start),
        "tags": tags,
        "result": input.record.result.as_str(),
        "plies": plies,
        "boards": boards,
        "end": replay.status().map(|e| e.to_string()),
    }))
}

/// The value at the start of a move comment, from the mover's view, in
/// centipawns: `+0.35/7 …` (both runners), `+W5` / `-L4` / `=D` (proved by
/// `yote analyse`), `+M` / `-M` (a mate score in a match).
pub fn comment_value(comment: &str) -> Option<i64> {
    let token = comment.split(['/', ' ', ';']).next()?.trim();
    match token {
        "=D" => return Some(0),
        "+M" => return Some(CP_CAP),
        "-M" => return Some(-CP_CAP),
        _ => {}
    }
    if token.starts_with("+W") {
        return Some(CP_CAP);
    }
    if token.starts_with("-L") {
        return Some(-CP_CAP);
    }
    let pawns: f64 = token.parse().ok()?;
    pawns
        .is_finite()
        .then(|| ((pawns * 100.0).round() as i64).clamp(-CP_CAP, CP_CAP))
}

/// The mark `yote analyse` wrote on a move: `??`, `?` or `?!`.
pub fn comment_mark(comment: &str) -> &'static str {
    let first_part = comment.split(';').next().unwrap_or("");
    for token in first_part.split_whitespace() {
        match token.trim_end_matches(',') {
            "??" => return "??",
            "?" => return "?",
            "?!" => return "?!",
            _ => {}
        }
    }
    ""
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn comments_give_values_and_marks() {
        assert_eq!(comment_value("+0.35/7 0.120s"), Some(35));
        assert_eq!(
            comment_value("-1.50/9 ? mistake, best c3c4 +0.20; c4c5"),
            Some(-150)
        );
        assert_eq!(comment_value("+W5/12"), Some(1000));
        assert_eq!(comment_value("-L4/3"), Some(-1000));
        assert_eq!(comment_value("=D/1"), Some(0));
        assert_eq!(comment_value("+M/30 1.0s"), Some(1000));
        assert_eq!(comment_value("book"), None);
        assert_eq!(comment_value(""), None);
        assert_eq!(
            comment_mark("-1.50/9 ? mistake, best c3c4 +0.20; c4c5"),
            "?"
        );
        assert_eq!(comment_mark("-4.00/9 ?? blunder, best c3c4"), "??");
        assert_eq!(comment_mark("+0.10/9 ?! inaccuracy"), "?!");
        assert_eq!(comment_mark("+0.10/9; c3c4"), "");
    }
}

//! Records for Review and Watch: the files the command line named and the
//! texts the page uploaded, read with `client::records`, replayed with
//! the rules so every ply has its board, and the `yote analyse` / match
//! runner comments turned into values for the evaluation graph.

use super::board::board_json;
use super::engines::ApiError;
use crate::analysis::GameInput;
use crate::client::records::{GameRecord, RecordReader};
use crate::results::rescore_inputs;
use crate::results::standings::{names, standings};
use crate::rules::{Game, Player, Variant};
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::fs::File;
use std::io::{BufRead, BufReader, Cursor, Read, Seek, SeekFrom};
use std::os::unix::fs::{MetadataExt, OpenOptionsExt};
use std::path::{Path, PathBuf};
use std::sync::{Arc, Mutex};

/// Uploaded texts kept at once; the oldest goes first.
const MAX_UPLOADS: usize = 8;

/// Bytes of uploaded text kept in all; the oldest go first past it.
const MAX_UPLOADED_BYTES: usize = 16 << 20;

/// Most of a records file read for one answer (a file is read a line at
/// a time up to here; the answer says when it stopped short).
pub const MAX_RECORDS_BYTES: u64 = 64 << 20;

/// Graph values are clamped here, in centipawns, as `yote analyse` caps
/// proved results.
const CP_CAP: i64 = 1000;

/// Records read at once (a list of a large file costs tens of MB while it
/// is built); more wait their turn.
const READERS: usize = 2;

pub struct Records {
    files: Vec<PathBuf>,
    uploads: Mutex<VecDeque<(String, String, Arc<String>)>>,
    uploaded: Mutex<u64>,
    readers: Arc<tokio::sync::Semaphore>,
}

impl Records {
    pub fn new(files: Vec<PathBuf>) -> Records {
        Records {
            files,
            uploads: Mutex::new(VecDeque::new()),
            uploaded: Mutex::new(0),
            readers: Arc::new(tokio::sync::Semaphore::new(READERS)),
        }
    }

    /// A turn to read records, waited for (called on a blocking thread of
    /// the server's runtime).
    pub fn turn(&self) -> Option<tokio::sync::OwnedSemaphorePermit> {
        let readers = self.readers.clone();
        tokio::runtime::Handle::try_current()
            .ok()
            .and_then(|runtime| runtime.block_on(readers.acquire_owned()).ok())
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
        let games = count_games(text.as_bytes()).map_err(|e| ApiError::new(400, e.to_string()))?;
        if games == 0 {
            return Err(ApiError::new(400, "no complete game in the text"));
        }
        let mut counter = self.uploaded.lock().expect("upload lock");
        *counter += 1;
        let id = format!("u{counter}");
        let name: String = name.chars().filter(|c| !c.is_control()).take(80).collect();
        let mut uploads = self.uploads.lock().expect("uploads lock");
        let mut kept: usize = uploads.iter().map(|(_, _, t)| t.len()).sum();
        while !uploads.is_empty()
            && (uploads.len() >= MAX_UPLOADS || kept + text.len() > MAX_UPLOADED_BYTES)
        {
            kept -= uploads.pop_front().map_or(0, |(_, _, t)| t.len());
        }
        uploads.push_back((id.clone(), name, Arc::new(text)));
        Ok(json!({"id": id, "games": games}))
    }

    /// A source read a line at a time: a named file (opened now, so a
    /// growing file shows its new games; only a regular file) or an
    /// upload. Whether a file was cut at [`MAX_RECORDS_BYTES`] is known
    /// once it was read (`Source::cut`).
    pub fn open(&self, id: &str) -> Result<Source, ApiError> {
        let missing = || ApiError::new(404, format!("no records '{id}'"));
        if let Some(index) = id.strip_prefix('f') {
            let index: usize = index.parse().map_err(|_| missing())?;
            let path = self.files.get(index).ok_or_else(missing)?;
            let (file, _) = open_regular(path).map_err(|e| file_error(path, e))?;
            return Ok(Source::File(BufReader::new(file.take(MAX_RECORDS_BYTES))));
        }
        let uploads = self.uploads.lock().expect("uploads lock");
        uploads
            .iter()
            .find(|(u, _, _)| u == id)
            .map(|(_, _, text)| Source::Upload(Cursor::new(SharedText(text.clone()))))
            .ok_or_else(missing)
    }

    pub fn path(&self, id: &str) -> Option<&PathBuf> {
        let index: usize = id.strip_prefix('f')?.parse().ok()?;
        self.files.get(index)
    }
}

/// An upload's text, shared with the list of uploads while it is read.
pub struct SharedText(Arc<String>);

impl AsRef<[u8]> for SharedText {
    fn as_ref(&self) -> &[u8] {
        self.0.as_bytes()
    }
}

/// Records being read, a line at a time.
pub enum Source {
    File(BufReader<std::io::Take<File>>),
    Upload(Cursor<SharedText>),
}

impl Source {
    fn reader(&mut self) -> &mut dyn BufRead {
        match self {
            Source::File(r) => r,
            Source::Upload(r) => r,
        }
    }

    /// Whether a file was read up to [`MAX_RECORDS_BYTES`] and not beyond.
    fn cut(&self) -> bool {
        matches!(self, Source::File(r) if r.get_ref().limit() == 0)
    }

    /// The complete games, one at a time, each handed to `each` (which
    /// says whether to go on); a malformed game is an error.
    fn each_game(&mut self, mut each: impl FnMut(GameRecord) -> bool) -> Result<(), ApiError> {
        let mut reader = RecordReader::default();
        let mut line = String::new();
        loop {
            line.clear();
            let read = self
                .reader()
                .read_line(&mut line)
                .map_err(|e| ApiError::new(500, format!("reading the records: {e}")))?;
            if read == 0 {
                return Ok(());
            }
            let text = line.trim_end_matches(['\n', '\r']);
            match reader.line(text) {
                Ok(Some(game)) => {
                    if !each(game) {
                        return Ok(());
                    }
                }
                Ok(None) => {}
                Err(e) => return Err(ApiError::new(422, e.to_string())),
            }
        }
    }
}

/// What identifies a file's content: a rewrite (another inode, or a
/// shorter length) means it must be read again from its start.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct FileIdentity {
    pub device: u64,
    pub inode: u64,
    pub length: u64,
}

/// Opens `path` only if it is a regular file: without blocking on a FIFO
/// (opened non-blocking, then refused), never a device.
pub fn open_regular(path: &Path) -> std::io::Result<(File, FileIdentity)> {
    let file = std::fs::OpenOptions::new()
        .read(true)
        .custom_flags(libc::O_NONBLOCK)
        .open(path)?;
    let meta = file.metadata()?;
    if !meta.file_type().is_file() {
        return Err(std::io::Error::new(
            std::io::ErrorKind::InvalidInput,
            "not a regular file",
        ));
    }
    let identity = FileIdentity {
        device: meta.dev(),
        inode: meta.ino(),
        length: meta.len(),
    };
    Ok((file, identity))
}

fn file_error(path: &Path, e: std::io::Error) -> ApiError {
    let status = if e.kind() == std::io::ErrorKind::InvalidInput {
        409
    } else {
        500
    };
    ApiError::new(status, format!("{}: {e}", path.display()))
}

/// Up to 4 MiB of a regular file from `offset`, cut after its last
/// complete line; the offset after that line, and the file's identity.
pub fn read_file_from(path: &Path, offset: u64) -> std::io::Result<(String, u64, FileIdentity)> {
    const CHUNK: u64 = 4 << 20;
    let (mut file, identity) = open_regular(path)?;
    file.seek(SeekFrom::Start(offset))?;
    let mut bytes = Vec::new();
    file.take(CHUNK).read_to_end(&mut bytes)?;
    let complete = bytes.iter().rposition(|&b| b == b'\n').map_or(0, |i| i + 1);
    bytes.truncate(complete);
    let text = String::from_utf8_lossy(&bytes).into_owned();
    Ok((text, offset + complete as u64, identity))
}

/// The number of complete games in a text, read a line at a time.
fn count_games(text: &[u8]) -> anyhow::Result<usize> {
    let mut reader = RecordReader::default();
    let mut games = 0;
    for line in text.lines() {
        if reader.line(&line?)?.is_some() {
            games += 1;
        }
    }
    Ok(games)
}

/// The game list of a source and, for a match's records, its standings
/// (a second reading: `again` opens the source anew), as JSON text. Read
/// and written a game at a time, so it costs the answer's text, not the
/// records' text nor a tree of values per game.
pub fn list_json(
    mut source: Source,
    again: impl FnOnce() -> Result<Source, ApiError>,
) -> Result<String, ApiError> {
    let mut games = String::from("[");
    let mut count = 0;
    source.each_game(|game| {
        if count > 0 {
            games.push(',');
        }
        games.push_str(&summary_json(count, &game).to_string());
        count += 1;
        true
    })?;
    games.push(']');
    let cut = source.cut();
    let standings = standings_json(again()?);
    Ok(format!(
        r#"{{"games":{games},"standings":{standings},"cut":{cut}}}"#
    ))
}

/// Game `n` of a source for Review, read up to it.
pub fn nth_game_json(mut source: Source, n: usize, id: &str) -> Result<Value, ApiError> {
    let mut seen = 0;
    let mut found = None;
    source.each_game(|game| {
        if seen == n {
            found = Some(game);
            return false;
        }
        seen += 1;
        true
    })?;
    match found {
        Some(game) => game_json(game, n),
        None => Err(ApiError::new(
            404,
            format!("no game {n}: '{id}' holds {seen}"),
        )),
    }
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

/// The standings of a records file (null when it cannot be read).
pub fn file_standings(path: &Path) -> Value {
    match open_regular(path) {
        Ok((file, _)) => standings_json(Source::File(BufReader::new(file.take(MAX_RECORDS_BYTES)))),
        Err(_) => Value::Null,
    }
}

/// Everyone's points and rating, best first, by the match runner's own
/// rescoring (a line at a time); null when the records are not a match's
/// (no White/Black tags).
pub fn standings_json(mut source: Source) -> Value {
    let input: Box<dyn BufRead + '_> = Box::new(source.reader());
    let Ok(tallies) = rescore_inputs(vec![("records".to_string(), input)]) else {
        return Value::Null;
    };
    let rows: Vec<Value> = standings(&names(&tallies), &tallies, None)
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

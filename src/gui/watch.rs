//! Watch: follows a records file that a `yote match --pgn FILE` appends to,
//! and the sidecar `FILE.live` in which the runner publishes its games in
//! progress (`client::live`). The stream sends each finished game as it
//! lands, the standings after them, and the boards of the running games
//! whenever the sidecar changes. Everything it keeps is bounded: the
//! reader's state, the last finished game numbers, the last sidecar text.
//! Only regular files are read (a FIFO would block the reading thread for
//! ever), and a file rewritten in place (another inode, or shorter than
//! what was read) is read again from its start after a `reset` event.

use super::board::{self, board_json};
use super::engines::ApiError;
use super::live::{self, event_text};
use super::records::{self, FileIdentity, open_regular, read_file_from, summary_json};
use super::routes::Reply;
use super::server::AppState;
use crate::client::live::{sidecar_path, unix_ms};
use crate::client::records::{GameRecord, RecordReader};
use crate::rules::Player;
use serde_json::{Value, json};
use std::collections::VecDeque;
use std::io::Read;
use std::path::{Path, PathBuf};
use std::thread;
use std::time::{Duration, Instant};
use tokio::sync::mpsc::{self, Sender};

/// Games a watch stream sends at its start (the latest); the page keeps
/// no more than this many either.
pub const WATCH_BACKLOG: usize = 200;

/// How often a watched file and its sidecar are looked at.
const WATCH_POLL: Duration = Duration::from_millis(300);

/// Running games shown at most (the match's concurrency, normally far
/// fewer); and the most of the sidecar read.
pub const MAX_LIVE_GAMES: usize = 32;
const MAX_SIDECAR_BYTES: u64 = 4 << 20;

/// Finished game numbers remembered, so a game the sidecar still lists
/// just after it was recorded is not shown as running again.
const RECENTLY_FINISHED: usize = 256;

/// `GET /api/watch?records=fK`: the stream, or why not.
pub fn watch(state: &AppState, id: Option<&str>) -> Reply {
    let id = id.unwrap_or("");
    let Some(path) = state.records.path(id).cloned() else {
        return Reply::Error(ApiError::new(
            404,
            format!("no records file '{id}' to watch (give one with --records)"),
        ));
    };
    if live::open_streams() >= live::MAX_STREAMS {
        return Reply::Error(ApiError::new(503, "too many live streams open"));
    }
    let (tx, rx) = mpsc::channel(64);
    thread::spawn(move || Watcher::new(path).follow(&tx));
    Reply::Stream(rx, None, None)
}

struct Watcher {
    path: PathBuf,
    sidecar: PathBuf,
    reader: RecordReader,
    offset: u64,
    /// Games read from the file so far.
    count: usize,
    /// The latest finished games' run and number.
    finished: VecDeque<(String, u64)>,
    /// The sidecar's text when last sent.
    live_text: String,
    /// The file read so far, to tell a rewrite from growth.
    identity: Option<FileIdentity>,
}

/// The tab went away (its stream's queue is closed).
struct Gone;

impl Watcher {
    fn new(path: PathBuf) -> Watcher {
        Watcher {
            sidecar: sidecar_path(&path),
            path,
            reader: RecordReader::default(),
            offset: 0,
            count: 0,
            finished: VecDeque::new(),
            live_text: String::new(),
            identity: None,
        }
    }

    /// Looks at the file and the sidecar every [`WATCH_POLL`] until the
    /// tab goes away or the file cannot be read.
    fn follow(mut self, tx: &Sender<String>) {
        let mut first = true;
        let mut last_beat = Instant::now();
        loop {
            let Ok(sent) = self.finished_games(tx, first) else {
                return;
            };
            let Ok(changed) = self.live_games(tx) else {
                return;
            };
            if sent || changed || first {
                last_beat = Instant::now();
            } else if last_beat.elapsed() > Duration::from_secs(10) {
                // Finds a tab that went away while the match is quiet.
                if tx.blocking_send(": idle\n\n".to_string()).is_err() {
                    return;
                }
                last_beat = Instant::now();
            }
            first = false;
            thread::sleep(WATCH_POLL);
        }
    }

    /// Sends the games appended since the last look (only the latest
    /// [`WATCH_BACKLOG`] at the first), then the standings. Whether any
    /// was sent; a file that cannot be read is said on the stream and
    /// ends it.
    fn finished_games(&mut self, tx: &Sender<String>, mut first: bool) -> Result<bool, Gone> {
        if self.rewritten() {
            send(
                tx,
                "reset",
                &json!({"reason": "the records file was rewritten"}),
            )?;
            *self = Watcher::new(self.path.clone());
            first = true;
        }
        let (text, next, identity) = match read_file_from(&self.path, self.offset) {
            Ok(read) => read,
            Err(e) => {
                let error = json!({"error": format!("{}: {e}", self.path.display())});
                let _ = tx.blocking_send(event_text("error", &error));
                return Err(Gone);
            }
        };
        self.offset = next;
        self.identity = Some(identity);
        let new_games = self.read_lines(&text, tx)?;
        let skip = if first {
            new_games.len().saturating_sub(WATCH_BACKLOG)
        } else {
            0
        };
        for (i, game) in new_games.iter().enumerate().skip(skip) {
            let latest = i + 1 == new_games.len();
            send(tx, "game", &game_event(self.count + i, game, latest))?;
        }
        for game in &new_games {
            if let Some(number) = game.tag("Game").and_then(|n| n.parse().ok()) {
                if self.finished.len() == RECENTLY_FINISHED {
                    self.finished.pop_front();
                }
                let run = game.tag("Run").unwrap_or("").to_string();
                self.finished.push_back((run, number));
            }
        }
        self.count += new_games.len();
        if new_games.is_empty() && !first {
            return Ok(false);
        }
        let standings = records::file_standings(&self.path);
        let data = json!({"games": self.count, "standings": standings});
        send(tx, "standings", &data)?;
        Ok(!new_games.is_empty())
    }

    /// Whether the file is no longer the one read so far: another file in
    /// its place, or shorter than the offset reached.
    fn rewritten(&self) -> bool {
        let Some(read) = self.identity else {
            return false;
        };
        match open_regular(&self.path) {
            Ok((_, now)) => {
                (now.device, now.inode) != (read.device, read.inode) || now.length < self.offset
            }
            Err(_) => false,
        }
    }

    /// The complete games in `text`; a malformed one is said on the
    /// stream and reading starts afresh after it.
    fn read_lines(&mut self, text: &str, tx: &Sender<String>) -> Result<Vec<GameRecord>, Gone> {
        let mut games = Vec::new();
        for line in text.lines() {
            match self.reader.line(line) {
                Ok(Some(game)) => games.push(game),
                Ok(None) => {}
                Err(e) => {
                    send(tx, "error", &json!({"error": e.to_string()}))?;
                    self.reader = RecordReader::default();
                }
            }
        }
        Ok(games)
    }

    /// Sends the running games when the sidecar changed (none once it is
    /// gone: the match ended). Whether it changed.
    fn live_games(&mut self, tx: &Sender<String>) -> Result<bool, Gone> {
        let text = read_sidecar(&self.sidecar);
        if text == self.live_text {
            return Ok(false);
        }
        let games = live_games_json(&text, &self.finished);
        self.live_text = text;
        send(tx, "live", &json!({ "games": games }))?;
        Ok(true)
    }
}

fn send(tx: &Sender<String>, event: &str, data: &Value) -> Result<(), Gone> {
    tx.blocking_send(event_text(event, data)).map_err(|_| Gone)
}

/// A finished game's row; the latest of a batch also carries its final
/// board, moves and how it ended, for the boards of the page.
fn game_event(index: usize, game: &GameRecord, latest: bool) -> Value {
    let mut event = summary_json(index, game);
    if latest && let Ok(full) = records::game_json(game.clone(), index) {
        event["final"] = full["boards"]
            .as_array()
            .and_then(|b| b.last().cloned())
            .unwrap_or(Value::Null);
        event["moves"] = json!(game.moves);
        event["end"] = full["end"].clone();
    }
    event
}

/// The sidecar's text, empty when there is none (no match running) or it
/// is not a regular file.
fn read_sidecar(path: &Path) -> String {
    let mut text = String::new();
    if let Ok((file, _)) = open_regular(path) {
        let _ = file.take(MAX_SIDECAR_BYTES).read_to_string(&mut text);
    }
    text
}

/// The running games of a sidecar text, each replayed by the rules to its
/// board: `game`, `white`, `black`, `variant`, `plies`, `last` (the last
/// move), `board`, or `error` when its line or moves do not replay, and
/// `clock` (see [`clock_json`]). Games already in the records (the same
/// run and number) are left out.
pub fn live_games_json(text: &str, finished: &VecDeque<(String, u64)>) -> Vec<Value> {
    text.lines()
        .filter(|line| !line.trim().is_empty())
        .filter_map(|line| {
            let game: Value = serde_json::from_str(line).ok()?;
            let number = game["game"].as_u64()?;
            let run = game["run"].as_str().unwrap_or("");
            let recorded = finished.iter().any(|(r, n)| *n == number && r == run);
            (!recorded).then(|| live_game_json(number, &game))
        })
        .take(MAX_LIVE_GAMES)
        .collect()
}

fn live_game_json(number: u64, game: &Value) -> Value {
    let text = |name: &str| game[name].as_str().unwrap_or("").to_string();
    let moves: Vec<String> = game["moves"]
        .as_array()
        .map(|m| {
            m.iter()
                .filter_map(|v| v.as_str().map(str::to_string))
                .collect()
        })
        .unwrap_or_default();
    let mut out = json!({
        "game": number,
        "white": text("white"),
        "black": text("black"),
        "variant": text("variant"),
        "plies": moves.len(),
        "last": moves.last(),
    });
    let fen = game["fen"].as_str();
    let mut to_move = None;
    match board::replay(&text("variant"), fen, &moves) {
        Ok(replayed) => {
            out["board"] = board_json(&replayed.rules, replayed.position());
            let over = replayed.game.status().is_some();
            to_move = (!over).then(|| replayed.position().side_to_move());
        }
        Err(e) => out["error"] = json!(e.to_string()),
    }
    out["clock"] = clock_json(game, to_move, unix_ms());
    out
}

/// The clocks of a sidecar line, as of `now` (ms since the Unix epoch):
/// `{"W": ms, "B": ms, "running": "W", "controls": {"W": "10+0.1", "B":
/// "10+0.1"}}`. A side whose control is no clock has null; the side to
/// move's clock is its reading less the time since the runner took it
/// (when its search started), and `running` names it (the page counts it
/// down from there). Null for a line without clocks (a runner before
/// them wrote none).
pub fn clock_json(game: &Value, to_move: Option<Player>, now: u64) -> Value {
    let Some(clock) = game["clock"].as_array().filter(|c| c.len() == 2) else {
        return Value::Null;
    };
    let at = game["clock_at"].as_u64().unwrap_or(now);
    let side = |p: Player| if p == Player::White { "W" } else { "B" };
    let running = to_move.filter(|p| clock[p.index()].is_u64());
    let mut left = [clock[0].as_u64(), clock[1].as_u64()];
    if let Some(p) = running {
        left[p.index()] = left[p.index()].map(|ms| ms.saturating_sub(now.saturating_sub(at)));
    }
    let control = |i: usize| game["controls"][i].as_str().map(str::to_string);
    json!({
        "W": left[0],
        "B": left[1],
        "running": running.map(side),
        "controls": {"W": control(0), "B": control(1)},
    })
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn clocks_of_a_sidecar_line_count_the_mover_down_and_old_lines_have_none() {
        let line = json!({
            "controls": ["10+0.1", "movetime=60"],
            "clock": [9_950, null],
            "clock_at": 1_000_000,
        });
        let clock = clock_json(&line, Some(Player::White), 1_000_400);
        assert_eq!(
            clock,
            json!({"W": 9_550, "B": null, "running": "W",
                   "controls": {"W": "10+0.1", "B": "movetime=60"}})
        );
        // Black to move has no clock: nothing runs, White's reading stays.
        let clock = clock_json(&line, Some(Player::Black), 1_000_400);
        assert_eq!(
            (clock["W"].as_u64(), &clock["running"]),
            (Some(9_950), &Value::Null)
        );
        // A reading older than the time left shows 0, not a wrap-around.
        assert_eq!(clock_json(&line, Some(Player::White), 2_000_000)["W"], 0);
        // A line of a runner before clocks: none, and the game still shows.
        let old = json!({"game": 1, "white": "a", "black": "b", "variant": "standard",
                         "fen": "", "moves": ["@c3"]});
        assert_eq!(clock_json(&old, Some(Player::Black), 5), Value::Null);
        let shown = live_game_json(1, &old);
        assert_eq!(
            (shown["plies"].as_u64(), &shown["clock"]),
            (Some(1), &Value::Null)
        );
        assert!(shown["board"].is_object(), "{shown}");
    }
}

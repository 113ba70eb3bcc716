//! The games in progress, published beside the records file: `FILE.live`
//! holds one JSON line per running game (its number and run, as the
//! records' `Game` and `Run` tags will say, players, variant, start
//! position, moves so far, time controls and clocks), so a viewer
//! (`yote gui`'s Watch) can show boards that are still being played. The
//! records file itself only ever receives finished games.
//!
//! Workers only note moves in memory (a lock and a push per ply); the
//! runner's collecting thread rewrites the file — a temporary file renamed
//! over it, so a reader never sees half of it — at most every
//! [`INTERVAL`], without holding the workers' lock while it writes (a ply
//! of a fast game takes less than a millisecond; a worker must not wait on
//! the disk), and removes it when the match ends.

use serde_json::json;
use std::collections::BTreeMap;
use std::ffi::OsString;
use std::path::{Path, PathBuf};
use std::sync::Mutex;
use std::time::{Duration, Instant, SystemTime, UNIX_EPOCH};

/// The shortest time between two rewrites of the sidecar. Viewers look
/// about this often (`yote gui` every 300 ms); at 100 ms the renames cost
/// a 300-nodes-a-move match 9% of its games per second (docs/match.md).
pub const INTERVAL: Duration = Duration::from_millis(250);

/// `FILE.live` for the records file `FILE`.
pub fn sidecar_path(records: &Path) -> PathBuf {
    let mut name = OsString::from(records.as_os_str());
    name.push(".live");
    PathBuf::from(name)
}

/// Both clocks, White's then Black's: ms left, None for a side whose time
/// control is not a clock.
pub type ClockReading = [Option<u64>; 2];

struct LiveGame {
    white: String,
    black: String,
    start: String,
    moves: Vec<String>,
    /// Each side's time control as the match names it (`10+0.1`,
    /// `movetime=60`).
    controls: [String; 2],
    /// Each side's clock (ms left; None when its control is no clock) as
    /// the side to move started thinking, and when that was (ms since the
    /// Unix epoch): a viewer counts the mover's clock down from there.
    clock: ClockReading,
    clock_at: u64,
}

/// Now, in ms since the Unix epoch (the clock readings' time base, shared
/// by the runner and a viewer on the same machine).
pub fn unix_ms() -> u64 {
    SystemTime::now()
        .duration_since(UNIX_EPOCH)
        .map_or(0, |d| d.as_millis() as u64)
}

#[derive(Default)]
struct State {
    games: BTreeMap<usize, LiveGame>,
    dirty: bool,
    written: Option<Instant>,
    failed: bool,
}

/// The running games of one match and their sidecar file; the file is
/// removed when this is dropped (the match ended, was interrupted or
/// failed).
pub struct LiveGames {
    path: PathBuf,
    run: String,
    variant: String,
    state: Mutex<State>,
}

impl LiveGames {
    /// Starts with an empty sidecar, replacing one a killed run left.
    pub fn new(records: &Path, run: String, variant: String) -> LiveGames {
        let live = LiveGames {
            path: sidecar_path(records),
            run,
            variant,
            state: Mutex::new(State {
                dirty: true,
                ..State::default()
            }),
        };
        live.flush(true);
        live
    }

    pub fn path(&self) -> &Path {
        &self.path
    }

    /// A game starts: `number` as the records' `Game` tag, `start` the
    /// position text its moves are played from, `controls` White's and
    /// Black's time controls.
    pub fn begin(
        &self,
        number: usize,
        white: &str,
        black: &str,
        start: String,
        controls: [String; 2],
    ) {
        let mut state = self.state.lock().expect("live games lock");
        state.games.insert(
            number,
            LiveGame {
                white: white.to_string(),
                black: black.to_string(),
                start,
                moves: Vec::new(),
                controls,
                clock: [None, None],
                clock_at: unix_ms(),
            },
        );
        state.dirty = true;
    }

    /// The game's moves so far (only the ones not yet known are copied)
    /// and both clocks now, as the next move's search starts.
    pub fn moves(&self, number: usize, moves: &[String], clock: ClockReading) {
        let mut state = self.state.lock().expect("live games lock");
        if let Some(game) = state.games.get_mut(&number) {
            let known = game.moves.len().min(moves.len());
            game.moves.extend_from_slice(&moves[known..]);
            game.clock = clock;
            game.clock_at = unix_ms();
            state.dirty = true;
        }
    }

    /// The game is over (recorded) or abandoned.
    pub fn end(&self, number: usize) {
        let mut state = self.state.lock().expect("live games lock");
        if state.games.remove(&number).is_some() {
            state.dirty = true;
        }
    }

    /// Rewrites the sidecar when something changed and [`INTERVAL`] has
    /// passed since the last rewrite (at once with `now`). A failure to
    /// write is logged once and does not stop the match.
    pub fn flush(&self, now: bool) {
        let mut state = self.state.lock().expect("live games lock");
        let due = now || state.written.is_none_or(|t| t.elapsed() >= INTERVAL);
        if !state.dirty || !due {
            return;
        }
        let text = self.text(&state);
        state.dirty = false;
        state.written = Some(Instant::now());
        let warned = state.failed;
        // The workers note moves meanwhile: the file is written unlocked
        // (only the runner's collecting thread flushes).
        drop(state);
        if let Err(e) = crate::textfile::write_atomically(&self.path, &text) {
            self.state.lock().expect("live games lock").failed = true;
            if !warned {
                log::warn!(
                    "{}: {e}; games in progress are not shown",
                    self.path.display()
                );
            }
        }
    }

    fn text(&self, state: &State) -> String {
        let mut text = String::new();
        for (number, game) in &state.games {
            let line = json!({
                "game": number,
                "run": self.run,
                "white": game.white,
                "black": game.black,
                "variant": self.variant,
                "fen": game.start,
                "moves": game.moves,
                "controls": game.controls,
                "clock": game.clock,
                "clock_at": game.clock_at,
            });
            text.push_str(&line.to_string());
            text.push('\n');
        }
        text
    }
}

impl Drop for LiveGames {
    fn drop(&mut self) {
        let _ = std::fs::remove_file(&self.path);
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn the_sidecar_holds_running_games_and_goes_at_the_end() {
        let dir = std::env::temp_dir().join(format!("yote-live-{}", std::process::id()));
        std::fs::create_dir_all(&dir).unwrap();
        let records = dir.join("m.pgn");
        let sidecar = sidecar_path(&records);
        assert_eq!(sidecar, dir.join("m.pgn.live"));
        {
            let live = LiveGames::new(&records, "r1".into(), "standard".into());
            assert_eq!(std::fs::read_to_string(&sidecar).unwrap(), "");
            let controls = ["10+0.1".to_string(), "movetime=60".to_string()];
            live.begin(3, "a", "b", "start".into(), controls);
            live.moves(3, &["@c3".into()], [Some(9_950), None]);
            let before = unix_ms();
            live.moves(3, &["@c3".into(), "@d4".into()], [Some(9_950), None]);
            live.flush(true);
            let text = std::fs::read_to_string(&sidecar).unwrap();
            let line: serde_json::Value = serde_json::from_str(text.trim()).unwrap();
            assert_eq!(line["game"], 3);
            assert_eq!(line["run"], "r1");
            assert_eq!(line["white"], "a");
            assert_eq!(line["moves"], json!(["@c3", "@d4"]));
            assert_eq!(line["controls"], json!(["10+0.1", "movetime=60"]));
            assert_eq!(line["clock"], json!([9_950, null]));
            let at = line["clock_at"].as_u64().unwrap();
            assert!(before <= at && at <= unix_ms(), "{before} {at}");
            // Within the interval nothing is rewritten; `now` forces it.
            live.end(3);
            live.flush(false);
            assert_eq!(std::fs::read_to_string(&sidecar).unwrap(), text);
            live.flush(true);
            assert_eq!(std::fs::read_to_string(&sidecar).unwrap(), "");
        }
        assert!(!sidecar.exists());
        std::fs::remove_dir_all(&dir).unwrap();
    }
}

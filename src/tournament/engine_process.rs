//! One engine as a child process: spawn, line I/O with deadlines, the
//! UGI/UCI handshake, rule options and the start-position check.
//!
//! A reader thread turns the engine's stdout into timestamped events on a
//! channel, so that every wait here has a deadline and a hung engine can never
//! block the runner. Nothing an engine says is trusted beyond the protocol
//! tokens the runner needs; unknown lines are skipped, as GUIs do.

use crate::rules::{Position, Rules, Variant};
use std::fmt;
use std::io::{BufRead, BufReader, Write};
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError};
use std::thread;
use std::time::{Duration, Instant};

/// The protocol dialect: decides the handshake word and the clock tokens.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum Dialect {
    Ugi,
    Uci,
}

impl Dialect {
    pub fn name(self) -> &'static str {
        match self {
            Dialect::Ugi => "ugi",
            Dialect::Uci => "uci",
        }
    }
}

/// How to start and set up one engine.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct EngineConfig {
    pub name: String,
    pub program: String,
    pub args: Vec<String>,
    pub dir: Option<PathBuf>,
    pub dialect: Dialect,
    /// `setoption` pairs, sent in this order after the rule options, so a
    /// user can override anything, `Variant` included.
    pub options: Vec<(String, String)>,
}

/// Why talking to an engine failed. Each maps to a game forfeit reason.
#[derive(Clone, Debug, PartialEq, Eq)]
pub enum EngineError {
    Spawn(String),
    /// The process exited or closed its output.
    Crashed(String),
    /// No answer before the deadline; `waiting_for` says what was expected.
    Timeout {
        waiting_for: &'static str,
        waited_ms: u128,
    },
    /// Output that is not text (not UTF-8 or with control bytes).
    Garbage(String),
    /// The engine's start position differs from the runner's.
    VariantMismatch {
        expected: String,
        reported: String,
    },
}

impl fmt::Display for EngineError {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        match self {
            EngineError::Spawn(e) => write!(f, "could not start: {e}"),
            EngineError::Crashed(e) => write!(f, "crashed: {e}"),
            EngineError::Timeout {
                waiting_for,
                waited_ms,
            } => write!(f, "no {waiting_for} within {waited_ms} ms"),
            EngineError::Garbage(e) => write!(f, "sent garbage: {e}"),
            EngineError::VariantMismatch { expected, reported } => write!(
                f,
                "reports start position '{reported}', the runner's rules give '{expected}'"
            ),
        }
    }
}

impl std::error::Error for EngineError {}

/// What the reader thread saw.
enum Event {
    Line(String, Instant),
    Garbage(String),
    Closed,
}

/// The answer to one `go`.
#[derive(Clone, Debug)]
pub struct Reply {
    /// The tokens after `bestmove`, possibly none.
    pub tokens: Vec<String>,
    /// The last score the engine reported, in centipawns from the mover's
    /// point of view (mate scores as ±100 000).
    pub score: Option<i32>,
    pub elapsed: Duration,
}

pub const MATE_SCORE: i32 = 100_000;

pub struct EngineProcess {
    pub config: EngineConfig,
    child: Child,
    stdin: ChildStdin,
    events: Receiver<Event>,
}

impl EngineProcess {
    /// Spawns the engine and runs the handshake, rule setup and checks.
    pub fn start(
        config: &EngineConfig,
        rules: &Rules,
        timeout: Duration,
    ) -> Result<EngineProcess, EngineError> {
        let mut engine = EngineProcess::spawn(config)?;
        engine.handshake(timeout)?;
        engine.configure(rules, timeout)?;
        Ok(engine)
    }

    fn spawn(config: &EngineConfig) -> Result<EngineProcess, EngineError> {
        let mut command = Command::new(&config.program);
        command
            .args(&config.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // Engine logs would garble the progress line; they are not needed
            // to referee.
            .stderr(Stdio::null());
        if let Some(dir) = &config.dir {
            command.current_dir(dir);
        }
        let mut child = command
            .spawn()
            .map_err(|e| EngineError::Spawn(format!("{}: {e}", config.program)))?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, events) = mpsc::channel();
        thread::spawn(move || read_lines(BufReader::new(stdout), tx));
        Ok(EngineProcess {
            config: config.clone(),
            child,
            stdin,
            events,
        })
    }

    pub fn dialect(&self) -> Dialect {
        self.config.dialect
    }

    pub fn send(&mut self, line: &str) -> Result<(), EngineError> {
        log::trace!("{} < {line}", self.config.name);
        let written = self
            .stdin
            .write_all(line.as_bytes())
            .and_then(|_| self.stdin.write_all(b"\n"))
            .and_then(|_| self.stdin.flush());
        written.map_err(|e| self.crashed(&format!("writing failed ({e})")))
    }

    /// The next line, or an error at `deadline`.
    fn recv(
        &mut self,
        deadline: Instant,
        waiting_for: &'static str,
        started: Instant,
    ) -> Result<(String, Instant), EngineError> {
        let left = deadline.saturating_duration_since(Instant::now());
        match self.events.recv_timeout(left) {
            Ok(Event::Line(line, at)) => {
                log::trace!("{} > {line}", self.config.name);
                Ok((line, at))
            }
            Ok(Event::Garbage(what)) => Err(EngineError::Garbage(what)),
            Ok(Event::Closed) | Err(RecvTimeoutError::Disconnected) => {
                Err(self.crashed("its output closed"))
            }
            Err(RecvTimeoutError::Timeout) => Err(EngineError::Timeout {
                waiting_for,
                waited_ms: started.elapsed().as_millis(),
            }),
        }
    }

    /// Reads lines until one equals `word`, returning those before it.
    fn expect(
        &mut self,
        word: &'static str,
        timeout: Duration,
    ) -> Result<Vec<String>, EngineError> {
        let started = Instant::now();
        let deadline = started + timeout;
        let mut seen = Vec::new();
        loop {
            let (line, _) = self.recv(deadline, word, started)?;
            if line.trim() == word {
                return Ok(seen);
            }
            seen.push(line);
        }
    }

    /// Crash details: the exit status if the process is already gone.
    fn crashed(&mut self, what: &str) -> EngineError {
        // A closed pipe usually means the process is exiting; give it a moment
        // so the status can be reported.
        for _ in 0..20 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return EngineError::Crashed(format!("{what}, {status}"));
            }
            thread::sleep(Duration::from_millis(5));
        }
        EngineError::Crashed(what.to_string())
    }

    fn handshake(&mut self, timeout: Duration) -> Result<(), EngineError> {
        let dialect = self.config.dialect;
        self.send(dialect.name())?;
        let ok = match dialect {
            Dialect::Ugi => "ugiok",
            Dialect::Uci => "uciok",
        };
        self.expect(ok, timeout).map(|_| ())
    }

    /// Sets the rules and the user's options, then checks the engine's start
    /// position against the runner's.
    fn configure(&mut self, rules: &Rules, timeout: Duration) -> Result<(), EngineError> {
        for (name, value) in rule_options(rules.variant()) {
            self.send(&format!("setoption name {name} value {value}"))?;
        }
        for (name, value) in self.config.options.clone() {
            self.send(&format!("setoption name {name} value {value}"))?;
        }
        self.send("isready")?;
        let mut lines = self.expect("readyok", timeout)?;
        if self.config.dialect == Dialect::Ugi {
            // Engines without UGI queries answer with an info line or nothing.
            self.send("position startpos")?;
            self.send("query fen")?;
            self.send("isready")?;
            lines.extend(self.expect("readyok", timeout)?);
        }
        self.check_start(rules, &lines)
    }

    /// The start position the engine reports must be the runner's: the last
    /// `info string variant …` line (earlier ones describe the rules half
    /// set, between two `setoption`s) and the `response` to `query fen`.
    /// Silence is accepted, since not every engine reports; a board of
    /// another size, which does not even parse here, is a mismatch.
    fn check_start(&self, rules: &Rules, lines: &[String]) -> Result<(), EngineError> {
        let expected = rules.start_position();
        let mismatch = |reported: String| EngineError::VariantMismatch {
            expected: rules.position_text(&expected),
            reported,
        };
        let last_variant = lines
            .iter()
            .rev()
            .find(|l| l.to_ascii_lowercase().starts_with("info string variant"));
        let responses = lines.iter().filter(|l| l.starts_with("response "));
        let mut checked = false;
        for line in last_variant.into_iter().chain(responses) {
            match find_position(rules, line) {
                Some((pos, text)) if !same_position(rules, &pos, &expected) => {
                    return Err(mismatch(text));
                }
                Some(_) => checked = true,
                None if line.split_whitespace().any(|t| t.contains('/')) => {
                    return Err(mismatch(line.clone()));
                }
                None => {}
            }
        }
        if !checked {
            log::warn!(
                "{} did not report its start position; variant not checked",
                self.config.name
            );
        }
        Ok(())
    }

    /// `ucinewgame`/`uginewgame` and wait until the engine is ready.
    pub fn new_game(&mut self, timeout: Duration) -> Result<(), EngineError> {
        let word = match self.config.dialect {
            Dialect::Ugi => "uginewgame",
            Dialect::Uci => "ucinewgame",
        };
        self.send(word)?;
        self.send("isready")?;
        self.expect("readyok", timeout).map(|_| ())
    }

    /// Sends the position and the `go` command, then waits for `bestmove`
    /// until `deadline`.
    pub fn go(
        &mut self,
        position: &str,
        go: &str,
        deadline: Instant,
    ) -> Result<Reply, EngineError> {
        self.send(position)?;
        self.send(go)?;
        let started = Instant::now();
        let mut score = None;
        loop {
            let (line, at) = self.recv(deadline, "bestmove", started)?;
            let mut tokens = line.split_whitespace();
            match tokens.next() {
                Some("bestmove") => {
                    return Ok(Reply {
                        tokens: tokens.map(str::to_string).collect(),
                        score,
                        elapsed: at.saturating_duration_since(started),
                    });
                }
                Some("info") => score = parse_score(&line).or(score),
                _ => {}
            }
        }
    }

    /// Asks the engine to quit, and kills it if it does not promptly.
    pub fn quit(mut self) {
        let _ = self.send("quit");
        for _ in 0..20 {
            if let Ok(Some(_)) = self.child.try_wait() {
                return;
            }
            thread::sleep(Duration::from_millis(5));
        }
    }
}

impl Drop for EngineProcess {
    fn drop(&mut self) {
        // Reap the process so no zombie or runaway search is left behind.
        if let Ok(None) = self.child.try_wait() {
            let _ = self.child.kill();
        }
        let _ = self.child.wait();
    }
}

fn read_lines(mut reader: impl BufRead, tx: mpsc::Sender<Event>) {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        match reader.read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => {
                let _ = tx.send(Event::Closed);
                return;
            }
            Ok(_) => {
                let at = Instant::now();
                let event = match String::from_utf8(buf.clone()) {
                    Ok(text) if !has_control_bytes(&text) => {
                        Event::Line(text.trim_end_matches(['\n', '\r']).to_string(), at)
                    }
                    _ => Event::Garbage(format!(
                        "non-text line {:?}",
                        String::from_utf8_lossy(&buf).trim_end()
                    )),
                };
                if tx.send(event).is_err() {
                    return;
                }
            }
        }
    }
}

fn has_control_bytes(text: &str) -> bool {
    text.trim_end_matches(['\n', '\r'])
        .chars()
        .any(|c| c.is_control() && c != '\t')
}

/// `score cp N` or `score mate N` in an info line, from the mover's side.
pub fn parse_score(line: &str) -> Option<i32> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let at = tokens.iter().position(|&t| t == "score")?;
    let value: i32 = tokens.get(at + 2)?.parse().ok()?;
    match *tokens.get(at + 1)? {
        "cp" => Some(value),
        "mate" if value > 0 => Some(MATE_SCORE),
        "mate" => Some(-MATE_SCORE),
        _ => None,
    }
}

/// The first run of 6 (or 4) whitespace-separated tokens of `line` that is a
/// position text of `rules`.
fn find_position(rules: &Rules, line: &str) -> Option<(Position, String)> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    for width in [6, 4] {
        for window in tokens.windows(width) {
            let text = window.join(" ");
            if let Ok(pos) = rules.parse_position(&text) {
                return Some((pos, text));
            }
        }
    }
    None
}

/// Equal as game states: board, hands and side to move; the counters do not
/// matter.
fn same_position(rules: &Rules, a: &Position, b: &Position) -> bool {
    let state = |p: &Position| {
        let text = rules.position_text(p);
        text.split_whitespace()
            .take(4)
            .collect::<Vec<_>>()
            .join(" ")
    };
    state(a) == state(b)
}

/// The protocol's rule options for a variant: the preset by name when it is
/// one, else `standard` followed by every rule that differs from it.
pub fn rule_options(variant: &Variant) -> Vec<(&'static str, String)> {
    if let Some(name) = variant.preset_name() {
        return vec![("Variant", name.to_string())];
    }
    let base = Variant::STANDARD;
    let v = variant;
    let all: [(&'static str, String, bool); 14] = [
        ("Rows", v.rows.to_string(), v.rows != base.rows),
        ("Columns", v.cols.to_string(), v.cols != base.cols),
        ("Pieces", v.pieces.to_string(), v.pieces != base.pieces),
        ("Removal", v.removal.to_string(), v.removal != base.removal),
        ("WinCondition", v.win.to_string(), v.win != base.win),
        (
            "NoMoves",
            v.no_moves.to_string(),
            v.no_moves != base.no_moves,
        ),
        flag("MandatoryCapture", v.mandatory_capture),
        flag("MultiJump", v.multi_jump),
        flag("BonusTurn", v.bonus_turn),
        flag("JumpOwn", v.jump_own),
        flag("ThreeDraw", v.three_draw),
        (
            "NoCaptureDraw",
            v.no_capture_draw.to_string(),
            v.no_capture_draw != 0,
        ),
        (
            "NoCaptureOutcome",
            v.no_capture_outcome.to_string(),
            v.no_capture_outcome != base.no_capture_outcome,
        ),
        (
            "RepetitionDraw",
            v.repetition_draw.to_string(),
            v.repetition_draw != 0,
        ),
    ];
    let mut options = vec![("Variant", "standard".to_string())];
    options.extend(
        all.into_iter()
            .filter(|(_, _, differs)| *differs)
            .map(|(name, value, _)| (name, value)),
    );
    options
}

fn flag(name: &'static str, on: bool) -> (&'static str, String, bool) {
    (name, on.to_string(), on)
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn scores_are_read_from_info_lines() {
        assert_eq!(
            parse_score("info depth 3 score cp -42 nodes 10 pv @a1"),
            Some(-42)
        );
        assert_eq!(
            parse_score("info depth 9 score mate 3 pv @a1"),
            Some(MATE_SCORE)
        );
        assert_eq!(parse_score("info depth 9 score mate -2"), Some(-MATE_SCORE));
        assert_eq!(parse_score("info string hello"), None);
        assert_eq!(parse_score("info score cp"), None);
    }

    #[test]
    fn rule_options_name_presets_or_list_differences() {
        assert_eq!(
            rule_options(&Variant::preset("6x6").unwrap()),
            vec![("Variant", "6x6".to_string())]
        );
        let custom =
            Variant::from_spec("multi_jump=true,no_capture_draw=50,no_capture_outcome=more-pieces")
                .unwrap();
        assert_eq!(
            rule_options(&custom),
            vec![
                ("Variant", "standard".to_string()),
                ("MultiJump", "true".to_string()),
                ("NoCaptureDraw", "50".to_string()),
                ("NoCaptureOutcome", "more-pieces".to_string())
            ]
        );
    }

    #[test]
    fn positions_are_found_in_any_report_format() {
        let rules = Rules::standard();
        let found = find_position(
            &rules,
            "info string variant standard start 6/6/6/6/6 w 12 12 0 1",
        );
        assert_eq!(found.unwrap().1, "6/6/6/6/6 w 12 12 0 1");
        assert!(find_position(&rules, "response 6/6/6/6/6/6 w 12 12 0 1").is_none());
        assert!(find_position(&rules, "response 6/6/6/6/6 w 12 12").is_some());
    }
}

//! One engine as a child process: spawn, line I/O with deadlines, the
//! UGI/UCI handshake, rule options and the rules check.
//!
//! A reader thread turns the engine's stdout into timestamped events on a
//! bounded channel, so that every wait here has a deadline and a hostile
//! engine can neither block the runner nor make it buffer without bound:
//! lines are cut at [`MAX_LINE`] bytes (a longer one is garbage), at most
//! [`QUEUE`] lines wait (then the engine itself blocks on its pipe), and a
//! deadline fires however many lines keep arriving. Each engine runs in its
//! own process group, killed whole, so nothing it spawned outlives it.
//! Nothing an engine says is trusted beyond the protocol tokens the runner
//! needs; unknown lines are skipped, as GUIs do.

use super::clock::TimeControl;
use super::interrupt;
use crate::rules::{Position, Rules, Variant};
use std::fmt;
use std::fs::File;
use std::io::{BufRead, BufReader, LineWriter, Read, Write};
use std::os::unix::process::CommandExt;
use std::path::PathBuf;
use std::process::{Child, ChildStdin, Command, ExitStatus, Stdio};
use std::sync::atomic::{AtomicBool, Ordering};
use std::sync::mpsc::{self, Receiver, RecvTimeoutError, SyncSender, TryRecvError};
use std::thread;
use std::time::{Duration, Instant};

/// Longest line accepted from an engine, in bytes (UCI `info` lines with a
/// long PV are a few KB).
pub const MAX_LINE: usize = 64 * 1024;

/// Lines read ahead of the runner at most.
pub const QUEUE: usize = 1024;

/// How often a wait wakes to check whether the engine process has exited
/// and whether the runner was interrupted.
const POLL: Duration = Duration::from_millis(20);

/// How long an engine told to `stop` may take to answer `bestmove`.
pub const STOP_GRACE: Duration = Duration::from_secs(3);

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
    /// This engine's own time control (time odds); None for the match's.
    pub control: Option<TimeControl>,
    /// Where its stderr goes (`<name>.stderr`, appended) and, with
    /// `log_protocol`, every line exchanged (`<name>-<pid>.protocol`).
    pub log_dir: Option<PathBuf>,
    pub log_protocol: bool,
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
    /// Output that is not text (not UTF-8, control bytes, a line too long).
    Garbage(String),
    /// The engine's start position differs from the runner's.
    VariantMismatch {
        expected: String,
        reported: String,
    },
    /// The engine reports other rules than the runner's.
    RulesMismatch {
        expected: String,
        reported: String,
    },
    /// The engine has no such option or refused its value.
    BadOption {
        name: String,
        reason: String,
    },
    /// The runner got SIGINT or SIGTERM.
    Interrupted,
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
            EngineError::RulesMismatch { expected, reported } => write!(
                f,
                "reports rules '{reported}', the runner plays '{expected}'"
            ),
            EngineError::BadOption { name, reason } => write!(f, "option {name}: {reason}"),
            EngineError::Interrupted => f.write_str("interrupted"),
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
    /// point of view (mate scores as ±100 000, anything beyond saturated).
    pub score: Option<i32>,
    /// The last depth the engine reported.
    pub depth: Option<u32>,
    pub elapsed: Duration,
}

pub const MATE_SCORE: i32 = 100_000;

pub struct EngineProcess {
    pub config: EngineConfig,
    child: Child,
    stdin: ChildStdin,
    events: Receiver<Event>,
    /// Names of the options the engine announced at the handshake.
    advertised: Vec<String>,
    /// For the `isready` that precedes every `go`.
    ready_timeout: Duration,
    protocol_log: Option<LineWriter<File>>,
    born: Instant,
}

impl EngineProcess {
    /// Spawns the engine and runs the handshake, rule setup and checks.
    pub fn start(
        config: &EngineConfig,
        rules: &Rules,
        timeout: Duration,
    ) -> Result<EngineProcess, EngineError> {
        let mut engine = EngineProcess::spawn(config, timeout)?;
        engine.handshake(timeout)?;
        engine.configure(rules, timeout)?;
        Ok(engine)
    }

    fn spawn(config: &EngineConfig, ready_timeout: Duration) -> Result<EngineProcess, EngineError> {
        let spawn_error =
            |e: std::io::Error| EngineError::Spawn(format!("{}: {e}", config.program));
        let mut command = Command::new(&config.program);
        command
            .args(&config.args)
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // Its own group, so that killing it reaches what it spawned.
            .process_group(0);
        // Engine logs would garble the progress line; kept only on request.
        match &config.log_dir {
            Some(dir) => {
                let path = dir.join(format!("{}.stderr", config.name));
                let file = File::options()
                    .create(true)
                    .append(true)
                    .open(&path)
                    .map_err(spawn_error)?;
                command.stderr(file);
            }
            None => {
                command.stderr(Stdio::null());
            }
        }
        if let Some(dir) = &config.dir {
            command.current_dir(dir);
        }
        let mut child = command.spawn().map_err(spawn_error)?;
        let stdin = child.stdin.take().expect("stdin is piped");
        let stdout = child.stdout.take().expect("stdout is piped");
        let (tx, events) = mpsc::sync_channel(QUEUE);
        thread::spawn(move || read_lines(BufReader::new(stdout), tx));
        let protocol_log = match (&config.log_dir, config.log_protocol) {
            (Some(dir), true) => {
                let path = dir.join(format!("{}-{}.protocol", config.name, child.id()));
                Some(LineWriter::new(File::create(path).map_err(spawn_error)?))
            }
            _ => None,
        };
        Ok(EngineProcess {
            config: config.clone(),
            child,
            stdin,
            events,
            advertised: Vec::new(),
            ready_timeout,
            protocol_log,
            born: Instant::now(),
        })
    }

    pub fn dialect(&self) -> Dialect {
        self.config.dialect
    }

    fn log(&mut self, direction: char, line: &str) {
        log::trace!("{} {direction} {line}", self.config.name);
        if let Some(file) = &mut self.protocol_log {
            let ms = self.born.elapsed().as_millis();
            let _ = writeln!(file, "{ms:>9} {direction} {line}");
        }
    }

    pub fn send(&mut self, line: &str) -> Result<(), EngineError> {
        self.log('<', line);
        let written = self
            .stdin
            .write_all(line.as_bytes())
            .and_then(|_| self.stdin.write_all(b"\n"))
            .and_then(|_| self.stdin.flush());
        written.map_err(|e| self.crashed(&format!("writing failed ({e})")))
    }

    /// The next line, or an error at `deadline` however many lines are
    /// queued, as soon as the process has exited, or on interruption.
    fn recv(
        &mut self,
        deadline: Instant,
        waiting_for: &'static str,
        started: Instant,
    ) -> Result<(String, Instant), EngineError> {
        loop {
            if interrupt::requested() {
                return Err(EngineError::Interrupted);
            }
            let now = Instant::now();
            if now >= deadline {
                // A line read before the deadline still counts (the runner
                // may be late, not the engine); one read after it cannot,
                // however many more keep coming.
                return match self.events.try_recv() {
                    Ok(Event::Line(line, at)) if at < deadline => {
                        self.log('>', &line);
                        Ok((line, at))
                    }
                    Ok(Event::Garbage(what)) => Err(EngineError::Garbage(what)),
                    _ => Err(EngineError::Timeout {
                        waiting_for,
                        waited_ms: started.elapsed().as_millis(),
                    }),
                };
            }
            match self.events.recv_timeout(POLL.min(deadline - now)) {
                Ok(Event::Line(line, at)) => {
                    self.log('>', &line);
                    return Ok((line, at));
                }
                Ok(Event::Garbage(what)) => return Err(EngineError::Garbage(what)),
                Ok(Event::Closed) | Err(RecvTimeoutError::Disconnected) => {
                    return Err(self.crashed("its output closed"));
                }
                Err(RecvTimeoutError::Timeout) => {
                    // A dead engine whose pipe a grandchild still holds open
                    // is a crash, not a hang.
                    if let Ok(Some(status)) = self.child.try_wait() {
                        return Err(died(exit_text(status), status));
                    }
                }
            }
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
            if seen.len() < QUEUE {
                seen.push(line);
            }
        }
    }

    /// Crash details: the exit status if the process is already gone.
    fn crashed(&mut self, what: &str) -> EngineError {
        // A closed pipe usually means the process is exiting; give it a moment
        // so the status can be reported.
        for _ in 0..20 {
            if let Ok(Some(status)) = self.child.try_wait() {
                return died(format!("{what}, {}", exit_text(status)), status);
            }
            thread::sleep(Duration::from_millis(5));
        }
        EngineError::Crashed(format!("{what}, process still running"))
    }

    fn handshake(&mut self, timeout: Duration) -> Result<(), EngineError> {
        let dialect = self.config.dialect;
        self.send(dialect.name())?;
        let ok = match dialect {
            Dialect::Ugi => "ugiok",
            Dialect::Uci => "uciok",
        };
        let lines = self.expect(ok, timeout)?;
        self.advertised = lines.iter().filter_map(|l| option_name(l)).collect();
        Ok(())
    }

    /// Sets the rules and the user's options, each checked, then checks the
    /// rules the engine reports against the runner's.
    fn configure(&mut self, rules: &Rules, timeout: Duration) -> Result<(), EngineError> {
        let mut lines = Vec::new();
        for (name, value) in rule_options(rules.variant()) {
            self.send(&format!("setoption name {name} value {value}"))?;
        }
        // No error check here: a rule set can be invalid halfway through
        // its options (rows before pieces); the rules reported at the end
        // are what is compared.
        self.send("isready")?;
        lines.extend(self.expect("readyok", timeout)?);
        for (name, value) in self.config.options.clone() {
            lines.extend(self.set_option(&name, &value, timeout)?);
        }
        if self.config.dialect == Dialect::Ugi {
            // Engines without UGI queries answer with an info line or nothing.
            self.send("position startpos")?;
            self.send("query fen")?;
            self.send("isready")?;
            lines.extend(self.expect("readyok", timeout)?);
        }
        self.check_rules(rules, &lines)
    }

    /// The rules the engine reports must be the runner's: the last
    /// `info string variant <spec> …` line (earlier ones describe the rules
    /// half set, between two `setoption`s) gives the full rule set and the
    /// start position, and the `response` to `query fen` the position.
    /// Silence is accepted, since not every engine reports; a board of
    /// another size, which does not even parse here, is a mismatch.
    fn check_rules(&self, rules: &Rules, lines: &[String]) -> Result<(), EngineError> {
        let expected = rules.start_position();
        let mismatch = |reported: String| EngineError::VariantMismatch {
            expected: rules.position_text(&expected),
            reported,
        };
        let last_variant = lines
            .iter()
            .rev()
            .find(|l| l.to_ascii_lowercase().starts_with("info string variant"));
        if let Some(spec) = last_variant.and_then(|l| reported_spec(l))
            && let Ok(variant) = Variant::from_spec(spec)
            && variant != *rules.variant()
        {
            return Err(EngineError::RulesMismatch {
                expected: rules.variant().spec(),
                reported: variant.spec(),
            });
        }
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

    /// Sets one option the engine announced and checks it was taken: an
    /// option it never announced, or an `info string error` answer, is a
    /// [`EngineError::BadOption`]. Returns the engine's other answer lines.
    pub fn set_option(
        &mut self,
        name: &str,
        value: &str,
        timeout: Duration,
    ) -> Result<Vec<String>, EngineError> {
        if name.chars().chain(value.chars()).any(char::is_control) {
            // A newline would send a second, unchecked command.
            return Err(EngineError::BadOption {
                reason: format!("'{}' holds a control character", value.escape_debug()),
                name: name.escape_debug().to_string(),
            });
        }
        let known = self.advertised.is_empty()
            || self.advertised.iter().any(|a| a.eq_ignore_ascii_case(name));
        if !known {
            return Err(EngineError::BadOption {
                reason: format!(
                    "the engine has no such option (it has: {})",
                    self.advertised.join(", ")
                ),
                name: name.to_string(),
            });
        }
        self.send(&format!("setoption name {name} value {value}"))?;
        self.send("isready")?;
        let answer = self.expect("readyok", timeout)?;
        if let Some(error) = answer.iter().find(|l| is_error_line(l)) {
            return Err(EngineError::BadOption {
                name: name.to_string(),
                reason: format!("value '{value}' refused: {error}"),
            });
        }
        Ok(answer)
    }

    /// Whether the engine announced an option of this name.
    pub fn has_option(&self, name: &str) -> bool {
        self.advertised.iter().any(|a| a.eq_ignore_ascii_case(name))
    }

    /// Sends `lines` to an idle engine, then `isready`, and returns what it
    /// answered before `readyok`: how a front end asks an engine whether it
    /// accepts a position (its `info string error` lines say why not).
    pub fn exchange(
        &mut self,
        lines: &[&str],
        timeout: Duration,
    ) -> Result<Vec<String>, EngineError> {
        self.settle()?;
        for line in lines {
            self.send(line)?;
        }
        self.send("isready")?;
        self.expect("readyok", timeout)
    }

    /// Drops whatever the engine said since its last answer and waits until
    /// it is idle, so that a late second `bestmove` can never be taken as
    /// the answer to the next `go`.
    fn settle(&mut self) -> Result<(), EngineError> {
        let mut stray = 0;
        loop {
            match self.events.try_recv() {
                Ok(Event::Line(line, _)) => {
                    self.log('>', &line);
                    stray += usize::from(line.starts_with("bestmove"));
                }
                Ok(Event::Garbage(what)) => return Err(EngineError::Garbage(what)),
                Ok(Event::Closed) | Err(TryRecvError::Disconnected) => {
                    return Err(self.crashed("its output closed"));
                }
                Err(TryRecvError::Empty) => break,
            }
        }
        self.send("isready")?;
        let lines = self.expect("readyok", self.ready_timeout)?;
        stray += lines.iter().filter(|l| l.starts_with("bestmove")).count();
        if stray > 0 {
            log::warn!(
                "{}: ignored {stray} bestmove line(s) sent while not searching",
                self.config.name
            );
        }
        Ok(())
    }

    /// Sends the position and the `go` command, then waits for `bestmove`
    /// until `deadline` (measured from when `go` is sent, after the engine
    /// has confirmed it is idle).
    pub fn go(
        &mut self,
        position: &str,
        go: &str,
        allowed: Duration,
    ) -> Result<Reply, EngineError> {
        self.go_watched(
            position,
            go,
            Some(allowed),
            &AtomicBool::new(false),
            &mut |_| {},
        )
    }

    /// `go` for a front end: every `info` line is handed to `on_info` as it
    /// arrives, `allowed` None waits without limit (`go infinite`), and once
    /// `stop` is raised the engine is sent `stop` and must answer within
    /// [`STOP_GRACE`], else it counts as hung.
    pub fn go_watched(
        &mut self,
        position: &str,
        go: &str,
        allowed: Option<Duration>,
        stop: &AtomicBool,
        on_info: &mut dyn FnMut(&str),
    ) -> Result<Reply, EngineError> {
        self.settle()?;
        self.send(position)?;
        self.send(go)?;
        let started = Instant::now();
        let mut deadline = allowed.map(|a| started + a);
        let mut stopped = false;
        let mut score = None;
        let mut depth = None;
        loop {
            if !stopped && stop.load(Ordering::Relaxed) {
                stopped = true;
                self.send("stop")?;
                let grace = Instant::now() + STOP_GRACE;
                deadline = Some(deadline.map_or(grace, |d| d.min(grace)));
            }
            // Without a deadline, wake now and then to look at `stop`.
            let wake = Instant::now() + POLL * 5;
            let (line, at) =
                match self.recv(deadline.unwrap_or(wake).min(wake), "bestmove", started) {
                    Ok(got) => got,
                    Err(EngineError::Timeout { .. })
                        if deadline.is_none_or(|d| Instant::now() < d) =>
                    {
                        continue;
                    }
                    Err(e) => return Err(e),
                };
            let mut tokens = line.split_whitespace();
            match tokens.next() {
                Some("bestmove") => {
                    return Ok(Reply {
                        tokens: tokens.map(str::to_string).collect(),
                        score,
                        depth,
                        elapsed: at.saturating_duration_since(started),
                    });
                }
                Some("info") => {
                    score = parse_score(&line).or(score);
                    depth = parse_depth(&line).or(depth);
                    on_info(&line);
                }
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
        // Kill the whole group, even after a clean exit: a grandchild may
        // still hold the pipes. Then reap, so no zombie is left behind.
        // The group id is the child's pid (process_group(0)); while the child
        // is unreaped its pid cannot be reused, so this kills nothing else.
        if let Ok(pid) = libc::pid_t::try_from(self.child.id()) {
            // SAFETY: plain syscall on a process group we created.
            unsafe {
                libc::killpg(pid, libc::SIGKILL);
            }
        }
        let _ = self.child.wait();
    }
}

/// How long an engine killed by a stop signal waits for the runner's own
/// before it counts as a crash: a scheduler that stops a job (Slurm's
/// scancel or requeue, a pod's eviction) signals every process of it, the
/// engines a moment before the runner.
const STOPPED_WITH_THE_RUNNER: Duration = Duration::from_secs(1);

/// The error for an engine that exited with `status`: interrupted when it
/// was killed by SIGTERM, SIGINT or SIGHUP and the runner is being stopped
/// too (the game is then not recorded, and `--resume` replays it rather
/// than count a forfeit the engine did not commit), else a crash.
fn died(text: String, status: ExitStatus) -> EngineError {
    use std::os::unix::process::ExitStatusExt;
    let stop = matches!(
        status.signal(),
        Some(libc::SIGTERM | libc::SIGINT | libc::SIGHUP)
    );
    if stop {
        let until = Instant::now() + STOPPED_WITH_THE_RUNNER;
        while !interrupt::requested() && Instant::now() < until {
            thread::sleep(Duration::from_millis(10));
        }
        if interrupt::requested() {
            return EngineError::Interrupted;
        }
    }
    EngineError::Crashed(text)
}

fn exit_text(status: ExitStatus) -> String {
    use std::os::unix::process::ExitStatusExt;
    match (status.code(), status.signal()) {
        (Some(code), _) => format!("exited with code {code}"),
        (None, Some(signal)) => format!("killed by signal {signal}"),
        _ => status.to_string(),
    }
}

/// Reads lines of at most [`MAX_LINE`] bytes; a longer one, or one that is
/// not text, ends the reading (the engine will be killed).
fn read_lines(mut reader: impl BufRead, tx: SyncSender<Event>) {
    let mut buf = Vec::new();
    loop {
        buf.clear();
        let limit = MAX_LINE as u64 + 1;
        match (&mut reader).take(limit).read_until(b'\n', &mut buf) {
            Ok(0) | Err(_) => {
                let _ = tx.send(Event::Closed);
                return;
            }
            Ok(_) if !buf.ends_with(b"\n") && buf.len() > MAX_LINE => {
                let _ = tx.send(Event::Garbage(format!(
                    "a line longer than {MAX_LINE} bytes"
                )));
                return;
            }
            Ok(_) => {
                let at = Instant::now();
                let event = match String::from_utf8(std::mem::take(&mut buf)) {
                    Ok(text) if !has_control_bytes(&text) => {
                        Event::Line(text.trim_end_matches(['\n', '\r']).to_string(), at)
                    }
                    Ok(text) => Event::Garbage(format!("non-text line {:?}", text.trim_end())),
                    Err(e) => Event::Garbage(format!(
                        "non-text line {:?}",
                        String::from_utf8_lossy(e.as_bytes()).trim_end()
                    )),
                };
                let garbage = matches!(event, Event::Garbage(_));
                if tx.send(event).is_err() || garbage {
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

/// `option name <Name> type …`: the name (which may contain spaces).
fn option_name(line: &str) -> Option<String> {
    let rest = line.strip_prefix("option name ")?;
    let end = rest.find(" type ").unwrap_or(rest.len());
    Some(rest[..end].trim().to_string())
}

/// `info string error…`: how the engine says it refused a command.
fn is_error_line(line: &str) -> bool {
    line.to_ascii_lowercase().starts_with("info string error")
}

/// The rule spec of `info string variant <spec> …`, if the token has the
/// form of one (contains `=`).
fn reported_spec(line: &str) -> Option<&str> {
    line.split_whitespace()
        .nth(3)
        .filter(|token| token.contains('='))
}

/// `score cp N` or `score mate N` in an info line, from the mover's side,
/// saturated at the mate score so that no arithmetic on it can overflow.
pub fn parse_score(line: &str) -> Option<i32> {
    let tokens: Vec<&str> = line.split_whitespace().collect();
    let at = tokens.iter().position(|&t| t == "score")?;
    let value: i64 = tokens.get(at + 2)?.parse().ok()?;
    match *tokens.get(at + 1)? {
        "cp" => Some(value.clamp(-i64::from(MATE_SCORE), i64::from(MATE_SCORE)) as i32),
        "mate" if value > 0 => Some(MATE_SCORE),
        "mate" => Some(-MATE_SCORE),
        _ => None,
    }
}

/// `depth N` in an info line.
fn parse_depth(line: &str) -> Option<u32> {
    let mut tokens = line.split_whitespace();
    tokens.find(|&t| t == "depth")?;
    tokens.next()?.parse().ok()
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

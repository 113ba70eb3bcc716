//! Drives the real `yote` binary over pipes, the way a GUI does.

#![allow(dead_code)]

pub mod gui;

use std::io::Write;
use std::process::{Child, ChildStdin, Command, Stdio};
use std::sync::mpsc::{Receiver, channel};
use std::time::{Duration, Instant};

pub const BIN: &str = env!("CARGO_BIN_EXE_yote");

/// The scriptable misbehaving engine (tests/support/fake_engine.rs), an
/// example beside the test binaries' `deps/` folder. `cargo test` builds
/// examples, but `cargo test --test gui` does not: then it is built here,
/// once, with the test binary's profile (the outer cargo holds no lock
/// while tests run).
pub fn fake_engine() -> String {
    static BUILT: std::sync::OnceLock<String> = std::sync::OnceLock::new();
    BUILT.get_or_init(build_fake_engine).clone()
}

fn build_fake_engine() -> String {
    let exe = std::env::current_exe().expect("the test binary's path");
    let profile_dir = exe
        .parent()
        .and_then(|deps| deps.parent())
        .expect("target/<profile>/deps");
    let fake = profile_dir.join("examples").join("yote-fake-engine");
    if !fake.exists() {
        let profile = match profile_dir.file_name().and_then(|n| n.to_str()) {
            Some("debug") | None => "dev",
            Some(other) => other,
        };
        let status = Command::new(option_env!("CARGO").unwrap_or("cargo"))
            .args(["build", "--quiet", "--example", "yote-fake-engine"])
            .args(["--profile", profile, "--manifest-path"])
            .arg(concat!(env!("CARGO_MANIFEST_DIR"), "/Cargo.toml"))
            .status()
            .expect("run cargo to build the fake engine");
        assert!(status.success(), "building the fake engine: {status}");
    }
    assert!(
        fake.exists(),
        "{} is missing: `cargo build --example yote-fake-engine` with the tests' profile",
        fake.display()
    );
    fake.to_string_lossy().into_owned()
}

/// Generous: the machine is shared and noisy; these catch hangs, not speed.
pub const PATIENCE: Duration = Duration::from_secs(10);

pub struct Engine {
    child: Child,
    stdin: Option<ChildStdin>,
    lines: Receiver<(Instant, String)>,
}

impl Engine {
    pub fn start() -> Engine {
        Engine::start_with_env(&[])
    }

    pub fn start_with_env(env: &[(&str, &str)]) -> Engine {
        let mut command = Command::new(BIN);
        command
            .stdin(Stdio::piped())
            .stdout(Stdio::piped())
            // YOTE_ENGINE_STDERR=1 shows the engine's log (to debug a test).
            .stderr(match std::env::var_os("YOTE_ENGINE_STDERR") {
                Some(_) => Stdio::inherit(),
                None => Stdio::null(),
            });
        for (k, v) in env {
            command.env(k, v);
        }
        let mut child = command.spawn().expect("start the engine");
        let stdout = child.stdout.take().unwrap();
        let (tx, lines) = channel();
        std::thread::spawn(move || {
            use std::io::BufRead;
            for line in std::io::BufReader::new(stdout).lines() {
                let line = match line {
                    Ok(line) => line,
                    Err(e) => {
                        eprintln!("reading the engine's output: {e}");
                        break;
                    }
                };
                if tx.send((Instant::now(), line)).is_err() {
                    break;
                }
            }
        });
        Engine {
            stdin: child.stdin.take(),
            child,
            lines,
        }
    }

    pub fn send(&mut self, line: &str) {
        self.send_bytes(format!("{line}\n").as_bytes());
    }

    pub fn send_bytes(&mut self, bytes: &[u8]) {
        let stdin = self.stdin.as_mut().expect("stdin open");
        stdin.write_all(bytes).expect("write to engine");
        stdin.flush().unwrap();
    }

    /// The next line with the time it arrived, or None after `wait`.
    pub fn next_timed(&mut self, wait: Duration) -> Option<(Instant, String)> {
        self.lines.recv_timeout(wait).ok()
    }

    pub fn next(&mut self, wait: Duration) -> Option<String> {
        self.next_timed(wait).map(|(_, l)| l)
    }

    /// Every line up to and including the first that `stop` accepts.
    pub fn until(&mut self, stop: impl Fn(&str) -> bool) -> Vec<String> {
        let deadline = Instant::now() + PATIENCE;
        let mut seen = Vec::new();
        loop {
            let left = deadline.saturating_duration_since(Instant::now());
            match self.next(left) {
                Some(line) => {
                    let done = stop(&line);
                    seen.push(line);
                    if done {
                        return seen;
                    }
                }
                None => panic!("timed out; lines so far: {seen:#?}"),
            }
        }
    }

    /// Sends `isready` and returns everything printed before `readyok`.
    pub fn sync(&mut self) -> Vec<String> {
        self.send("isready");
        let mut lines = self.until(|l| l == "readyok");
        lines.pop();
        lines
    }

    /// Sends a command and returns its output (up to the `readyok` of a
    /// following `isready`).
    pub fn ask(&mut self, line: &str) -> Vec<String> {
        self.send(line);
        self.sync()
    }

    /// The single line a command printed.
    pub fn ask_one(&mut self, line: &str) -> String {
        let out = self.ask(line);
        assert_eq!(out.len(), 1, "{line}: {out:#?}");
        out.into_iter().next().unwrap()
    }

    pub fn bestmove(&mut self) -> Vec<String> {
        self.until(|l| l.starts_with("bestmove"))
    }

    /// The engine's resident memory in KiB (Linux; None elsewhere).
    pub fn rss_kib(&self) -> Option<u64> {
        let status = std::fs::read_to_string(format!("/proc/{}/status", self.child.id())).ok()?;
        let line = status.lines().find(|l| l.starts_with("VmRSS:"))?;
        line.split_whitespace().nth(1)?.parse().ok()
    }

    /// Whether the process is still running.
    pub fn alive(&mut self) -> bool {
        matches!(self.child.try_wait(), Ok(None))
    }

    /// Closes stdin and waits for the process to exit by itself.
    pub fn close(mut self) -> (Vec<String>, std::process::ExitStatus) {
        drop(self.stdin.take());
        let deadline = Instant::now() + PATIENCE;
        let mut rest = Vec::new();
        loop {
            if let Some(status) = self.child.try_wait().unwrap() {
                while let Some(l) = self.next(Duration::from_millis(200)) {
                    rest.push(l);
                }
                return (rest, status);
            }
            assert!(Instant::now() < deadline, "engine did not exit");
            if let Some(l) = self.next(Duration::from_millis(5)) {
                rest.push(l);
            }
        }
    }
}

impl Drop for Engine {
    fn drop(&mut self) {
        let _ = self.child.kill();
        let _ = self.child.wait();
    }
}

/// xorshift64*: seeded, so a failing case can be replayed.
pub struct Rng(pub u64);

impl Rng {
    pub fn next(&mut self) -> u64 {
        self.0 ^= self.0 >> 12;
        self.0 ^= self.0 << 25;
        self.0 ^= self.0 >> 27;
        self.0.wrapping_mul(0x2545_f491_4f6c_dd1d)
    }

    pub fn below(&mut self, n: usize) -> usize {
        (self.next() % n.max(1) as u64) as usize
    }
}

/// The `info` field after `key` (`nodes`, `depth`, …) as a number.
pub fn field(line: &str, key: &str) -> Option<i64> {
    let mut tokens = line.split(' ');
    tokens.find(|t| *t == key)?;
    tokens.next()?.parse().ok()
}

pub fn median(mut values: Vec<f64>) -> f64 {
    values.sort_by(|a, b| a.total_cmp(b));
    values[values.len() / 2]
}

//! `yote spsa` through the real binary: a tiny tuning run (2000 nodes per
//! move would be minutes; 200 nodes, 3 iterations of one game pair, takes a
//! few seconds) replays exactly from its seed, pauses and resumes, survives
//! Ctrl-C, and refuses flags and states it cannot honour. The update rule
//! itself is unit-tested against hand-computed numbers in src/tuning/spsa.rs.

mod support;

use std::io::{BufRead, BufReader};
use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::sync::OnceLock;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("yote-spsa-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// The tiny run's flags, with its state file.
fn tiny(state: &Path) -> Vec<String> {
    [
        "spsa",
        "--engine",
        support::BIN,
        "--nodes",
        "200",
        "--iterations",
        "3",
        "--pairs",
        "1",
        "--seed",
        "5",
        "--params",
        "aspiration_delta,lmr_divisor,qs_removals",
        "--state",
    ]
    .iter()
    .map(|s| s.to_string())
    .chain([state.display().to_string()])
    .collect()
}

fn yote(args: &[String], extra: &[&str]) -> Output {
    Command::new(support::BIN)
        .args(args)
        .args(extra)
        .output()
        .unwrap()
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

/// The uninterrupted tiny run: its final state and report.
fn reference() -> &'static (String, String) {
    static RUN: OnceLock<(String, String)> = OnceLock::new();
    RUN.get_or_init(|| {
        let state = scratch("reference").join("run.state");
        let out = yote(&tiny(&state), &["--quiet"]);
        assert!(out.status.success(), "{out:?}");
        (std::fs::read_to_string(&state).unwrap(), text(&out.stdout))
    })
}

/// The report without its first lines (they say how the run went, which
/// a resumed run shares) is the tuned set.
fn tuned_part(report: &str) -> &str {
    &report[report.find("parameter").expect("a table")..]
}

#[test]
fn a_tiny_run_replays_from_its_seed_and_prints_a_usable_set() {
    let (state, report) = reference();
    assert!(state.contains("\niterations 3\npairs 3\ngames "), "{state}");
    let games: u64 = state
        .lines()
        .find_map(|l| l.strip_prefix("games "))
        .unwrap()
        .split(' ')
        .map(|n| n.parse::<u64>().unwrap())
        .sum();
    assert_eq!(games, 6);
    // The same seed, another state file: the same run, game for game.
    let again = scratch("again").join("run.state");
    let out = yote(&tiny(&again), &["--quiet"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(&std::fs::read_to_string(&again).unwrap(), state);
    assert_eq!(&text(&out.stdout), report);
    // The printed option line is accepted by the engine as it stands.
    let line = report
        .lines()
        .find(|l| l.starts_with("setoption name SearchParams value "))
        .expect("an option line");
    assert!(line.contains("aspiration_delta=") && line.contains("qs_removals="));
    let exec = Command::new(support::BIN)
        .args(["exec", line, "go nodes 100"])
        .output()
        .unwrap();
    let stdout = text(&exec.stdout);
    assert!(!stdout.contains("error"), "{stdout}");
    assert!(stdout.contains("bestmove "), "{stdout}");
    assert!(report.contains("    lmr_divisor: "), "{report}");
    // Another seed plays other games.
    let other = scratch("other").join("run.state");
    let flags = tiny_with(&other, &[("--seed", "6")]);
    assert!(yote(&flags, &["--quiet"]).status.success());
    assert_ne!(&std::fs::read_to_string(&other).unwrap(), state);
}

#[test]
fn a_paused_run_resumes_to_the_same_end() {
    let (state, report) = reference();
    let path = scratch("paused").join("run.state");
    let out = yote(&tiny(&path), &["--quiet", "--stop-after", "1"]);
    assert!(out.status.success(), "{out:?}");
    assert!(text(&out.stdout).contains("paused after 1 of 3 iterations"));
    assert!(
        std::fs::read_to_string(&path)
            .unwrap()
            .contains("\niterations 1\n")
    );
    // Without --resume the state is not overwritten.
    let refused = yote(&tiny(&path), &["--quiet"]);
    assert!(!refused.status.success());
    assert!(text(&refused.stderr).contains("--resume"), "{refused:?}");
    let out = yote(&tiny(&path), &["--quiet", "--resume"]);
    assert!(out.status.success(), "{out:?}");
    assert_eq!(&std::fs::read_to_string(&path).unwrap(), state);
    assert_eq!(tuned_part(&text(&out.stdout)), tuned_part(report));
}

#[test]
fn ctrl_c_keeps_the_finished_iterations_and_resume_ends_where_an_uninterrupted_run_does() {
    let (state, _) = reference();
    let path = scratch("sigint").join("run.state");
    let mut child = Command::new(support::BIN)
        .args(tiny(&path))
        .stdout(Stdio::piped())
        .stderr(Stdio::piped())
        .spawn()
        .unwrap();
    // Progress goes to stderr, a line per iteration: interrupt after the first.
    let mut progress = BufReader::new(child.stderr.take().unwrap());
    let mut line = String::new();
    while !line.starts_with("spsa 1/3") {
        line.clear();
        assert!(
            progress.read_line(&mut line).unwrap() > 0,
            "no progress line"
        );
    }
    // SAFETY: signalling our own child process.
    unsafe { libc::kill(child.id() as libc::pid_t, libc::SIGINT) };
    let out = child.wait_with_output().unwrap();
    assert_eq!(out.status.code(), Some(130), "{out:?}");
    let saved = std::fs::read_to_string(&path).unwrap();
    let done: u64 = saved
        .lines()
        .find_map(|l| l.strip_prefix("iterations "))
        .unwrap()
        .parse()
        .unwrap();
    assert!((1..=3).contains(&done), "{saved}");
    if done < 3 {
        assert!(text(&out.stdout).contains("interrupted after"), "{out:?}");
        let resumed = yote(&tiny(&path), &["--quiet", "--resume"]);
        assert!(resumed.status.success(), "{resumed:?}");
    }
    assert_eq!(&std::fs::read_to_string(&path).unwrap(), state);
}

/// The tiny run's flags with `changes` (flag, value) replacing its own or
/// added; an empty value is a switch.
fn tiny_with(state: &Path, changes: &[(&str, &str)]) -> Vec<String> {
    let mut flags = tiny(state);
    for (flag, value) in changes {
        match flags.iter().position(|f| f == flag) {
            Some(i) => flags[i + 1] = value.to_string(),
            None if value.is_empty() => flags.push(flag.to_string()),
            None => flags.extend([flag.to_string(), value.to_string()]),
        }
    }
    flags
}

#[test]
fn flags_and_states_it_cannot_honour_are_refused_before_any_game() {
    let dir = scratch("refused");
    let path = dir.join("run.state");
    let refused = |changes: &[(&str, &str)], why: &str| {
        let out = yote(&tiny_with(&path, changes), &[]);
        assert!(!out.status.success(), "{changes:?}: {out:?}");
        let stderr = text(&out.stderr);
        assert!(stderr.contains(why), "{changes:?}: {stderr}");
    };
    refused(
        &[("--params", "lmr_base,nosuch")],
        "unknown parameter 'nosuch'",
    );
    refused(
        &[("--params", "time_horizon")],
        "time_horizon is a time-use parameter",
    );
    refused(
        &[("--params", "qs_removals,qs_removals")],
        "qs_removals twice",
    );
    refused(&[("--pairs", "0")], "--pairs must be at least 1");
    refused(&[("--resume", "")], "--resume: reading");
    std::fs::write(&path, "not a state\n").unwrap();
    refused(&[("--resume", "")], "not a yote spsa state file");
    refused(&[], "exists: continue that run with --resume");
    // A state made with other settings (here another seed) is not resumed.
    let (state, _) = reference();
    std::fs::write(&path, state).unwrap();
    refused(&[("--resume", ""), ("--seed", "9")], "other settings");
    assert_eq!(&std::fs::read_to_string(&path).unwrap(), state);
}

//! The command line (src/main.rs and each subcommand's arguments): what a
//! user who gets something wrong is told (issue 17).

use std::process::{Command, Output};

const BIN: &str = env!("CARGO_BIN_EXE_yote");

fn yote(args: &[&str]) -> Output {
    Command::new(BIN)
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .output()
        .expect("run yote")
}

fn stderr(out: &Output) -> String {
    String::from_utf8_lossy(&out.stderr).into_owned()
}

/// A refused command: a failure status and one `error:` line, without a
/// backtrace even with `RUST_BACKTRACE=1` set (it printed one).
fn refused(args: &[&str]) -> String {
    let out = yote(args);
    assert!(!out.status.success(), "{args:?} succeeded");
    let err = stderr(&out);
    let last = err.lines().last().unwrap_or_default().to_string();
    assert!(last.starts_with("error: "), "{args:?}: {err}");
    assert!(!err.to_lowercase().contains("backtrace"), "{args:?}: {err}");
    last
}

#[test]
fn help_says_that_no_subcommand_starts_the_engine() {
    let out = yote(&["--help"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(
        text.contains("With no subcommand, `yote` is the engine"),
        "{text}"
    );
}

/// Issue 40 item 7: `match --help` sent people to the README, where the
/// flags are not, and nothing said that Skill Level ignores the clock.
#[test]
fn match_help_points_to_its_guide_and_says_how_skill_levels_play() {
    let out = yote(&["match", "--help"]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(text.contains("docs/match.md"), "{text}");
    assert!(!text.contains("README"), "{text}");
    let flat = text.split_whitespace().collect::<Vec<_>>().join(" ");
    assert!(
        flat.contains("Skill Level plays by node budgets and ignores the clock"),
        "{text}"
    );
    assert!(flat.contains("option.Skill Level=3"), "{text}");
}

/// Issue 40 item 7: a one-sided match printed `Elo +inf ± inf (95%)`.
#[test]
fn a_one_sided_match_gives_the_score_and_a_bound_not_infinities() {
    let search = format!("name=search,cmd={BIN}");
    let random = format!("name=random,cmd={BIN},option.Style=random");
    let out = yote(&[
        "match", "--depth", "2", "--games", "2", "--seed", "3", "--engine", &search, "--engine",
        &random,
    ]);
    let text = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{}", stderr(&out));
    assert!(text.contains("+2 =0 -0"), "search won both: {text}");
    assert!(!text.contains("inf"), "{text}");
    assert!(
        text.contains("Elo: too few games / one-sided result, score 2 of 2 (100.0%), Elo > "),
        "{text}"
    );
}

#[test]
fn tb_generate_help_explains_pieces_and_dir() {
    let out = yote(&["tb", "generate", "--help"]);
    let text = String::from_utf8_lossy(&out.stdout);
    for flag in ["--pieces <PIECES>", "--dir <DIR>"] {
        let line = text
            .lines()
            .find(|l| l.trim_start().starts_with(flag))
            .unwrap();
        let explained = line.split(flag).nth(1).unwrap().trim();
        assert!(explained.len() > 20, "{flag} has no text: {line:?}");
    }
}

/// `tb generate --pieces 40` started solving for hours: standard has 24
/// pieces in all; and a large run is stated and wants `--yes`.
#[test]
fn tb_generate_refuses_what_the_variant_cannot_hold_and_asks_before_a_large_run() {
    let dir = std::env::temp_dir().join(format!("yote-cli-tb-{}", std::process::id()));
    let dir_text = dir.to_str().unwrap();
    let error = refused(&["tb", "generate", "--pieces", "40", "--dir", dir_text]);
    assert!(error.contains("24 pieces in all (12 a side)"), "{error}");
    let out = yote(&["tb", "generate", "--pieces", "10", "--dir", dir_text]);
    assert!(!out.status.success());
    let err = stderr(&out);
    assert!(
        err.contains("positions: about") && err.contains("hours") && err.contains("GiB"),
        "{err}"
    );
    assert!(err.contains("add --yes"), "{err}");
    assert!(!dir.join("x").exists());
    let _ = std::fs::remove_dir_all(&dir);
}

/// `tb probe --dir /nonexistent` said "no table for this position".
#[test]
fn a_missing_table_directory_is_named() {
    let fen = "6/6/6/6/WW2BB w 0 0 0 1";
    for args in [
        &["tb", "probe", "--dir", "/nonexistent", "--fen", fen][..],
        &["tb", "stats", "--dir", "/nonexistent"],
        &["tb", "verify", "--dir", "/nonexistent"],
    ] {
        let error = refused(args);
        assert_eq!(error, "error: the directory /nonexistent does not exist");
    }
}

/// "bad time control 'fast'" did not say what a time control looks like.
#[test]
fn a_bad_time_control_shows_the_accepted_forms() {
    let error = refused(&[
        "match",
        "--engine",
        "name=a,cmd=a",
        "--engine",
        "name=b,cmd=b",
        "--tc",
        "fast",
    ]);
    for form in ["`10`", "`10+0.1`", "`40/60`", "`40/60+0.5`"] {
        assert!(error.contains(form), "{error}");
    }
}

#[test]
fn input_errors_print_no_backtrace() {
    refused(&["perft", "2", "--variant", "rows=2"]);
    refused(&["analyse", "/nonexistent.pgn", "--depth", "1"]);
}

/// Runs `yote args` with its standard output a pipe whose reading end is
/// already closed (`yote … | head` once `head` has gone): every write
/// fails with EPIPE.
fn with_stdout_closed(args: &[&str]) -> Output {
    let (reader, writer) = std::io::pipe().expect("a pipe");
    drop(reader);
    Command::new(BIN)
        .args(args)
        .env("RUST_BACKTRACE", "1")
        .stdout(writer)
        .output()
        .expect("run yote")
}

/// Issue 39, item 10: `yote perft 4 | head -1` and `yote tb probe … | head`
/// panicked with a backtrace on the closed pipe. Every subcommand exits
/// quietly on EPIPE: no panic, no message, status 0.
#[test]
fn a_closed_output_pipe_ends_every_subcommand_quietly() {
    let dir = std::env::temp_dir().join(format!("yote-cli-epipe-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    let dir_text = dir.to_str().unwrap();
    let small = "rows=3,cols=3";
    let made = yote(&[
        "tb",
        "generate",
        "--pieces",
        "4",
        "--variant",
        small,
        "--dir",
        dir_text,
    ]);
    assert!(made.status.success(), "{}", stderr(&made));
    let fen = "WW1/3/BB1 w 0 0";
    let probe = yote(&[
        "tb",
        "probe",
        "--dir",
        dir_text,
        "--variant",
        small,
        "--fen",
        fen,
    ]);
    assert!(
        probe.status.success() && !probe.stdout.is_empty(),
        "{}",
        stderr(&probe)
    );
    for args in [
        &["perft", "3"][..],
        &["perft", "3", "--total"],
        &[
            "tb",
            "probe",
            "--dir",
            dir_text,
            "--variant",
            small,
            "--fen",
            fen,
        ],
        &["tb", "stats", "--dir", dir_text],
        &["exec", "perft 2", "d"],
        &["--help"],
        &["perft", "--help"],
        &["--version"],
    ] {
        let out = with_stdout_closed(args);
        let err = stderr(&out);
        assert!(
            !err.contains("panicked") && !err.contains("Broken pipe") && !err.contains("error"),
            "{args:?}: {err}"
        );
        assert!(out.status.success(), "{args:?}: {:?} {err}", out.status);
    }
    let _ = std::fs::remove_dir_all(&dir);
}

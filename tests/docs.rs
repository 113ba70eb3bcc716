//! What README and protocol.md say about the running binary, checked
//! against it: the bench signature, the subcommands `yote --help` lists,
//! the example session and the output README shows for each task. And every
//! command README gives in a fenced `sh` block is run, by a test here, by
//! another test named in `COVERED`, or by `.ci/run`; a command added to
//! README without saying what runs it fails
//! `every_readme_command_is_run_by_a_test_or_ci`.
//!
//! Commands that take minutes in a debug build (the 5-piece tables, a
//! 20-game match) run as README gives them under `--release` (what `.ci/run`
//! does) and with a smaller budget otherwise.

mod support;

use std::path::Path;
use std::process::{Command, Output, Stdio};
use support::{BIN, Engine};

const README: &str = include_str!("../README.md");
const PROTOCOL_MD: &str = include_str!("../protocol.md");
const SEARCH_MD: &str = include_str!("../docs/search.md");
const CI_RUN: &str = include_str!("../.ci/run");
const ELLIPSIS: &str = "…";

/// What runs a README command.
enum Runner {
    /// `.ci/run` runs it as written.
    Ci,
    /// `.ci/run` runs it in this form (into its own virtual environment).
    CiAs(&'static str),
    /// A test function runs it (or, for the set-up command, the binary it
    /// builds): the file's source, for the check that the test exists.
    Test {
        file: &'static str,
        source: &'static str,
        name: &'static str,
    },
}

const fn here(name: &'static str) -> Runner {
    Runner::Test {
        file: "tests/docs.rs",
        source: include_str!("docs.rs"),
        name,
    }
}

const ANALYSE: &str = "python3 scripts/clients/analyse.py --engine target/release/yote --moves \"@c3 @d3\" --multipv 3 --seconds 2";
const MATCH: &str = "cargo run --release -- match --engine name=full,cmd=target/release/yote --engine \"name=level10,cmd=target/release/yote,option.Skill Level=10\" --nodes 20000 --games 20 --concurrency 2 --pgn games.pgn";
const TB_GENERATE: &str = "cargo run --release -- tb generate --pieces 5 --dir tb/standard";
const TB_PROBE: &str =
    "target/release/yote tb probe --dir tb/standard --fen \"6/6/2W3/2B1B1/6 w 1 1\"";

/// Every command of README's fenced `sh` blocks (comments stripped), and
/// what runs it.
const COVERED: &[(&str, Runner)] = &[
    ("cargo run --release", here("readme_session_runs_as_shown")),
    ("cargo test --release", Runner::Ci),
    (
        "pip install .",
        Runner::CiAs("\"$venv/bin/python\" -m pip install --quiet --force-reinstall --no-deps ."),
    ),
    (
        "cargo run --release -- gui",
        Runner::Test {
            file: "tests/gui.rs",
            source: include_str!("gui.rs"),
            name: "page_and_assets_are_served_with_safe_headers",
        },
    ),
    (ANALYSE, here("readme_analysis_prints_the_best_lines")),
    (MATCH, here("readme_match_plays_two_settings_and_reports")),
    (TB_GENERATE, here("readme_tables_are_generated_and_probed")),
    (TB_PROBE, here("readme_tables_are_generated_and_probed")),
    (
        "cargo run --release -- bench",
        here("readme_bench_signature_is_what_bench_prints"),
    ),
];

/// The commands of README's fenced `sh` blocks, one per line, comments
/// and surrounding blanks removed.
fn readme_commands() -> Vec<String> {
    let mut commands = Vec::new();
    let mut in_sh = false;
    for line in README.lines() {
        if line.starts_with("```") {
            in_sh = !in_sh && line.trim() == "```sh";
            continue;
        }
        if in_sh {
            let command = line.split(" #").next().unwrap().trim();
            if !command.is_empty() && !command.starts_with('#') {
                commands.push(command.to_string());
            }
        }
    }
    commands
}

/// The lines of the first `text` block (what README shows a command print,
/// or a session) after `heading` in README.
fn block_after(heading: &str) -> Vec<&'static str> {
    let start = README
        .find(heading)
        .unwrap_or_else(|| panic!("README has {heading:?}"));
    let rest = &README[start..];
    let open = rest.find("\n```text\n").expect("a text block follows") + 1;
    let body = &rest[open..];
    let body = &body[body.find('\n').unwrap() + 1..];
    let close = body.find("\n```").expect("the block is closed");
    body[..close].lines().collect()
}

/// Splits a README command line into words: spaces separate, double
/// quotes group (all README uses).
fn words(command: &str) -> Vec<String> {
    let mut words = Vec::new();
    let mut word = String::new();
    let mut quoted = false;
    let mut started = false;
    for c in command.chars() {
        match c {
            '"' => {
                quoted = !quoted;
                started = true;
            }
            ' ' if !quoted => {
                if started {
                    words.push(std::mem::take(&mut word));
                    started = false;
                }
            }
            _ => {
                word.push(c);
                started = true;
            }
        }
    }
    assert!(!quoted, "unbalanced quotes in {command:?}");
    if started {
        words.push(word);
    }
    words
}

/// A README command as a process: `cargo run --release --` and
/// `target/release/yote` become the binary under test, wherever they
/// appear; `replace` swaps whole words (a smaller budget).
fn readme_command(command: &str, replace: &[(&str, &str)], dir: &Path) -> Command {
    let mut args: Vec<String> = words(command)
        .into_iter()
        .map(|w| {
            let w = replace
                .iter()
                .find(|(from, _)| *from == w)
                .map_or(w.clone(), |(_, to)| to.to_string());
            w.replace("target/release/yote", BIN)
        })
        .collect();
    if args.starts_with(&[
        "cargo".into(),
        "run".into(),
        "--release".into(),
        "--".into(),
    ]) {
        args.splice(0..4, [BIN.to_string()]);
    }
    if args[0] == "python3" {
        args[1] = Path::new(env!("CARGO_MANIFEST_DIR"))
            .join(&args[1])
            .display()
            .to_string();
    }
    let mut process = Command::new(&args[0]);
    process
        .args(&args[1..])
        .current_dir(dir)
        .stdin(Stdio::null());
    process
}

fn succeeded(out: &Output) -> String {
    let stdout = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    stdout
}

fn optimised() -> bool {
    !cfg!(debug_assertions)
}

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("yote-docs-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

#[test]
fn every_readme_command_is_run_by_a_test_or_ci() {
    let commands = readme_commands();
    assert!(commands.len() >= 6, "README's commands: {commands:?}");
    for command in &commands {
        let (_, runner) = COVERED
            .iter()
            .find(|(c, _)| c == command)
            .unwrap_or_else(|| {
                panic!(
                    "README gives `{command}`; add it to COVERED in tests/docs.rs with what runs it"
                )
            });
        match runner {
            Runner::Ci => assert!(
                CI_RUN.lines().any(|l| l.trim() == command),
                ".ci/run does not run `{command}`"
            ),
            Runner::CiAs(form) => assert!(
                CI_RUN.lines().any(|l| l.trim() == *form),
                ".ci/run does not run `{command}` as `{form}`"
            ),
            Runner::Test { file, source, name } => assert!(
                source.contains(&format!("fn {name}(")),
                "{file} has no test {name} (for `{command}`)"
            ),
        }
    }
    for (command, _) in COVERED {
        assert!(
            commands.iter().any(|c| c == command),
            "COVERED lists `{command}`, which README no longer gives"
        );
    }
}

#[test]
fn cargo_test_release_is_the_last_thing_ci_runs() {
    let last = CI_RUN
        .lines()
        .map(str::trim)
        .rfind(|l| !l.is_empty() && !l.starts_with('#'))
        .unwrap();
    assert_eq!(last, "cargo test --release");
}

#[test]
fn readme_bench_signature_is_what_bench_prints() {
    let stated = |text: &str, source: &str| -> String {
        let at = text
            .find("Nodes searched: ")
            .unwrap_or_else(|| panic!("{source} states the bench signature"));
        text[at..].split('`').next().unwrap().to_string()
    };
    let out = Command::new(BIN).arg("bench").output().unwrap();
    let stdout = succeeded(&out);
    let printed = stdout.lines().next().unwrap();
    assert_eq!(stated(README, "README"), printed, "README's signature");
    assert_eq!(
        stated(SEARCH_MD, "docs/search.md"),
        printed,
        "docs/search.md's signature"
    );
    assert!(stdout.lines().nth(1).unwrap().starts_with("Nodes/second: "));
}

/// The subcommands `yote --help` lists, `help` aside.
fn help_subcommands() -> Vec<String> {
    let out = Command::new(BIN).arg("--help").output().unwrap();
    let help = succeeded(&out);
    let commands = help
        .split("Commands:\n")
        .nth(1)
        .expect("--help has a Commands: section");
    commands
        .lines()
        .take_while(|l| l.starts_with("  "))
        .map(|l| l.split_whitespace().next().unwrap().to_string())
        .filter(|c| c != "help")
        .collect()
}

#[test]
fn readme_and_protocol_md_name_every_subcommand_help_lists() {
    let listed = help_subcommands();
    assert!(listed.len() >= 10, "{listed:?}");
    let sentence = README
        .split("lists every subcommand: ")
        .nth(1)
        .expect("README lists the subcommands");
    let named: Vec<String> = sentence
        .split(';')
        .next()
        .unwrap()
        .split('`')
        .skip(1)
        .step_by(2)
        .map(String::from)
        .collect();
    assert_eq!(named, listed, "README's list against `yote --help`");
    let start = PROTOCOL_MD.find("## Starting the engine").unwrap();
    let section = &PROTOCOL_MD[start..start + PROTOCOL_MD[start..].find("\n## ").unwrap()];
    for command in &listed {
        assert!(
            section.contains(&format!("| `yote {command}")),
            "protocol.md, \"Starting the engine\", has no row for `yote {command}`"
        );
    }
}

/// One expected line of a README session: `…` alone is any number of
/// lines; a `…` inside a line is any text, and `info` lines are compared
/// by their keywords (the numbers are the machine's).
fn matches(expected: &str, line: &str) -> bool {
    if expected.starts_with("info ") {
        let keys = |l: &str| -> Vec<String> {
            l.split_whitespace()
                .filter(|w| w.parse::<i64>().is_err())
                .take_while(|w| *w != "pv")
                .map(String::from)
                .collect()
        };
        return keys(expected) == keys(line);
    }
    let parts: Vec<&str> = expected.split(ELLIPSIS).collect();
    if parts.len() == 1 {
        return expected == line;
    }
    let mut rest = line;
    for (i, part) in parts.iter().enumerate() {
        match rest.find(part) {
            Some(0) => rest = &rest[part.len()..],
            Some(at) if i > 0 => rest = &rest[at + part.len()..],
            _ => return false,
        }
    }
    parts.last().unwrap().is_empty() || rest.is_empty()
}

#[test]
fn readme_session_runs_as_shown() {
    let block = block_after("## Drive the engine from your own program");
    assert!(block.iter().any(|l| l.starts_with("> ")), "{block:?}");
    let mut e = Engine::start();
    let mut pending: Vec<&str> = Vec::new();
    let check = |e: &mut Engine, pending: &mut Vec<&str>| {
        let mut expected = pending.drain(..).peekable();
        while let Some(want) = expected.next() {
            if want == ELLIPSIS {
                let Some(next) = expected.peek() else { break };
                let mut skipped = 0;
                loop {
                    let got = e.next(support::PATIENCE).unwrap_or_else(|| {
                        panic!("README shows {next:?}; the engine said nothing more")
                    });
                    if matches(next, &got) {
                        expected.next();
                        break;
                    }
                    skipped += 1;
                    assert!(skipped < 1000, "never saw {next:?}");
                }
            } else {
                let got = e.next(support::PATIENCE).expect("the engine answers");
                assert!(
                    matches(want, &got),
                    "README shows {want:?}, engine said {got:?}"
                );
            }
        }
    };
    for line in block {
        if let Some(sent) = line.strip_prefix("> ") {
            check(&mut e, &mut pending);
            e.send(sent);
        } else if let Some(expected) = line.strip_prefix("< ") {
            pending.push(expected);
        } else {
            panic!("a session line starts with `> ` or `< `: {line:?}");
        }
    }
    check(&mut e, &mut pending);
    let (rest, status) = e.close();
    assert!(status.success(), "{rest:?}");
}

#[test]
fn readme_analysis_prints_the_best_lines() {
    let dir = scratch("analyse");
    let out = readme_command(ANALYSE, &[("2", "0.3")], &dir)
        .output()
        .unwrap();
    let stdout = succeeded(&out);
    let lines: Vec<&str> = stdout.lines().collect();
    let shown = block_after("## Analyse a position from Python");
    assert_eq!(lines.len(), shown.len(), "{stdout}");
    assert_eq!(lines[0], shown[0]);
    for (k, line) in lines[1..lines.len() - 1].iter().enumerate() {
        assert!(line.starts_with(&format!("{}. depth ", k + 1)), "{stdout}");
    }
    assert!(lines.last().unwrap().starts_with("best move: "), "{stdout}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn readme_match_plays_two_settings_and_reports() {
    let dir = scratch("match");
    let budget: &[(&str, &str)] = if optimised() {
        &[]
    } else {
        &[("20", "2"), ("20000", "200")]
    };
    let games = if optimised() { 20 } else { 2 };
    let out = readme_command(MATCH, budget, &dir).output().unwrap();
    let stdout = succeeded(&out);
    let shown = block_after("## Run a match");
    let head = shown[0].split(':').next().unwrap();
    assert!(
        stdout.contains(&format!("{head}: {games} games, ")),
        "{stdout}"
    );
    // "Elo +12.3 ± 4.5" or, one-sided, "Elo: too few games / …".
    for prefix in ["  pentanomial: Elo", "  trinomial:   Elo"] {
        assert!(shown.iter().any(|l| l.starts_with(prefix)));
        assert!(stdout.lines().any(|l| l.starts_with(prefix)), "{stdout}");
    }
    let records = std::fs::read_to_string(dir.join("games.pgn")).unwrap();
    assert_eq!(records.matches("\n[Game \"").count(), games, "{records}");
    let _ = std::fs::remove_dir_all(dir);
}

#[test]
fn readme_tables_are_generated_and_probed() {
    let dir = scratch("tables");
    // Five pieces take minutes unoptimised; four show the same output.
    let pieces: &[(&str, &str)] = if optimised() { &[] } else { &[("5", "4")] };
    let generated = readme_command(TB_GENERATE, pieces, &dir).output().unwrap();
    succeeded(&generated);
    let summary = String::from_utf8_lossy(&generated.stderr);
    assert!(summary.contains("classes solved"), "{summary}");
    if optimised() {
        let out = readme_command(TB_PROBE, &[], &dir).output().unwrap();
        let stdout = succeeded(&out);
        let first = stdout.lines().next().unwrap();
        assert!(
            README.contains(&format!("`{first}`")),
            "README should show the probe's first line, {first:?}"
        );
        assert_eq!(stdout.lines().next(), Some("value win 1"), "{stdout}");
        assert!(
            stdout.lines().nth(1).unwrap().starts_with("move "),
            "{stdout}"
        );
    }
    let _ = std::fs::remove_dir_all(dir);
}

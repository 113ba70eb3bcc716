//! `yote analyse`: annotated records, marks, determinism, resuming.

use std::path::{Path, PathBuf};
use std::process::{Command, Output, Stdio};
use std::time::{Duration, Instant};
use yote::client::records::GameRecord;

const BIN: &str = env!("CARGO_BIN_EXE_yote");

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("yote-analyse-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn yote(args: &[&str]) -> Output {
    let out = Command::new(BIN).args(args).output().expect("run yote");
    assert!(
        out.status.success(),
        "yote {args:?}: {}",
        String::from_utf8_lossy(&out.stderr)
    );
    out
}

/// A small records file from the match runner: the search against the
/// greedy player, so that there are mistakes to find.
fn recorded_games(dir: &Path, games: &str) -> PathBuf {
    let pgn = dir.join("games.pgn");
    let engine = format!("name=search,cmd={BIN}");
    let greedy = format!("name=greedy,cmd={BIN},option.Style=greedy");
    yote(&[
        "match",
        "--depth",
        "2",
        "--games",
        games,
        "--seed",
        "11",
        "--pgn",
        pgn.to_str().unwrap(),
        "--engine",
        &engine,
        "--engine",
        &greedy,
        "--quiet",
    ]);
    pgn
}

fn analyse(pgn: &Path, out: &Path, extra: &[&str]) -> String {
    let mut args = vec![
        "analyse",
        pgn.to_str().unwrap(),
        "-o",
        out.to_str().unwrap(),
        "--quiet",
    ];
    args.extend_from_slice(extra);
    String::from_utf8(yote(&args).stdout).unwrap()
}

#[test]
fn annotates_every_move_and_finds_the_weaker_players_errors() {
    let dir = scratch("annotate");
    let pgn = recorded_games(&dir, "4");
    let out = dir.join("out.pgn");
    let summary = analyse(&pgn, &out, &["--nodes", "5000", "--threads", "2"]);
    let annotated = std::fs::read_to_string(&out).unwrap();
    let original = std::fs::read_to_string(&pgn).unwrap();
    // One comment per move, the moves themselves unchanged.
    let moves: usize = original
        .lines()
        .filter_map(|l| l.strip_prefix("[Plies \""))
        .map(|n| n.trim_end_matches("\"]").parse::<usize>().unwrap())
        .sum();
    assert_eq!(annotated.matches('{').count(), moves, "{annotated}");
    assert_eq!(annotated.matches("[Annotator \"yote").count(), 4);
    // The annotated file is still a records file the runner reads.
    let rescored = yote(&["match", "--rescore", out.to_str().unwrap()]);
    assert!(String::from_utf8_lossy(&rescored.stdout).contains("games 4"));
    // The greedy player makes more errors than the search, and the summary
    // names a decisive error in every decided game.
    let per_player: Vec<&str> = summary.lines().skip_while(|l| *l != "Players:").collect();
    let blunders = |name: &str| -> u32 {
        let line = per_player
            .iter()
            .find(|l| l.trim_start().starts_with(name))
            .unwrap();
        line.split(", ")
            .find(|f| f.ends_with("blunder") || f.ends_with("blunders"))
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .parse()
            .unwrap()
    };
    assert!(blunders("greedy") > blunders("search"), "{summary}");
    assert_eq!(summary.matches("Decisive error").count(), 4, "{summary}");
    assert!(annotated.contains("?? blunder, best "), "{annotated}");
}

#[test]
fn nodes_limit_gives_the_same_output_whatever_the_threads() {
    let dir = scratch("determinism");
    let pgn = recorded_games(&dir, "2");
    let (one, two) = (dir.join("one.pgn"), dir.join("two.pgn"));
    let s1 = analyse(&pgn, &one, &["--nodes", "3000", "--threads", "1"]);
    let s2 = analyse(&pgn, &two, &["--nodes", "3000", "--threads", "2"]);
    assert_eq!(std::fs::read(&one).unwrap(), std::fs::read(&two).unwrap());
    let body = |s: &str| {
        s.lines()
            .filter(|l| !l.starts_with("Annotated"))
            .collect::<Vec<_>>()
            .join("\n")
    };
    assert_eq!(body(&s1), body(&s2));
}

#[test]
fn an_interrupted_run_resumes_from_its_journal() {
    let dir = scratch("resume");
    let pgn = recorded_games(&dir, "2");
    let (whole, resumed) = (dir.join("whole.pgn"), dir.join("resumed.pgn"));
    analyse(&pgn, &whole, &["--nodes", "40000", "--threads", "1"]);
    // Kill a run once its journal holds a few positions.
    let journal = PathBuf::from(format!("{}.journal", resumed.display()));
    let mut child = Command::new(BIN)
        .args([
            "analyse",
            pgn.to_str().unwrap(),
            "-o",
            resumed.to_str().unwrap(),
            "--quiet",
        ])
        .args(["--nodes", "40000", "--threads", "1"])
        .stdout(Stdio::null())
        .stderr(Stdio::null())
        .spawn()
        .unwrap();
    let deadline = Instant::now() + Duration::from_secs(60);
    let entries =
        || std::fs::read_to_string(&journal).map_or(0, |t| t.lines().count().saturating_sub(1));
    while entries() < 3 && Instant::now() < deadline {
        std::thread::sleep(Duration::from_millis(5));
    }
    child.kill().unwrap();
    child.wait().unwrap();
    let kept = entries();
    assert!(kept >= 3, "the journal never filled");
    // The torn line: the last entry cut inside its first value
    // (`cp:-13` → `cp:-1`), which still reads as a number.
    let text = std::fs::read_to_string(&journal).unwrap();
    let last = text.trim_end().rsplit('\n').next().unwrap();
    let colon = last.find(':').unwrap();
    let sign = usize::from(last[colon + 1..].starts_with('-'));
    let cut = text.trim_end().len() - last.len() + colon + 2 + sign;
    std::fs::write(&journal, &text[..cut]).unwrap();
    let out = Command::new(BIN)
        .args([
            "analyse",
            pgn.to_str().unwrap(),
            "-o",
            resumed.to_str().unwrap(),
        ])
        .args(["--nodes", "40000", "--threads", "1", "--quiet"])
        .output()
        .unwrap();
    assert!(out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("resuming:"), "{stderr}");
    assert_eq!(
        std::fs::read(&whole).unwrap(),
        std::fs::read(&resumed).unwrap()
    );
    assert!(!journal.exists(), "a finished run removes its journal");
}

#[test]
fn plain_move_lists_and_bad_input() {
    let dir = scratch("plain");
    let plain = dir.join("plain.txt");
    std::fs::write(&plain, "@c3 @d3 c3c4\n1. @a1 @b1 2. a1a2\n").unwrap();
    let out = dir.join("plain-out.pgn");
    let summary = analyse(&plain, &out, &["--depth", "2"]);
    assert_eq!(summary.matches("Game ").count(), 2, "{summary}");
    assert!(std::fs::read_to_string(&out).unwrap().contains("1. @a1 {"));

    let bad = dir.join("bad.txt");
    std::fs::write(&bad, "@c3 @d3\n@c3 @c3\n").unwrap();
    let refused = Command::new(BIN)
        .args(["analyse", bad.to_str().unwrap(), "--depth", "2"])
        .output()
        .unwrap();
    assert!(!refused.status.success());
    let err = String::from_utf8_lossy(&refused.stderr);
    assert!(err.contains("game 2: ply 2: move '@c3'"), "{err}");
    let unlimited = Command::new(BIN)
        .args(["analyse", plain.to_str().unwrap()])
        .output()
        .unwrap();
    assert!(!unlimited.status.success());
    assert!(String::from_utf8_lossy(&unlimited.stderr).contains("--nodes, --depth or --movetime"));
    // The pair: which limit would win was not said.
    let two_limits = Command::new(BIN)
        .args(["analyse", plain.to_str().unwrap()])
        .args(["--nodes", "100", "--depth", "3"])
        .output()
        .unwrap();
    assert!(!two_limits.status.success());
    let err = String::from_utf8_lossy(&two_limits.stderr);
    assert!(
        err.contains("one limit") && err.contains("--nodes and --depth"),
        "{err}"
    );
}

#[test]
fn the_summary_counts_in_words_and_names_colours_once() {
    let dir = scratch("summary");
    let plain = dir.join("one.txt");
    // The game: no player names, one move for Black.
    std::fs::write(&plain, "@c3 @d3 c3c4\n").unwrap();
    let summary = analyse(&plain, &dir.join("one-out.pgn"), &["--depth", "2"]);
    assert!(!summary.contains("White (White)"), "{summary}");
    assert!(summary.contains("\n  White: 2 moves, "), "{summary}");
    assert!(summary.contains("\n  Black: 1 move, "), "{summary}");
    assert!(summary.contains("White: 1 game, "), "{summary}");
    for word in [
        "moves",
        "inaccuracies",
        "mistakes",
        "blunders",
        "games",
        "plies",
    ] {
        assert!(
            !summary.contains(&format!(" 1 {word}")),
            "{word}: {summary}"
        );
    }
}

#[test]
fn a_winning_move_is_a_win_in_one_ply_without_a_depth() {
    let dir = scratch("winning");
    // c2e2xb2 wins at once: the comment was `+W0/0`.
    let pgn = dir.join("won.pgn");
    std::fs::write(
        &pgn,
        "[Event \"t\"]\n[FEN \"6/6/2W3/1BWB2/W5 w 0 0 0 1\"]\n[Result \"1-0\"]\n\n1. c2e2xb2 1-0\n",
    )
    .unwrap();
    let out = dir.join("won-out.pgn");
    analyse(&pgn, &out, &["--depth", "3"]);
    let annotated = std::fs::read_to_string(&out).unwrap();
    assert!(annotated.contains("1. c2e2xb2 {+W1}"), "{annotated}");
}

/// Every move of an annotated file with its comment.
fn commented_moves(path: &Path) -> Vec<(String, String)> {
    let text = std::fs::read_to_string(path).unwrap();
    GameRecord::parse_all(&text)
        .unwrap()
        .into_iter()
        .flat_map(|g| g.moves.into_iter().zip(g.comments))
        .collect()
}

/// The move a comment names as better, if it marks the move.
fn named_best(comment: &str) -> Option<&str> {
    let (_, rest) = comment.split_once(", best ")?;
    rest.split_whitespace().next()
}

#[test]
fn a_move_is_never_marked_as_a_mistake_relative_to_itself() {
    // The setting: self-play games analysed at 5,000 nodes, where
    // 10 of 37 marks named the played move as the best one.
    let dir = scratch("itself");
    let pgn = dir.join("selfplay.pgn");
    let engine = format!("cmd={BIN}");
    yote(&[
        "match",
        "--nodes",
        "2000",
        "--games",
        "6",
        "--seed",
        "2026",
        "--pgn",
        pgn.to_str().unwrap(),
        "--engine",
        &format!("name=a,{engine}"),
        "--engine",
        &format!("name=b,{engine}"),
        "--quiet",
    ]);
    let out = dir.join("selfplay-out.pgn");
    analyse(&pgn, &out, &["--nodes", "5000", "--threads", "2"]);
    let moves = commented_moves(&out);
    let marked: Vec<&(String, String)> = moves
        .iter()
        .filter(|(_, c)| named_best(c).is_some())
        .collect();
    assert!(!marked.is_empty(), "no marks to check");
    for (mv, comment) in &marked {
        assert_ne!(named_best(comment), Some(mv.as_str()), "{mv} {{{comment}}}");
        // Both values searched, to one depth, and it is shown.
        let (played, rest) = comment.split_once(' ').unwrap();
        let best = rest
            .split(", best ")
            .nth(1)
            .unwrap()
            .split([' ', ';'])
            .nth(1)
            .unwrap();
        let depth = |v: &str| v.split_once('/').map(|(_, d)| d.to_string());
        if depth(played).is_some() && depth(best).is_some() {
            assert_eq!(depth(played), depth(best), "{mv} {{{comment}}}");
        }
    }
}

#[test]
fn inside_the_tables_a_thrown_win_is_a_blunder_by_exact_value() {
    let dir = scratch("tables");
    let tables = five_piece_tables(&dir);
    // White wins at once here (c2e2xb2); after c3d3 Black wins at once.
    let pgn = one_game(&dir, "thrown", "6/6/2W3/1BWB2/W5 w 0 0 0 1", "1. c3d3");
    let out = dir.join("thrown-out.pgn");
    let summary = analyse(
        &pgn,
        &out,
        &["--depth", "1", "--tablebases", tables.to_str().unwrap()],
    );
    let annotated = std::fs::read_to_string(&out).unwrap();
    // Exact values carry no depth: the loss is two plies away from the
    // mover, the win one.
    assert!(
        annotated.contains("{-L2 ?? blunder, best c2e2xb2 +W1;"),
        "{annotated}"
    );
    assert!(summary.contains("1 blunder\n"), "{summary}");
    // Tables of nowhere are an error, not a silent analysis without them.
    let missing = Command::new(BIN)
        .args([
            "analyse",
            pgn.to_str().unwrap(),
            "--depth",
            "1",
            "--tablebases",
        ])
        .arg(dir.join("nowhere"))
        .output()
        .unwrap();
    assert!(!missing.status.success());
    assert!(String::from_utf8_lossy(&missing.stderr).contains("--tablebases"));
}

/// Issue 17: a plain move list saved with a byte-order mark (as Windows
/// editors do) had its first move reported malformed.
#[test]
fn a_move_list_starting_with_a_byte_order_mark_is_read() {
    let dir = scratch("bom");
    let plain = dir.join("bom.txt");
    std::fs::write(&plain, "\u{feff}@c3 @d3 c3c4\n").unwrap();
    let out = dir.join("bom-out.pgn");
    let summary = analyse(&plain, &out, &["--depth", "1"]);
    assert_eq!(summary.matches("Game ").count(), 1, "{summary}");
    assert!(std::fs::read_to_string(&out).unwrap().contains("1. @c3 {"));
}

/// Issue 19: with removals owed the tables gave the position a value no
/// removal has, and analysis marked the best removal `??`.
#[test]
fn the_best_removal_owed_is_not_a_blunder() {
    let dir = scratch("owed");
    let tables = five_piece_tables(&dir);
    let pgn = one_game(&dir, "owed", "W5/6/1WB2W/4B1/6 b 0 0 0 5 x1", "5... xb3");
    let out = dir.join("owed-out.pgn");
    analyse(
        &pgn,
        &out,
        &["--depth", "1", "--tablebases", tables.to_str().unwrap()],
    );
    let annotated = std::fs::read_to_string(&out).unwrap();
    assert!(annotated.contains("xb3 {=D}"), "{annotated}");
    assert!(!annotated.contains("??"), "{annotated}");
}

/// The standard tables of up to 5 pieces, made in `dir`.
fn five_piece_tables(dir: &Path) -> PathBuf {
    let tables = dir.join("tb");
    yote(&[
        "tb",
        "generate",
        "--pieces",
        "5",
        "--dir",
        tables.to_str().unwrap(),
    ]);
    tables
}

/// A records file of one game from `fen` with `moves`, unfinished.
fn one_game(dir: &Path, name: &str, fen: &str, moves: &str) -> PathBuf {
    let pgn = dir.join(format!("{name}.pgn"));
    std::fs::write(
        &pgn,
        format!("[Event \"t\"]\n[FEN \"{fen}\"]\n[Result \"*\"]\n\n{moves} *\n"),
    )
    .unwrap();
    pgn
}

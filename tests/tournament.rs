//! The match runner against the fake engine (tests/support/fake_engine.rs):
//! every kind of misbehaviour is a loss for the right reason and the
//! tournament goes on; seeded runs repeat; records replay and rescore; SPRT
//! stops a run; the variant reaches every engine.

mod support;

use std::process::Command;
use yote::client::records::GameRecord;
use yote::results::stats::Hypothesis;
use yote::results::{rescore, rescore_files};
use yote::rules::{Game, Rules, Variant};
use yote::tournament::game::Termination;
use yote::tournament::{MatchConfig, MatchReport, PlayedGame, parse_args, run_match};

fn engine(name: &str, flags: &str) -> String {
    format!("name={name},cmd={} {flags}", support::fake_engine())
}

fn config(args: &[String]) -> MatchConfig {
    let mut all = vec!["--quiet".to_string()];
    all.extend_from_slice(args);
    MatchConfig::from_args(&parse_args(all).expect("valid flags")).expect("valid config")
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

/// A finished match and its games in schedule order (the runner itself
/// keeps no games; these are collected through its `on_game`).
struct Run {
    report: MatchReport,
    games: Vec<PlayedGame>,
}

impl std::ops::Deref for Run {
    type Target = MatchReport;
    fn deref(&self) -> &MatchReport {
        &self.report
    }
}

fn run_config(config: &MatchConfig) -> Run {
    let mut games = Vec::new();
    let report = run_match(config, &mut |g| games.push(g.clone())).expect("the match runs");
    games.sort_by_key(|g| g.job.index);
    Run { report, games }
}

fn play(args: &[String]) -> Run {
    run_config(&config(args))
}

/// The loser's name and the termination code of each game.
fn losers(report: &Run, names: &[&str]) -> Vec<(String, String)> {
    report
        .games
        .iter()
        .map(|g| {
            let (w, b) = (
                g.record.tag("White").unwrap(),
                g.record.tag("Black").unwrap(),
            );
            let loser = match &g.termination {
                Termination::Forfeit { loser, .. } if loser.index() == 0 => w,
                Termination::Forfeit { .. } => b,
                other => panic!("{names:?}: game {} ended by {other}", g.job.index),
            };
            (loser.to_string(), g.termination.code())
        })
        .collect()
}

#[test]
fn every_misbehaviour_loses_for_its_reason_and_the_match_goes_on() {
    let bad = [
        ("illegal", "--mode illegal --at 2", "illegal move"),
        ("crash", "--mode crash --at 3", "crash"),
        ("overrun", "--mode overrun --at 2", "time forfeit"),
        ("garbage", "--mode garbage --at 2", "garbage output"),
        ("malformed", "--mode malformed --at 1", "malformed reply"),
        ("hang", "--mode hang --at 2", "time forfeit"),
    ];
    let mut args = vec!["--engine".to_string(), engine("good", "")];
    for (name, flags, _) in bad {
        args.extend(["--engine".to_string(), engine(name, flags)]);
    }
    args.extend(strings(&[
        "--gauntlet",
        "--games",
        "2",
        "--concurrency",
        "3",
        "--tc",
        "1+0.01",
        "--timeout-margin",
        "200",
    ]));
    let report = play(&args);
    assert_eq!(report.games.len(), 12, "every scheduled game is played");
    let names: Vec<&str> = bad.iter().map(|b| b.0).collect();
    for (loser, code) in losers(&report, &names) {
        let expected = bad.iter().find(|b| b.0 == loser).map(|b| b.2);
        assert_eq!(Some(code.as_str()), expected, "{loser} lost by {code}");
    }
    for (name, restarts) in &report.restarts {
        let expected = if name == "good" { 0 } else { 2 };
        assert_eq!(*restarts, expected, "{name} restarts");
    }
    for tally in &report.tallies {
        assert_eq!(
            (tally.games.wins, tally.games.losses),
            (2, 0),
            "{} vs {}",
            tally.a,
            tally.b
        );
    }
}

#[test]
fn a_silent_engine_without_a_clock_is_hung() {
    let report = play(&strings(&[
        "--engine",
        &engine("good", ""),
        "--engine",
        &engine("hang", "--mode hang --at 1"),
        "--depth",
        "1",
        "--move-timeout",
        "300",
        "--games",
        "2",
    ]));
    let codes: Vec<String> = report.games.iter().map(|g| g.termination.code()).collect();
    assert_eq!(codes, ["hang", "hang"]);
    assert_eq!(report.tallies[0].games.wins, 2);
}

#[test]
fn same_seed_same_games_and_records_replay_and_rescore() {
    let pgn = std::env::temp_dir().join(format!("yote-match-{}.pgn", std::process::id()));
    let _ = std::fs::remove_file(&pgn);
    let run = |seed: &str, concurrency: &str, pgn: Option<&std::path::Path>| {
        let mut args = strings(&[
            "--engine",
            &engine("a", "--seed 1"),
            "--engine",
            &format!("{},proto=uci", engine("b", "--seed 2")),
            "--variant",
            "multi_jump=true,bonus_turn=true,no_capture_draw=40",
            "--depth",
            "1",
            "--games",
            "16",
            "--concurrency",
            concurrency,
            "--opening-plies",
            "6",
            "--seed",
            seed,
        ]);
        if let Some(path) = pgn {
            args.extend(["--pgn".to_string(), path.display().to_string()]);
        }
        play(&args)
    };
    let first = run("7", "2", Some(&pgn));
    let again = run("7", "1", None);
    let other = run("8", "2", None);
    let games = |r: &Run| -> Vec<(Vec<String>, String)> {
        r.games
            .iter()
            .map(|g| {
                (
                    g.record.moves.clone(),
                    g.record.tag("Result").unwrap().to_string(),
                )
            })
            .collect()
    };
    assert_eq!(games(&first), games(&again));
    assert_ne!(games(&first), games(&other));

    let text = std::fs::read_to_string(&pgn).unwrap();
    let _ = std::fs::remove_file(&pgn);
    let records = GameRecord::parse_all(&text).unwrap();
    assert_eq!(records.len(), 16);
    for record in &records {
        replay_matches_result(record);
    }
    let tallies = rescore(&text).unwrap();
    assert_eq!(tallies[0].games, first.tallies[0].games);
    assert_eq!(tallies[0].pairs, first.tallies[0].pairs);
}

/// A record replays legally from its FEN under its variant, and a game the
/// rules ended is over with the recorded result.
fn replay_matches_result(record: &GameRecord) {
    let rules = Rules::new(Variant::from_spec(record.tag("Variant").unwrap()).unwrap()).unwrap();
    let start = rules.parse_position(record.tag("FEN").unwrap()).unwrap();
    let mut game = Game::from_position(rules, start);
    for mv in &record.moves {
        game.play_text(mv).unwrap();
    }
    let end = game.status().expect("depth-1 games end by the rules here");
    let expected = match end.winner() {
        Some(p) if p.index() == 0 => "1-0",
        Some(_) => "0-1",
        None => "1/2-1/2",
    };
    assert_eq!(record.tag("Result"), Some(expected));
    assert_eq!(
        record.tag("Termination"),
        Some(end.reason.to_string().as_str())
    );
}

#[test]
fn sprt_stops_the_run_once_decided() {
    let report = play(&strings(&[
        "--engine",
        &engine("good", ""),
        "--engine",
        &engine("bad", "--mode illegal --at 1"),
        "--depth",
        "1",
        "--games",
        "1000",
        "--concurrency",
        "2",
        "--sprt",
        "elo0=0,elo1=10",
    ]));
    let sprt = report.sprt.expect("an SPRT was run");
    assert_eq!(sprt.decision, Some(Hypothesis::H1));
    // The exact GLLR of n won pairs for [0, 10] is 0.02837 n
    // (scripts/match/match_stats_reference.py): 104 pairs reach 2.94.
    assert!(
        (208..=212).contains(&report.games.len()),
        "stopped after {} games",
        report.games.len()
    );
}

#[test]
fn adjudication_by_plies_and_by_scores() {
    let base = |extra: &[&str]| {
        let mut args = strings(&[
            "--engine",
            &engine("a", "--seed 3"),
            "--engine",
            &engine("b", "--seed 4"),
        ]);
        args.extend(strings(&["--depth", "1", "--games", "6"]));
        args.extend(strings(extra));
        play(&args)
    };
    let capped = base(&["--max-plies", "12"]);
    assert!(
        capped
            .games
            .iter()
            .all(|g| g.termination.code() == "max plies")
    );
    assert!(capped.games.iter().all(|g| g.record.moves.len() == 12));
    let resigned = base(&["--resign", "cp=200,plies=2"]);
    assert!(
        resigned
            .games
            .iter()
            .any(|g| g.termination.code() == "resign by scores"),
        "{:?}",
        resigned.tallies[0].terminations
    );
}

#[test]
fn an_engine_on_other_rules_is_refused_before_play() {
    // UGI: caught by `query fen`; UCI: by the `info string variant` line.
    for proto in ["ugi", "uci"] {
        let wrong = format!("{},proto={proto}", engine("wrong", "--mode wrong-variant"));
        let args = parse_args(strings(&[
            "--quiet",
            "--engine",
            &engine("a", ""),
            "--engine",
            &wrong,
            "--depth",
            "1",
        ]))
        .unwrap();
        let err = run_match(&MatchConfig::from_args(&args).unwrap(), &mut |_| {}).unwrap_err();
        let text = format!("{err:#}");
        assert!(
            text.contains("'wrong'") && text.contains("start position"),
            "{text}"
        );
    }
}

#[test]
fn openings_file_pairs_each_opening_with_swapped_colours() {
    let path = std::env::temp_dir().join(format!("yote-openings-{}.txt", std::process::id()));
    std::fs::write(&path, "# two openings\n@a1 @f5\n6/6/6/2W3/6 b 11 12 0 1\n").unwrap();
    let report = play(&strings(&[
        "--engine",
        &engine("a", ""),
        "--engine",
        &engine("b", "--mode first"),
        "--depth",
        "1",
        "--games",
        "4",
        "--openings",
        &path.display().to_string(),
        "--openings-in-order",
    ]));
    let _ = std::fs::remove_file(&path);
    let openings: Vec<&str> = report
        .games
        .iter()
        .map(|g| g.record.tag("Opening").unwrap())
        .collect();
    assert_eq!(
        openings,
        [
            "startpos moves @a1 @f5",
            "startpos moves @a1 @f5",
            "fen 6/6/6/2W3/6 b 11 12 0 1",
            "fen 6/6/6/2W3/6 b 11 12 0 1"
        ]
    );
    let whites: Vec<&str> = report
        .games
        .iter()
        .map(|g| g.record.tag("White").unwrap())
        .collect();
    assert_eq!(whites, ["a", "b", "a", "b"]);
}

#[test]
fn the_command_line_plays_writes_records_and_rescores() {
    let pgn = std::env::temp_dir().join(format!("yote-cli-{}.pgn", std::process::id()));
    let _ = std::fs::remove_file(&pgn);
    let yote = env!("CARGO_BIN_EXE_yote");
    let out = Command::new(yote)
        .args(["match", "--engine", &engine("x", "")])
        .args(["--engine", &engine("y", "--mode first")])
        .args(["--depth", "1", "--games", "4", "--variant", "6x6", "--pgn"])
        .arg(&pgn)
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("x vs y: 4 games"), "{stdout}");
    assert!(stdout.contains("pentanomial: Elo"), "{stdout}");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("[4/4] ") && stderr.contains("left | x vs y: "),
        "{stderr}"
    );
    let rescored = Command::new(yote)
        .args(["match", "--rescore"])
        .arg(&pgn)
        .output()
        .unwrap();
    let _ = std::fs::remove_file(&pgn);
    let again = String::from_utf8_lossy(&rescored.stdout);
    let first_line = |s: &str| s.lines().next().unwrap_or("").to_string();
    assert_eq!(first_line(&again), first_line(&stdout));
}

fn temp(name: &str) -> std::path::PathBuf {
    std::env::temp_dir().join(format!("yote-{name}-{}", std::process::id()))
}

fn codes(report: &Run) -> Vec<String> {
    report.games.iter().map(|g| g.termination.code()).collect()
}

#[test]
fn hostile_output_is_bounded_and_the_deadline_fires() {
    // An endless line is garbage at 64 KiB; a flood of info lines without
    // bestmove loses on time at the deadline instead of being read forever.
    let started = std::time::Instant::now();
    let report = play(&strings(&[
        "--engine",
        &engine("good", ""),
        "--engine",
        &engine("endless", "--mode endless-line --at 1"),
        "--engine",
        &engine("flood", "--mode flood --at 1"),
        "--gauntlet",
        "--tc",
        "0.3+0",
        "--games",
        "2",
        "--concurrency",
        "2",
    ]));
    assert!(started.elapsed() < std::time::Duration::from_secs(10));
    let mut by_loser = losers(&report, &["endless", "flood"]);
    by_loser.sort();
    assert_eq!(
        by_loser,
        [
            ("endless".to_string(), "garbage output".to_string()),
            ("endless".to_string(), "garbage output".to_string()),
            ("flood".to_string(), "time forfeit".to_string()),
            ("flood".to_string(), "time forfeit".to_string()),
        ]
    );
}

#[test]
fn a_dead_engine_with_a_live_grandchild_is_a_crash_and_the_grandchild_dies() {
    let logs = temp("logs");
    let _ = std::fs::remove_dir_all(&logs);
    let report = play(&strings(&[
        "--engine",
        &engine("good", ""),
        "--engine",
        &engine("orphan", "--mode orphan --at 2"),
        "--depth",
        "1",
        "--move-timeout",
        "20000",
        "--games",
        "2",
        "--log-dir",
        &logs.display().to_string(),
        "--log-protocol",
    ]));
    assert_eq!(codes(&report), ["crash", "crash"]);
    let stderr = std::fs::read_to_string(logs.join("orphan.stderr")).unwrap();
    let pids: Vec<u32> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("grandchild ")?.parse().ok())
        .collect();
    assert_eq!(pids.len(), 2, "{stderr}");
    std::thread::sleep(std::time::Duration::from_millis(200));
    for pid in pids {
        let status = std::fs::read_to_string(format!("/proc/{pid}/stat")).unwrap_or_default();
        // Gone, or a zombie waiting for init to reap it.
        assert!(
            status.is_empty() || status.contains(") Z "),
            "grandchild {pid} lives: {status}"
        );
    }
    // One protocol log per process: the preflight's, and the game's.
    let logged: Vec<String> = std::fs::read_dir(&logs)
        .unwrap()
        .filter_map(Result::ok)
        .filter(|e| e.file_name().to_string_lossy().starts_with("good-"))
        .map(|e| std::fs::read_to_string(e.path()).unwrap())
        .collect();
    assert!(
        logged
            .iter()
            .any(|t| t.contains(" < go depth 1") && t.contains(" > bestmove ")),
        "{logged:?}"
    );
    let _ = std::fs::remove_dir_all(&logs);
}

#[test]
fn a_late_second_bestmove_is_not_the_next_answer_and_extreme_scores_saturate() {
    let report = play(&strings(&[
        "--engine",
        &engine("double", "--mode double-bestmove --seed 5"),
        "--engine",
        &engine("extreme", "--mode extreme-score --seed 6"),
        "--depth",
        "1",
        "--games",
        "6",
        "--draw",
        "cp=10,plies=4",
    ]));
    for code in codes(&report) {
        // No forfeit for the stale answers, and -2147483648 is no draw score.
        assert!(
            !["illegal move", "malformed reply", "draw by scores"].contains(&code.as_str()),
            "{code}"
        );
    }
    let comment = &report.games[0].record.comments;
    assert!(
        comment.iter().any(|c| c.starts_with("-M/1 ")),
        "{comment:?}"
    );
}

#[test]
fn other_rules_and_bad_options_are_refused_by_name() {
    let refused = |extra: &[&str], why: &[&str]| {
        let mut args = strings(&["--quiet", "--engine", &engine("a", ""), "--depth", "1"]);
        args.extend(strings(extra));
        let config = MatchConfig::from_args(&parse_args(args).unwrap()).unwrap();
        let text = format!("{:#}", run_match(&config, &mut |_| {}).unwrap_err());
        for fragment in why {
            assert!(text.contains(fragment), "{extra:?}: {text}");
        }
    };
    // The issue's case: same start position, other rules.
    let no_bonus = format!("{},option.BonusTurn=false", engine("b", ""));
    refused(
        &["--engine", &no_bonus, "--variant", "all-options"],
        &["'b'", "bonus_turn=false", "bonus_turn=true"],
    );
    let typo = format!("{},option.Style=randm", engine("b", ""));
    refused(
        &["--engine", &typo],
        &["'b'", "option Style", "'randm' refused"],
    );
    let unknown = format!("{},option.Colour=red", engine("b", ""));
    refused(
        &["--engine", &unknown],
        &["option Colour", "no such option"],
    );
}

#[test]
fn option_values_with_commas_reach_the_real_engine() {
    let yote = env!("CARGO_BIN_EXE_yote");
    let report = play(&strings(&[
        "--engine",
        &format!(r"name=yote,cmd={yote},option.SearchFeatures=-tt\,-lmr"),
        "--engine",
        &engine("fake", ""),
        "--depth",
        "1",
        "--games",
        "2",
    ]));
    let options = report.games[0].record.tag("WhiteOptions");
    assert_eq!(options, Some("SearchFeatures=-tt,-lmr"));
}

#[test]
fn appended_runs_rescore_separately() {
    // The issue's case: two identical runs in one file used to pair games
    // across runs ([1,0,1,0,3] twice rescored as [3,0,0,0,7]).
    let pgn = temp("appended.pgn");
    let _ = std::fs::remove_file(&pgn);
    let args = strings(&[
        "--engine",
        &engine("a", "--seed 1"),
        "--engine",
        &engine("b", "--seed 2"),
        "--depth",
        "1",
        "--games",
        "10",
        "--pgn",
        &pgn.display().to_string(),
    ]);
    let first = play(&args);
    play(&args);
    let text = std::fs::read_to_string(&pgn).unwrap();
    let _ = std::fs::remove_file(&pgn);
    let tallies = rescore(&text).unwrap();
    let doubled = first.tallies[0].pairs.0.map(|n| 2 * n);
    assert_eq!(tallies[0].pairs.0, doubled);
    assert_eq!(tallies[0].games.games(), 20);
}

/// Moves and result of every game, by game number.
fn games_by_number(text: &str) -> std::collections::BTreeMap<u64, (Vec<String>, String)> {
    GameRecord::parse_all(text)
        .unwrap()
        .into_iter()
        .map(|g| {
            let number = g.tag("Game").unwrap().parse().unwrap();
            (number, (g.moves.clone(), g.result.to_string()))
        })
        .collect()
}

#[test]
fn shards_merged_equal_one_unsharded_run_game_for_game() {
    let base = |extra: &[&str]| {
        let mut args = strings(&[
            "--engine",
            &engine("a", "--seed 11"),
            "--engine",
            &engine("b", "--seed 12"),
            "--engine",
            &engine("c", "--seed 13"),
            "--depth",
            "1",
            "--games",
            "8",
            "--seed",
            "5",
        ]);
        args.extend(strings(extra));
        args
    };
    let whole = temp("whole.pgn");
    let _ = std::fs::remove_file(&whole);
    let all = play(&base(&["--pgn", &whole.display().to_string()]));
    let whole_text = std::fs::read_to_string(&whole).unwrap();
    let _ = std::fs::remove_file(&whole);
    let mut shard_texts = Vec::new();
    let mut played = 0;
    for k in 1..=3 {
        let path = temp(&format!("shard{k}.pgn"));
        let _ = std::fs::remove_file(&path);
        let share = play(&base(&[
            "--shard",
            &format!("{k}/3"),
            "--pgn",
            &path.display().to_string(),
        ]));
        played += share.played;
        shard_texts.push(std::fs::read_to_string(&path).unwrap());
        let _ = std::fs::remove_file(&path);
    }
    assert_eq!(played, all.played);
    let mut merged = std::collections::BTreeMap::new();
    for text in &shard_texts {
        for (number, game) in games_by_number(text) {
            assert!(merged.insert(number, game).is_none(), "game {number} twice");
        }
    }
    assert_eq!(merged, games_by_number(&whole_text));
    let from_shards = rescore_files(&shard_texts).unwrap();
    let from_whole = rescore(&whole_text).unwrap();
    assert_eq!(from_shards.len(), 3);
    for (s, w) in from_shards.iter().zip(&from_whole) {
        assert_eq!(
            (&s.a, &s.b, s.games, s.pairs),
            (&w.a, &w.b, w.games, w.pairs)
        );
    }
}

/// A merge of shards names a share whose task failed: one with no records
/// file at all, one cut short (its last game pair lost); the statistics of
/// the games that are there still print, and the merge exits non-zero. The
/// whole set merges cleanly (issue 42).
#[test]
fn a_merge_reports_a_missing_or_short_shard() {
    let yote = env!("CARGO_BIN_EXE_yote");
    let dir = temp("short-shard");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let shard = |k: usize| dir.join(format!("shard-{k}.pgn"));
    for k in 1..=3 {
        let out = Command::new(yote)
            .args(["match", "--quiet", "--depth", "1", "--games", "12"])
            .args(["--seed", "4", "--shard", &format!("{k}/3")])
            .args(["--engine", &engine("a", "--seed 1")])
            .args(["--engine", &engine("b", "--seed 2")])
            .arg("--pgn")
            .arg(shard(k))
            .output()
            .unwrap();
        assert!(out.status.success(), "shard {k}");
    }
    let merge = |files: &[std::path::PathBuf]| {
        let out = Command::new(yote)
            .args(["match", "--rescore"])
            .args(files)
            .output()
            .unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr).to_string();
        (out.status.success(), stdout, stderr)
    };
    let (ok, stdout, stderr) = merge(&[shard(1), shard(2), shard(3)]);
    assert!(ok, "{stdout}{stderr}");
    assert!(!stdout.contains("incomplete"), "{stdout}");

    // Share 2's task died before its last game pair: 4 games, 2 kept.
    let text = std::fs::read_to_string(shard(2)).unwrap();
    let games = GameRecord::parse_all(&text).unwrap();
    assert_eq!(games.len(), 4);
    let kept: String = games[..2].iter().map(|g| g.write()).collect();
    std::fs::write(shard(2), kept).unwrap();
    // Share 3's task never started: no file, so the glob leaves it out.
    let (ok, stdout, stderr) = merge(&[shard(1), shard(2)]);
    let _ = std::fs::remove_dir_all(&dir);
    assert!(!ok, "an incomplete merge fails: {stdout}");
    assert!(
        stdout.contains("a vs b: 6 games"),
        "the statistics of the games there still print: {stdout}"
    );
    for line in [
        "shard 2/3 of seed=4 ",
        ": 2 of its 4 games",
        "shard 3/3 of seed=4 ",
    ] {
        assert!(stdout.contains(line), "{line}: {stdout}");
    }
    assert!(stdout.contains("no records"), "{stdout}");
    assert!(stderr.contains("the merge is incomplete"), "{stderr}");
}

/// The engine processes the runner started (children of any of its
/// threads).
fn children(pid: u32) -> Vec<i32> {
    let mut found = Vec::new();
    let Ok(tasks) = std::fs::read_dir(format!("/proc/{pid}/task")) else {
        return found;
    };
    for task in tasks.flatten() {
        let list = std::fs::read_to_string(task.path().join("children")).unwrap_or_default();
        found.extend(
            list.split_whitespace()
                .filter_map(|p| p.parse::<i32>().ok()),
        );
    }
    found
}

/// A scheduler that stops a job (Slurm's scancel or requeue, a pod's
/// eviction) sends SIGTERM to every process of it at once: the engines
/// die of it a moment before the runner hears it. Their games are
/// interrupted, not lost by a "crash"; the resumed run then plays them, so
/// the records equal an unstopped run's (issue 42: seen in the Slurm
/// requeue test, where a game was recorded as "killed by signal 15").
#[test]
fn engines_stopped_with_the_runner_forfeit_no_game() {
    let yote = env!("CARGO_BIN_EXE_yote");
    let dir = temp("stopped-job");
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    let start = |pgn: &std::path::Path, resume: bool| {
        let mut command = Command::new(yote);
        command
            .args(["match", "--quiet", "--nodes", "2000", "--games", "4"])
            .args(["--seed", "3", "--concurrency", "2"])
            .args(["--engine", &format!("name=a,cmd={yote}")])
            .args([
                "--engine",
                &format!("name=b,cmd={yote},option.SearchFeatures=-lmr"),
            ])
            .arg("--pgn")
            .arg(pgn)
            .stdout(std::process::Stdio::null())
            .stderr(std::process::Stdio::null());
        if resume {
            command.arg("--resume");
        }
        command.spawn().unwrap()
    };
    let stopped = dir.join("stopped.pgn");
    let mut runner = start(&stopped, false);
    let began = std::time::Instant::now();
    let engines = loop {
        let engines = children(runner.id());
        if engines.len() == 4 {
            break engines;
        }
        assert!(
            began.elapsed() < std::time::Duration::from_secs(20),
            "{engines:?}"
        );
        std::thread::sleep(std::time::Duration::from_millis(20));
    };
    std::thread::sleep(std::time::Duration::from_millis(300)); // into the games
    for pid in engines {
        // SAFETY: signals processes this test's child started.
        unsafe { libc::kill(pid, libc::SIGTERM) };
    }
    std::thread::sleep(std::time::Duration::from_millis(30));
    unsafe { libc::kill(runner.id() as i32, libc::SIGTERM) };
    runner.wait().unwrap();
    let text = std::fs::read_to_string(&stopped).unwrap_or_default();
    assert!(!text.contains("crash"), "{text}");
    assert!(start(&stopped, true).wait().unwrap().success());
    let whole = dir.join("whole.pgn");
    assert!(start(&whole, false).wait().unwrap().success());
    let resumed = games_by_number(&std::fs::read_to_string(&stopped).unwrap());
    let unstopped = games_by_number(&std::fs::read_to_string(&whole).unwrap());
    let _ = std::fs::remove_dir_all(&dir);
    assert_eq!(resumed, unstopped);
}

#[test]
fn standings_and_crosstable_for_a_round_robin() {
    let yote = env!("CARGO_BIN_EXE_yote");
    let out = Command::new(yote)
        .args(["match", "--quiet", "--depth", "1", "--games", "4"])
        .args(["--show-games", "--rating-interval", "6"])
        .args(["--engine", &engine("x", "--seed 1")])
        .args(["--engine", &engine("y", "--mode first")])
        .args(["--engine", &engine("z", "--seed 3")])
        .output()
        .unwrap();
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(out.status.success(), "{stdout}");
    assert!(stdout.contains("Rank Engine"), "{stdout}");
    for name in ["1. ", "2. ", "3. "] {
        assert!(stdout.contains(name), "{stdout}");
    }
    assert_eq!(
        stdout.matches("/4 ").count() + stdout.matches("/4\n").count(),
        6,
        "{stdout}"
    );
}

#[test]
fn records_have_standard_tags_and_seed_the_next_run() {
    let pgn = temp("tags.pgn");
    let _ = std::fs::remove_file(&pgn);
    let openings = temp("black.txt");
    std::fs::write(&openings, "6/6/6/2W3/6 b 11 12 0 1\n").unwrap();
    let first = play(&strings(&[
        "--engine",
        &engine("a", ""),
        "--engine",
        &engine("b", ""),
        "--tc",
        "40/5+0.1",
        "--games",
        "2",
        "--event",
        "club night",
        "--openings",
        &openings.display().to_string(),
        "--pgn",
        &pgn.display().to_string(),
    ]));
    let _ = std::fs::remove_file(&openings);
    let record = &first.games[0].record;
    for (tag, value) in [
        ("Event", "club night"),
        ("Round", "1"),
        ("TimeControl", "40/5+0.1"),
    ] {
        assert_eq!(record.tag(tag), Some(value), "{tag}");
    }
    for tag in ["Site", "Date", "Run"] {
        assert!(record.tag(tag).is_some_and(|v| !v.is_empty()), "{tag}");
    }
    assert!(record.write().contains("\n1... "), "{}", record.write());
    // The records file itself is an openings file for the next run.
    let again = play(&strings(&[
        "--engine",
        &engine("a", ""),
        "--engine",
        &engine("b", ""),
        "--depth",
        "1",
        "--games",
        "2",
        "--openings",
        &pgn.display().to_string(),
    ]));
    let _ = std::fs::remove_file(&pgn);
    assert_eq!(
        again.games[0].record.tag("Opening"),
        Some("fen 6/6/6/2W3/6 b 11 12 0 1")
    );
}

/// `yote match` with the fake engines on a deterministic limit, so every
/// run with the same seed plays the same games.
fn match_command(pgn: &std::path::Path, extra: &[&str]) -> Command {
    let mut command = Command::new(env!("CARGO_BIN_EXE_yote"));
    command
        .args(["match", "--quiet", "--depth", "1", "--games", "300"])
        .args(["--concurrency", "2", "--seed", "9"])
        .args(["--engine", &engine("a", "--seed 1")])
        .args(["--engine", &engine("b", "--seed 2")])
        .arg("--pgn")
        .arg(pgn)
        .args(extra);
    command
}

/// Starts the command, and sends `signal` once the records file holds at
/// least `games` games; returns the exit status and stdout.
fn interrupt_after(
    mut command: Command,
    pgn: &std::path::Path,
    games: usize,
    signal: i32,
) -> (std::process::ExitStatus, String) {
    let child = command
        .stdout(std::process::Stdio::piped())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    loop {
        let text = std::fs::read_to_string(pgn).unwrap_or_default();
        if text.matches("[Game ").count() >= games {
            break;
        }
        assert!(std::time::Instant::now() < deadline, "too slow");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
    let pid = i32::try_from(child.id()).unwrap();
    // SAFETY: a plain kill(2) of our own child.
    unsafe {
        libc::kill(pid, signal);
    }
    let out = child.wait_with_output().unwrap();
    (out.status, String::from_utf8_lossy(&out.stdout).to_string())
}

/// The statistics lines of a summary (not the timing).
fn statistics(stdout: &str) -> Vec<String> {
    stdout
        .lines()
        .filter(|l| l.starts_with("a vs b") || l.contains("nomial:"))
        .map(str::to_string)
        .collect()
}

#[test]
fn a_run_killed_and_resumed_equals_an_uninterrupted_one() {
    let whole = temp("uninterrupted.pgn");
    let pieces = temp("interrupted.pgn");
    for path in [&whole, &pieces] {
        let _ = std::fs::remove_file(path);
    }
    let out = match_command(&whole, &[]).output().unwrap();
    assert!(out.status.success());
    let expected = String::from_utf8_lossy(&out.stdout).to_string();

    // SIGTERM: the results so far are printed, the exit is 128 + 15.
    let (status, stdout) = interrupt_after(match_command(&pieces, &[]), &pieces, 60, libc::SIGTERM);
    assert_eq!(status.code(), Some(143), "{stdout}");
    assert!(
        stdout.contains("interrupted: ") && stdout.contains("--resume"),
        "{stdout}"
    );
    assert!(stdout.contains("a vs b: "), "{stdout}");
    // SIGKILL while resuming (a machine going down): a record may be cut.
    let (status, _) = interrupt_after(
        match_command(&pieces, &["--resume"]),
        &pieces,
        150,
        libc::SIGKILL,
    );
    assert!(!status.success());
    let out = match_command(&pieces, &["--resume"]).output().unwrap();
    let resumed = String::from_utf8_lossy(&out.stdout).to_string();
    assert!(out.status.success(), "{resumed}");
    assert!(resumed.contains("resumed)"), "{resumed}");

    let whole_text = std::fs::read_to_string(&whole).unwrap();
    let pieces_text = std::fs::read_to_string(&pieces).unwrap();
    for path in [&whole, &pieces] {
        let _ = std::fs::remove_file(path);
    }
    assert_eq!(games_by_number(&pieces_text), games_by_number(&whole_text));
    assert_eq!(
        GameRecord::parse_all(&pieces_text).unwrap().len(),
        300,
        "each game once"
    );
    let runs: std::collections::HashSet<String> = GameRecord::parse_all(&pieces_text)
        .unwrap()
        .iter()
        .map(|g| g.tag("Run").unwrap().to_string())
        .collect();
    assert_eq!(runs.len(), 1, "one run, resumed under its own tag");
    assert_eq!(statistics(&resumed), statistics(&expected));
    assert_eq!(statistics(&expected).len(), 3);
}

/// The lines between `# shard script begin` and `# shard script end` of the
/// Kubernetes example, unindented.
fn k8s_shard_script(yaml: &str) -> String {
    let lines: Vec<&str> = yaml.lines().collect();
    let begin = lines
        .iter()
        .position(|l| l.trim() == "# shard script begin")
        .unwrap();
    let end = lines
        .iter()
        .position(|l| l.trim() == "# shard script end")
        .unwrap();
    let indent = lines[begin].len() - lines[begin].trim_start().len();
    lines[begin..=end]
        .iter()
        .map(|l| l.get(indent..).unwrap_or("").to_string() + "\n")
        .collect()
}

/// The YAML parses (where PyYAML is installed), is an Indexed Job whose
/// completions equal SHARDS, and runs the marked script.
fn check_k8s_yaml(path: &str, script: &str) {
    let check = format!(
        "import sys, yaml\n\
         job = yaml.safe_load(open('{path}'))\n\
         spec = job['spec']\n\
         assert job['kind'] == 'Job' and spec['completionMode'] == 'Indexed'\n\
         c = spec['template']['spec']['containers'][0]\n\
         env = {{e['name']: e['value'] for e in c['env']}}\n\
         assert int(env['SHARDS']) == spec['completions'] == spec['parallelism']\n\
         assert c['command'] == ['/bin/sh', '-c']\n\
         assert c['args'][0] == sys.stdin.read()\n"
    );
    let run = Command::new("python3")
        .args(["-c", &check])
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::piped())
        .spawn();
    let Ok(mut child) = run else {
        eprintln!("python3 missing: YAML structure not checked");
        return;
    };
    use std::io::Write as _;
    child
        .stdin
        .take()
        .unwrap()
        .write_all(script.as_bytes())
        .unwrap();
    let out = child.wait_with_output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    if stderr.contains("No module named 'yaml'") {
        eprintln!("PyYAML missing: YAML structure not checked");
        return;
    }
    assert!(out.status.success(), "{path}: {stderr}");
}

#[test]
fn cluster_examples_merge_to_one_run() {
    let root = env!("CARGO_MANIFEST_DIR");
    let yaml_path = format!("{root}/scripts/cluster/k8s_match_job.yaml");
    let slurm_path = format!("{root}/scripts/cluster/slurm_match.sh");
    let yaml = std::fs::read_to_string(&yaml_path).unwrap();
    let script = k8s_shard_script(&yaml);
    check_k8s_yaml(&yaml_path, &script);
    let syntax = Command::new("bash")
        .args(["-n", &slurm_path])
        .status()
        .unwrap();
    assert!(syntax.success(), "bash -n {slurm_path}");
    let slurm = std::fs::read_to_string(&slurm_path).unwrap();
    assert!(
        slurm.contains("#SBATCH --array=1-4"),
        "the documented default"
    );

    let results = temp("cluster");
    let _ = std::fs::remove_dir_all(&results);
    std::fs::create_dir_all(&results).unwrap();
    let env = [
        ("YOTE", env!("CARGO_BIN_EXE_yote").to_string()),
        ("ENGINE_A", engine("new", "--seed 1")),
        ("ENGINE_B", engine("base", "--seed 2")),
        ("LIMIT", "--depth 1".to_string()),
        ("GAMES", "12".to_string()),
        ("SEED", "3".to_string()),
        ("SHARDS", "3".to_string()),
        ("SLURM_ARRAY_TASK_COUNT", "3".to_string()),
    ];
    let mut merged = std::collections::BTreeMap::new();
    for (scheduler, shard_dir) in [("k8s", "k"), ("slurm", "s")] {
        let dir = results.join(shard_dir);
        std::fs::create_dir_all(&dir).unwrap();
        let mut texts = Vec::new();
        for k in 1..=3 {
            let mut command = match scheduler {
                "k8s" => {
                    let mut c = Command::new("sh");
                    c.args(["-c", &script])
                        .env("JOB_COMPLETION_INDEX", (k - 1).to_string());
                    c
                }
                _ => {
                    let mut c = Command::new("bash");
                    c.arg(&slurm_path).env("SLURM_ARRAY_TASK_ID", k.to_string());
                    c
                }
            };
            let out = command
                .envs(env.iter().map(|(k, v)| (k, v)))
                .env("RESULTS", &dir)
                .output()
                .unwrap();
            assert!(
                out.status.success(),
                "{scheduler} shard {k}: {}",
                String::from_utf8_lossy(&out.stderr)
            );
            texts.push(std::fs::read_to_string(dir.join(format!("shard-{k}.pgn"))).unwrap());
        }
        let games: std::collections::BTreeMap<_, _> =
            texts.iter().flat_map(|t| games_by_number(t)).collect();
        assert_eq!(games.len(), 12, "{scheduler}: every game once");
        merged.insert(scheduler, (games, rescore_files(&texts).unwrap()));
    }
    let whole = results.join("whole.pgn");
    let out = Command::new(env!("CARGO_BIN_EXE_yote"))
        .args([
            "match", "--quiet", "--depth", "1", "--games", "12", "--seed", "3",
        ])
        .args(["--engine", &engine("new", "--seed 1")])
        .args(["--engine", &engine("base", "--seed 2")])
        .arg("--pgn")
        .arg(&whole)
        .output()
        .unwrap();
    assert!(out.status.success());
    let whole_text = std::fs::read_to_string(&whole).unwrap();
    let _ = std::fs::remove_dir_all(&results);
    let expected = rescore(&whole_text).unwrap();
    for (scheduler, (games, tallies)) in merged {
        assert_eq!(games, games_by_number(&whole_text), "{scheduler}");
        assert_eq!(
            (tallies[0].games, tallies[0].pairs),
            (expected[0].games, expected[0].pairs),
            "{scheduler}"
        );
    }
}

/// The referee judges the no-capture limit as the rules say: with
/// NoCaptureOutcome more-pieces the side with more pieces wins there, and
/// the records replay to the same results (issue 9).
#[test]
fn the_no_capture_limit_is_judged_on_material_by_the_referee() {
    let pgn = std::env::temp_dir().join(format!("yote-nocapture-{}.pgn", std::process::id()));
    let _ = std::fs::remove_file(&pgn);
    let report = play(&strings(&[
        "--engine",
        &engine("a", "--seed 1"),
        "--engine",
        &engine("b", "--seed 2"),
        "--variant",
        "no_capture_draw=12,no_capture_outcome=more-pieces",
        "--depth",
        "1",
        "--games",
        "8",
        "--opening-plies",
        "6",
        "--seed",
        "3",
        "--pgn",
        &pgn.display().to_string(),
    ]));
    let text = std::fs::read_to_string(&pgn).unwrap();
    let _ = std::fs::remove_file(&pgn);
    let records = GameRecord::parse_all(&text).unwrap();
    assert_eq!(records.len(), 8);
    for record in &records {
        assert_eq!(record.tag("Termination"), Some("no-capture limit reached"));
        replay_matches_result(record);
    }
    let decisive = report
        .games
        .iter()
        .filter(|g| g.record.tag("Result") != Some("1/2-1/2"))
        .count();
    assert!(decisive > 0, "no game was judged on material");
}

/// An opening in the middle of a capture (owed removals): the engines are
/// asked for the removal alone, the referee checks it, and the records keep
/// the owing start and replay to their results (issue 9).
#[test]
fn an_opening_that_owes_removals_is_played_and_recorded() {
    let owing = "6/6/2W3/2B3/B4B w 11 9 0 3 x1";
    let path = std::env::temp_dir().join(format!("yote-owing-{}.txt", std::process::id()));
    std::fs::write(&path, format!("{owing}\n")).unwrap();
    let report = play(&strings(&[
        "--engine",
        &engine("a", "--seed 1"),
        "--engine",
        &engine("b", "--seed 2"),
        "--variant",
        "no_capture_draw=60",
        "--depth",
        "1",
        "--games",
        "2",
        "--openings",
        &path.display().to_string(),
    ]));
    let _ = std::fs::remove_file(&path);
    for game in &report.games {
        let record = &game.record;
        assert_eq!(record.tag("FEN"), Some(owing));
        assert!(record.moves[0].starts_with('x'), "{:?}", record.moves);
        replay_matches_result(record);
    }
}

#[test]
fn a_newline_in_an_option_cannot_inject_a_protocol_line() {
    // The issue's spec: the newline sent a second, unchecked `setoption`
    // and the engine played random moves.
    let yote = env!("CARGO_BIN_EXE_yote");
    let injected = format!("name=a,cmd={yote},option.Hash=16\nsetoption name Style value random");
    let against_b = |spec: &str| {
        let args = strings(&[
            "--quiet",
            "--engine",
            spec,
            "--engine",
            &engine("b", ""),
            "--depth",
            "1",
        ]);
        MatchConfig::from_args(&parse_args(args).unwrap())
    };
    let error = against_b(&injected).unwrap_err();
    let text = format!("{error:#}");
    assert!(text.contains("control character"), "{text}");
    for bad in [
        "name=a\tb",
        "option.St\ryle=random",
        "option.Style=ran\u{7}dom",
    ] {
        assert!(against_b(&format!("{bad},cmd={yote}")).is_err(), "{bad:?}");
    }
    // A configuration built without the command line is refused too,
    // before any line reaches the engine.
    let mut config = against_b(&format!("name=a,cmd={yote}")).unwrap();
    config.engines[0].options.push((
        "Hash".to_string(),
        "16\nsetoption name Style value random".to_string(),
    ));
    let error = run_match(&config, &mut |_| {}).unwrap_err();
    assert!(
        format!("{error:#}").contains("control character"),
        "{error:#}"
    );
}

/// Waits until `pgn` holds at least `games` records.
fn wait_for_games(pgn: &std::path::Path, games: usize) {
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    while std::fs::read_to_string(pgn)
        .unwrap_or_default()
        .matches("[Game ")
        .count()
        < games
    {
        assert!(std::time::Instant::now() < deadline, "too slow");
        std::thread::sleep(std::time::Duration::from_millis(5));
    }
}

#[test]
fn two_shards_sharing_one_records_file_never_take_each_others_games() {
    let whole = temp("shards-whole.pgn");
    let shared = temp("shards-shared.pgn");
    for path in [&whole, &shared] {
        let _ = std::fs::remove_file(path);
    }
    assert!(
        match_command(&whole, &[])
            .output()
            .unwrap()
            .status
            .success()
    );
    let shard = |k: &str, extra: &[&str]| {
        let mut args = vec!["--shard", k];
        args.extend_from_slice(extra);
        match_command(&shared, &args)
    };

    // The issue's setting: both shards on one file at once. The second is
    // refused while the first writes.
    let mut first = shard("1/2", &[])
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    wait_for_games(&shared, 10);
    let second = shard("2/2", &[]).output().unwrap();
    let stderr = String::from_utf8_lossy(&second.stderr);
    assert!(!second.status.success(), "{stderr}");
    assert!(stderr.contains("being written by another run"), "{stderr}");
    // SAFETY: a plain kill(2) of our own child.
    unsafe {
        libc::kill(i32::try_from(first.id()).unwrap(), libc::SIGTERM);
    }
    assert_eq!(first.wait().unwrap().code(), Some(143));

    // One after the other, each interrupted and resumed: each resumes its
    // own share only ("21 of 20 games" before).
    let written = GameRecord::parse_all(&std::fs::read_to_string(&shared).unwrap())
        .unwrap()
        .len();
    let (status, _) = interrupt_after(shard("2/2", &[]), &shared, written + 20, libc::SIGTERM);
    assert_eq!(status.code(), Some(143));
    for k in ["1/2", "2/2"] {
        let out = shard(k, &["--resume"]).output().unwrap();
        let stdout = String::from_utf8_lossy(&out.stdout);
        assert!(out.status.success(), "{stdout}");
        assert!(stdout.contains("150 of 150 games"), "{k}: {stdout}");
    }
    let shared_text = std::fs::read_to_string(&shared).unwrap();
    let whole_text = std::fs::read_to_string(&whole).unwrap();
    assert_eq!(GameRecord::parse_all(&shared_text).unwrap().len(), 300);
    assert_eq!(games_by_number(&shared_text), games_by_number(&whole_text));
    let merged = rescore(&shared_text).unwrap();
    assert_eq!(merged[0].games.games(), 300);

    // A game written twice in one run is counted once by --rescore, as by
    // --resume (59 records for 40 games were all counted).
    let again = GameRecord::parse_all(&shared_text).unwrap()[1].write();
    let doubled = format!("{shared_text}{again}");
    assert_eq!(GameRecord::parse_all(&doubled).unwrap().len(), 301);
    let rescored = rescore(&doubled).unwrap();
    assert_eq!(rescored[0].games.games(), 300);
    assert_eq!(rescored[0].pairs.0, merged[0].pairs.0);

    // One digit of a Run tag changed: neither resumed as another run nor
    // rescored as one, but refused by name.
    let tag_at = shared_text.rfind("[Run \"").unwrap() + "[Run \"20".len();
    let digit = &shared_text[tag_at..tag_at + 1];
    let other = if digit == "9" { "8" } else { "9" };
    let damaged = format!(
        "{}{other}{}",
        &shared_text[..tag_at],
        &shared_text[tag_at + 1..]
    );
    let error = format!("{:#}", rescore(&damaged).unwrap_err());
    assert!(error.contains("checksum"), "{error}");
    std::fs::write(&shared, &damaged).unwrap();
    let out = shard("2/2", &["--resume"]).output().unwrap();
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(!out.status.success());
    assert!(stderr.contains("checksum"), "{stderr}");
    assert_eq!(std::fs::read_to_string(&shared).unwrap(), damaged);
    for path in [&whole, &shared] {
        let _ = std::fs::remove_file(path);
    }
}

/// `--pgn FILE` publishes the games in progress in `FILE.live` (one JSON
/// line per running game, moves so far) while the match runs, and removes
/// it when the match ends; the records file only ever gets finished games.
#[test]
fn games_in_progress_are_published_beside_the_records_and_removed_at_the_end() {
    let pgn = temp("live-sidecar.pgn");
    let sidecar = yote::client::live::sidecar_path(&pgn);
    let _ = std::fs::remove_file(&pgn);
    // A stale sidecar (a killed run) is replaced at the start.
    std::fs::write(&sidecar, "{\"game\":99}\n").unwrap();
    let yote = env!("CARGO_BIN_EXE_yote");
    let mut child = Command::new(yote)
        .args(["match", "--quiet", "--movetime", "40", "--games", "2"])
        .args(["--max-plies", "40", "--concurrency", "2"])
        .args(["--engine", &format!("name=a,cmd={yote}")])
        .args(["--engine", &format!("name=b,cmd={yote}")])
        .arg("--pgn")
        .arg(&pgn)
        .stdout(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(60);
    let mut seen = std::collections::BTreeMap::new();
    let mut variants = std::collections::BTreeSet::new();
    while child.try_wait().unwrap().is_none() {
        assert!(
            std::time::Instant::now() < deadline,
            "the match is too slow"
        );
        let text = std::fs::read_to_string(&sidecar).unwrap_or_default();
        if text.contains("\"game\":99") {
            // The run has not started its games yet.
            std::thread::sleep(std::time::Duration::from_millis(10));
            continue;
        }
        for line in text.lines() {
            let game: serde_json::Value = serde_json::from_str(line).expect("a whole JSON line");
            let moves = game["moves"].as_array().unwrap().len();
            variants.insert(game["variant"].as_str().unwrap().to_string());
            assert!(game["fen"].as_str().is_some_and(|f| !f.is_empty()));
            let names = (
                game["white"].as_str().unwrap(),
                game["black"].as_str().unwrap(),
            );
            assert!(names == ("a", "b") || names == ("b", "a"), "{names:?}");
            // Movetime: each side's control named, no clock to count.
            assert_eq!(
                game["controls"],
                serde_json::json!(["movetime=40", "movetime=40"])
            );
            assert_eq!(game["clock"], serde_json::json!([null, null]));
            assert!(
                game["clock_at"]
                    .as_u64()
                    .is_some_and(|t| t > 1_700_000_000_000)
            );
            let number = game["game"].as_u64().unwrap();
            let most = seen.entry(number).or_insert(0);
            *most = moves.max(*most);
        }
        std::thread::sleep(std::time::Duration::from_millis(10));
    }
    assert!(child.wait().unwrap().success());
    let games: Vec<u64> = seen.keys().copied().collect();
    assert_eq!(games, [1, 2], "both games were seen in progress");
    assert!(
        seen.values().any(|&plies| plies > 4),
        "moves beyond the opening were published: {seen:?}"
    );
    assert!(!sidecar.exists(), "the sidecar outlived the match");
    let records = std::fs::read_to_string(&pgn).unwrap();
    assert_eq!(records.matches("[Game ").count(), 2);
    let variant: Vec<String> = variants.into_iter().collect();
    assert_eq!(variant.len(), 1);
    assert!(records.contains(&format!("[Variant \"{}\"]", variant[0])));
}

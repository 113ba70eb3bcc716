//! The match runner against the fake engine (tests/support/fake_engine.rs):
//! every kind of misbehaviour is a loss for the right reason and the
//! tournament goes on; seeded runs repeat; records replay and rescore; SPRT
//! stops a run; the variant reaches every engine.

use std::process::Command;
use yote::rules::{Game, Rules, Variant};
use yote::tournament::game::Termination;
use yote::tournament::records::GameRecord;
use yote::tournament::stats::Hypothesis;
use yote::tournament::{MatchConfig, MatchReport, parse_args, rescore, run_match};

const FAKE: &str = env!("CARGO_BIN_EXE_yote-fake-engine");

fn engine(name: &str, flags: &str) -> String {
    format!("name={name},cmd={FAKE} {flags}")
}

fn config(args: &[String]) -> MatchConfig {
    let mut all = vec!["--quiet".to_string()];
    all.extend_from_slice(args);
    MatchConfig::from_args(&parse_args(all).expect("valid flags")).expect("valid config")
}

fn strings(args: &[&str]) -> Vec<String> {
    args.iter().map(|s| s.to_string()).collect()
}

fn play(args: &[String]) -> MatchReport {
    run_match(&config(args)).expect("the match runs")
}

/// The loser's name and the termination code of each game.
fn losers(report: &MatchReport, names: &[&str]) -> Vec<(String, String)> {
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
    let games = |r: &MatchReport| -> Vec<(Vec<String>, String)> {
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
        "400",
        "--concurrency",
        "2",
        "--sprt",
        "elo0=0,elo1=10",
    ]));
    let sprt = report.sprt.expect("an SPRT was run");
    assert_eq!(sprt.decision, Some(Hypothesis::H1));
    assert!(
        report.games.len() < 100,
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
        let err = run_match(&MatchConfig::from_args(&args).unwrap()).unwrap_err();
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
    assert!(String::from_utf8_lossy(&out.stderr).contains("[4/4] x vs y"));
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

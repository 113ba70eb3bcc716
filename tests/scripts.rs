//! The Python tools in scripts/ and the Python package's engine client are
//! part of the product: their own test suites run here against the engine
//! this build made.

use std::process::Command;
use yote::search::skill::{MAX_ELO, MIN_ELO};

/// `yote.engine` as pure Python, where the native part is not built
/// (`YOTE_TEST_PURE` hides it): .ci/run runs the same suite with it, by
/// pytest.
#[test]
fn python_client_module_suite_passes() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/python/tests");
    let out = Command::new("python3")
        .args(["-m", "unittest", "-v", "test_engine"])
        .current_dir(dir)
        .env("YOTE_ENGINE", env!("CARGO_BIN_EXE_yote"))
        .env("YOTE_TEST_PURE", "1")
        .output()
        .expect("run python3");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    // unittest reports on stderr; make sure tests really ran.
    assert!(stderr.contains("\nOK"), "{stderr}");
    assert!(!stderr.contains("Ran 0 tests"), "{stderr}");
}

/// A ladder of three pairs and one `UCI_Elo` check, eight games a pair
/// (seconds): the script plays them with this build and prints standings
/// anchored at the random player.
#[test]
fn ladder_script_plays_rates_and_checks() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out_dir = std::env::temp_dir().join(format!("yote-ladder-{}", std::process::id()));
    std::fs::create_dir_all(&out_dir).unwrap();
    std::fs::copy(env!("CARGO_BIN_EXE_yote"), out_dir.join("yote")).unwrap();
    let ladder = |args: &[&str]| {
        Command::new("bash")
            .arg(format!("{root}/scripts/match/ladder.sh"))
            .args(args)
            .env("GAMES", "8")
            .env("ONLY", "random-L0 L0-L1 L1-L2")
            .env("OUT", &out_dir)
            .env("CHECK_ENGINE", env!("CARGO_BIN_EXE_yote"))
            .output()
            .expect("run bash")
    };
    let run = |args: &[&str]| {
        let out = ladder(args);
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{args:?} {:?}: {stderr} {stdout}",
            out.status
        );
        stdout
    };
    let range = format!("outside the engine's range {MIN_ELO}..{MAX_ELO}");
    let standings = run(&[]);
    assert!(
        standings.starts_with("Elo relative to random (0)"),
        "{standings}"
    );
    assert!(standings.contains("Rank Engine"), "{standings}");
    for name in ["random", "L0", "L1", "L2"] {
        assert!(
            standings.contains(&format!(" {name} ")),
            "{name}: {standings}"
        );
    }
    let games = std::fs::read_to_string(out_dir.join("random-L0.pgn")).unwrap();
    assert_eq!(
        games.matches("[Result ").count(),
        40,
        "the anchor link gets 5x"
    );
    // A rerun plays nothing more.
    run(&[]);
    let again = std::fs::read_to_string(out_dir.join("random-L0.pgn")).unwrap();
    assert_eq!(again.len(), games.len());
    // UCI_Elo between two neighbouring levels' ratings plays both; one
    // outside UCI_Elo's range is reported and skipped. Levels 0-2 are within a
    // few Elo of each other, so eight games a pair may rate them in any
    // order: the bracket is the first neighbouring pair rated upwards, and
    // with none the script must say so.
    let rating = |level: &str| -> f64 {
        standings
            .lines()
            .find(|l| l.contains(&format!(" {level} ")))
            .and_then(|l| l.split_whitespace().nth(2))
            .and_then(|e| e.parse().ok())
            .unwrap()
    };
    let ratings = [rating("L0"), rating("L1"), rating("L2")];
    let upwards = ratings.windows(2).find(|w| w[0] + 1.0 < w[1]);
    match upwards {
        Some(pair) => {
            let between = ((pair[0] + pair[1]) / 2.0).round() as i64;
            // Eight games a pair may rate the levels below UCI_Elo's least
            // value, which the engine refuses: the script says so.
            if between < i64::from(MIN_ELO) {
                let out = ladder(&["--check", &between.to_string()]);
                let stderr = String::from_utf8_lossy(&out.stderr);
                assert!(out.status.success() && stderr.contains(&range), "{stderr}");
            } else {
                let checked = run(&["--check", &between.to_string()]);
                assert!(checked.contains(&format!(" E{between} ")), "{checked}");
            }
        }
        None => {
            let below = (ratings[0] - 1.0).round() as i64;
            let out = ladder(&["--check", &below.to_string()]);
            let stderr = String::from_utf8_lossy(&out.stderr);
            assert!(
                stderr.contains("no two neighbouring levels are rated around it"),
                "{stderr}"
            );
        }
    }
    let out = ladder(&["--check", "5000"]);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        out.status.success() && stderr.contains(&format!("UCI_Elo 5000: {range}")),
        "{stderr}"
    );

    // --drift: one line per pair, and the exit status is the verdict: any
    // difference is within an enormous tolerance, none within a negative one.
    let drift = |tol: &str| {
        Command::new("bash")
            .arg(format!("{root}/scripts/match/ladder.sh"))
            .args(["--drift", "600/1000"])
            .env("GAMES", "4")
            .env("TOL", tol)
            .env("DRIFT_CLOCK", "--nodes 500")
            .env("OUT", &out_dir)
            .env("CHECK_ENGINE", env!("CARGO_BIN_EXE_yote"))
            .output()
            .expect("run bash")
    };
    let wide = drift("100000");
    let line = String::from_utf8_lossy(&wide.stdout).to_string();
    assert!(
        line.starts_with("600/1000") && line.contains("--nodes 500"),
        "{line}"
    );
    assert_eq!(wide.status.success(), line.contains(" ok"), "{line}");
    let none = drift("-1");
    let line = String::from_utf8_lossy(&none.stdout).to_string();
    assert!(!none.status.success() && line.contains("OFF"), "{line}");

    // --refit on a partial ladder names the first level it cannot rate and
    // writes no table; a shard plays its own pairs and fits nothing.
    let table = out_dir.join("ladder.rs");
    let refit = Command::new("bash")
        .arg(format!("{root}/scripts/match/ladder.sh"))
        .arg("--refit")
        .env("GAMES", "8")
        .env("ONLY", "random-L0 L0-L1 L1-L2")
        .env("OUT", &out_dir)
        .env("LADDER_RS", &table)
        .current_dir(root)
        .output()
        .expect("run bash");
    let stderr = String::from_utf8_lossy(&refit.stderr);
    assert!(
        !refit.status.success() && stderr.contains("level 3 has no finite rating"),
        "{stderr}"
    );
    assert!(!table.exists());
    let shard = Command::new("bash")
        .arg(format!("{root}/scripts/match/ladder.sh"))
        .arg("--refit")
        .env("GAMES", "8")
        .env("ONLY", "random-L0 L0-L1 L1-L2")
        .env("SHARD", "2/3")
        .env("OUT", &out_dir)
        .env("LADDER_RS", &table)
        .output()
        .expect("run bash");
    assert!(
        shard.status.success(),
        "{}",
        String::from_utf8_lossy(&shard.stderr)
    );
    assert!(shard.stdout.is_empty() && !table.exists());
    std::fs::remove_dir_all(&out_dir).unwrap();
}

/// Issue 11's measurements in miniature: the SPRT step, one preset, both
/// self-plays and the fixed-length run, two games each at a fast clock, this
/// build as both engines; a rerun replays nothing.
#[test]
fn against_base_script_runs_every_step_and_resumes() {
    let root = env!("CARGO_MANIFEST_DIR");
    let out_dir = std::env::temp_dir().join(format!("yote-against-{}", std::process::id()));
    let engine = env!("CARGO_BIN_EXE_yote");
    let run = || {
        let out = Command::new("bash")
            .arg(format!("{root}/scripts/match/against_base.sh"))
            .arg(engine)
            .env("ENGINE", engine)
            .env("GAMES", "2")
            .env("MAX_GAMES", "2")
            .env("TC", "0.05+0.005")
            .env("PRESETS", "5x5")
            .env("STEPS", "standard presets selfplay fixed")
            .env("CONCURRENCY", "1")
            .env("OUT", &out_dir)
            .output()
            .expect("run bash");
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(out.status.success(), "{:?}: {stderr} {stdout}", out.status);
        stdout
    };
    let first = run();
    for line in [
        "standard: new vs base: 2 games",
        "preset-5x5: new vs base: 2 games",
        "fixed: new vs base: 2 games",
        "games at the ply limit",
    ] {
        assert!(first.contains(line), "{line}: {first}");
    }
    assert!(first.contains("selfplay-new: ") && first.contains("selfplay-base: "));
    assert!(!out_dir.join("preset-6x6.pgn").exists(), "PRESETS filters");
    let pgn = std::fs::read_to_string(out_dir.join("standard.pgn")).unwrap();
    assert_eq!(pgn.matches("[Result ").count(), 2);
    assert_eq!(run(), first, "a finished run is only reported again");
    let again = std::fs::read_to_string(out_dir.join("standard.pgn")).unwrap();
    assert_eq!(again, pgn);
    std::fs::remove_dir_all(&out_dir).unwrap();
}

/// `limit_material.py` reads the material at the ply limit from a match
/// record and, with `--leads`, writes the unconverted leads as openings.
#[test]
fn limit_material_counts_and_lists_the_leads_left_at_the_ply_limit() {
    let root = env!("CARGO_MANIFEST_DIR");
    let engine = env!("CARGO_BIN_EXE_yote");
    let dir = std::env::temp_dir().join(format!("yote-limit-{}", std::process::id()));
    std::fs::create_dir_all(&dir).unwrap();
    // Four against two, far apart: two plies cannot reach a capture.
    std::fs::write(dir.join("open.txt"), "WW4/W5/W5/6/4BB w 0 0\n").unwrap();
    let pgn = dir.join("m.pgn");
    let _ = std::fs::remove_file(&pgn);
    let status = Command::new(engine)
        .args(["match", "--depth", "1", "--games", "2", "--max-plies", "2"])
        .args(["--engine", &format!("name=a,cmd={engine}")])
        .args(["--engine", &format!("name=b,cmd={engine}")])
        .arg("--openings")
        .arg(dir.join("open.txt"))
        .arg("--pgn")
        .arg(&pgn)
        .output()
        .expect("run the match")
        .status;
    assert!(status.success());
    let script = |extra: &[&str]| {
        Command::new("python3")
            .arg(format!("{root}/scripts/match/limit_material.py"))
            .arg(engine)
            .arg(&pgn)
            .args(extra)
            .output()
            .expect("run python3")
    };
    let run = |extra: &[&str]| {
        let out = script(extra);
        assert!(
            out.status.success(),
            "{}",
            String::from_utf8_lossy(&out.stderr)
        );
        String::from_utf8(out.stdout).unwrap()
    };
    let tally = run(&[]);
    assert!(
        tally.starts_with("2 of 2 games at the ply limit; material at the limit: 4 v 2: 2"),
        "{tally}"
    );
    let leads = run(&["--leads"]);
    let lines: Vec<&str> = leads.lines().collect();
    assert_eq!(lines.len(), 2, "{leads}");
    for line in lines {
        // Board, side, hands: a position text the match runner takes.
        assert_eq!(line.split_whitespace().count(), 4, "{line}");
        assert_eq!(line.matches('W').count(), 4, "{line}");
        assert_eq!(line.matches('B').count(), 2, "{line}");
    }
    // An unknown flag is refused, not ignored.
    let wrong = script(&["--leeds"]);
    assert!(!wrong.status.success());
    assert!(String::from_utf8_lossy(&wrong.stderr).contains("usage: limit_material.py"));
    std::fs::remove_dir_all(&dir).unwrap();
}

/// `table_positions.py` keeps only the wins the tables give, of the asked
/// material and length, and reports the distance correlations.
#[test]
fn table_positions_are_wins_of_the_asked_material_and_length() {
    let root = env!("CARGO_MANIFEST_DIR");
    let engine = env!("CARGO_BIN_EXE_yote");
    let dir = std::env::temp_dir().join(format!("yote-tabpos-{}", std::process::id()));
    let tables = dir.join("tb5");
    std::fs::create_dir_all(&tables).unwrap();
    let generated = Command::new(engine)
        .args(["tb", "generate", "--pieces", "5", "--yes", "--dir"])
        .arg(&tables)
        .output()
        .expect("generate the tables");
    assert!(generated.status.success());
    let out = Command::new("python3")
        .arg(format!("{root}/scripts/tables/table_positions.py"))
        .arg(engine)
        .arg(&tables)
        .args([
            "--ahead",
            "3",
            "--behind",
            "2",
            "--count",
            "6",
            "--min-plies",
            "3",
        ])
        .args(["--seed", "5", "--correlate"])
        .output()
        .expect("run python3");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.starts_with("6 wins, mean plies"), "{stderr}");
    let stdout = String::from_utf8(out.stdout).unwrap();
    assert_eq!(stdout.lines().count(), 6, "{stdout}");
    for text in stdout.lines() {
        let mover = if text.split(' ').nth(1) == Some("w") {
            'W'
        } else {
            'B'
        };
        let other = if mover == 'W' { 'B' } else { 'W' };
        assert_eq!(
            (text.matches(mover).count(), text.matches(other).count()),
            (3, 2)
        );
        let probe = Command::new(engine)
            .args(["tb", "probe", "--fen", text, "--dir"])
            .arg(&tables)
            .output()
            .expect("probe");
        let value = String::from_utf8(probe.stdout).unwrap();
        let plies: u32 = value
            .strip_prefix("value win ")
            .and_then(|rest| rest.split_whitespace().next())
            .and_then(|n| n.parse().ok())
            .unwrap_or_else(|| panic!("{text}: {value}"));
        assert!(plies >= 3, "{text}: {value}");
    }
    std::fs::remove_dir_all(&dir).unwrap();
}

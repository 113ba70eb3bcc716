//! The Python tools in scripts/ are part of the product: their own test
//! suites run here against the engine this build made.

use std::process::Command;

#[test]
fn python_client_module_suite_passes() {
    let dir = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts");
    let out = Command::new("python3")
        .args(["-m", "unittest", "-v", "test_yote_client"])
        .current_dir(dir)
        .env("YOTE_ENGINE", env!("CARGO_BIN_EXE_yote"))
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
    let run = |args: &[&str]| {
        let out = Command::new("bash")
            .arg(format!("{root}/scripts/ladder.sh"))
            .args(args)
            .env("GAMES", "8")
            .env("ONLY", "random-L0 L0-L1 L1-L2")
            .env("OUT", &out_dir)
            .env("CHECK_ENGINE", env!("CARGO_BIN_EXE_yote"))
            .output()
            .expect("run bash");
        let stdout = String::from_utf8_lossy(&out.stdout).to_string();
        let stderr = String::from_utf8_lossy(&out.stderr);
        assert!(
            out.status.success(),
            "{args:?} {:?}: {stderr} {stdout}",
            out.status
        );
        stdout
    };
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
    // UCI_Elo between two levels' ratings plays both; one above every
    // level is reported and skipped.
    let rating = |level: &str| -> f64 {
        standings
            .lines()
            .find(|l| l.contains(&format!(" {level} ")))
            .and_then(|l| l.split_whitespace().nth(2))
            .and_then(|e| e.parse().ok())
            .unwrap()
    };
    let (l0, l1) = (rating("L0"), rating("L1"));
    let between = ((l0 + l1) / 2.0).round() as i64;
    assert!(between >= 600 && l0 < l1, "{standings}");
    let checked = run(&["--check", &between.to_string()]);
    assert!(checked.contains(&format!(" E{between} ")), "{checked}");
    let checked = run(&["--check", "5000"]);
    assert!(!checked.contains(" E5000 "), "{checked}");
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
            .arg(format!("{root}/scripts/against_base.sh"))
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

//! The evaluation-fitting pipeline end to end: `scripts/datagen.sh` makes
//! games through the match runner, `yote tune` fits weights to them, and
//! both are deterministic.

use std::path::Path;
use std::process::Command;
use yote::tournament::records::GameRecord;

fn datagen(out: &Path) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/datagen.sh");
    let status = Command::new("sh")
        .arg(script)
        .arg(env!("CARGO_BIN_EXE_yote"))
        .arg(out)
        .env("GAMES", "6")
        .env("NODES", "200")
        .env("PRESETS", "standard")
        .status()
        .expect("run datagen.sh");
    assert!(status.success());
}

fn tune(records: &Path) -> String {
    let out = Command::new(env!("CARGO_BIN_EXE_yote"))
        .arg("tune")
        .arg(records)
        .args(["--iterations", "20", "--keep-max-plies", "--skip", "0"])
        .output()
        .expect("run yote tune");
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(stderr.contains("held-out"), "{stderr}");
    String::from_utf8(out.stdout).unwrap()
}

#[test]
fn datagen_and_tune_make_the_same_weights_twice() {
    let base = std::env::temp_dir().join(format!("yote-tune-test-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&base);
    let (a, b) = (base.join("a"), base.join("b"));
    datagen(&a);
    datagen(&b);
    let records = |dir: &Path| dir.join("standard.pgn");
    // The same games: moves and results. (Run tags and the time in each
    // move's comment differ from run to run by design.)
    let games = |dir: &Path| {
        let text = std::fs::read_to_string(records(dir)).unwrap();
        GameRecord::parse_all(&text)
            .unwrap()
            .into_iter()
            .map(|g| (g.moves, g.result))
            .collect::<Vec<_>>()
    };
    let made = games(&a);
    assert_eq!(made.len(), 6);
    assert_eq!(made, games(&b));
    let weights = tune(&records(&a));
    assert!(
        weights.contains("pub const FITTED_BOARD: Weights"),
        "{weights}"
    );
    assert!(weights.contains("// no-safe-step"), "{weights}");
    assert_eq!(weights, tune(&records(&b)));
    let _ = std::fs::remove_dir_all(&base);
}

#[test]
fn tune_rejects_an_unknown_family() {
    let out = Command::new(env!("CARGO_BIN_EXE_yote"))
        .args(["tune", "--family", "chess", "nothing.pgn"])
        .output()
        .expect("run yote tune");
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(stderr.contains("unknown family \"chess\""), "{stderr}");
}

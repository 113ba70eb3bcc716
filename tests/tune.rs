//! The evaluation-fitting pipeline end to end: `scripts/training/datagen.sh` makes
//! games through the match runner, `yote tune` fits weights to them, and
//! both are deterministic.

use std::path::Path;
use std::process::Command;
use yote::client::records::GameRecord;

fn datagen(out: &Path) {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/training/datagen.sh");
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

fn scratch(name: &str) -> std::path::PathBuf {
    let dir = std::env::temp_dir().join(format!("yote-tune-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

fn generate_tables(dir: &Path, variant: &str) {
    let out = Command::new(env!("CARGO_BIN_EXE_yote"))
        .args(["tb", "generate", "--pieces", "4", "--variant", variant])
        .arg("--dir")
        .arg(dir)
        .output()
        .expect("run yote tb generate");
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
}

fn tune_with_tables(records: &Path, tables: &Path) -> std::process::Output {
    Command::new(env!("CARGO_BIN_EXE_yote"))
        .arg("tune")
        .arg(records)
        .args(["--iterations", "5", "--skip", "0", "--depth", "0"])
        .arg("--tablebases")
        .arg(tables)
        .output()
        .expect("run yote tune")
}

/// Drawn games from quiet positions of the standard 4-piece tables, one
/// move each: the tables overrule every result but the draws'.
#[test]
fn tune_labels_table_positions_and_says_how_many() {
    use yote::rules::{MoveList, Rules};
    use yote::tablebase::{Value, load_dir};
    let dir = scratch("tables");
    let tables = dir.join("tb");
    generate_tables(&tables, "standard");
    let rules = Rules::standard();
    let set = load_dir(&rules, &tables, 4).unwrap();
    let mut text = String::new();
    let (mut games, mut decisive) = (0, 0);
    let mut list = MoveList::new();
    for table in set.tables() {
        for index in (0..table.index.size()).step_by(97) {
            let pos = table.position(index);
            rules.legal_moves(&pos, &mut list);
            if rules.status(&pos).is_some() || rules.has_capture(&pos) || list.is_empty() {
                continue;
            }
            let mv = rules.move_text(list.iter().next().unwrap());
            let fen = rules.position_text(&pos);
            text += &format!(
                "[Event \"t\"]\n[FEN \"{fen}\"]\n[Result \"1/2-1/2\"]\n\n1. {mv} 1/2-1/2\n\n"
            );
            games += 1;
            decisive += usize::from(table.value(index) != Some(Value::Draw));
        }
    }
    assert!(
        games >= 100 && decisive > 0 && decisive < games,
        "{games} {decisive}"
    );
    let records = dir.join("drawn.pgn");
    std::fs::write(&records, text).unwrap();
    let out = tune_with_tables(&records, &tables);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{stderr}");
    assert!(
        stderr.contains(&format!(
            "{games} positions, {games} of them labelled by the tablebases ({decisive} against the game's result)"
        )),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn tune_refuses_tables_of_other_rules_and_missing_ones() {
    let dir = scratch("other-tables");
    let other = dir.join("no-removal");
    generate_tables(&other, "standard,removal=none");
    let records = dir.join("one.pgn");
    std::fs::write(
        &records,
        "[Event \"t\"]\n[Result \"1-0\"]\n\n1. @c3 @d3 1-0\n",
    )
    .unwrap();
    let out = tune_with_tables(&records, &other);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains("--tablebases:")
            && stderr.contains(&other.display().to_string())
            && stderr.contains("made for other rules"),
        "{stderr}"
    );
    let missing = dir.join("nowhere");
    let out = tune_with_tables(&records, &missing);
    assert!(!out.status.success());
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(
        stderr.contains(&format!("{} is not a directory", missing.display())),
        "{stderr}"
    );
    let _ = std::fs::remove_dir_all(&dir);
}

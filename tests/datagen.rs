//! `yote datagen`: the network's training positions are the same for any
//! number of threads, shards partition them, a resumed run continues
//! exactly where it stopped, and each line is what the trainer reads.

use std::path::{Path, PathBuf};
use std::process::Command;

fn scratch(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("yote-datagen-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// Runs `yote datagen` with small games; stderr on success.
fn datagen(out: &Path, args: &[&str]) -> Result<String, String> {
    let run = Command::new(env!("CARGO_BIN_EXE_yote"))
        .arg("datagen")
        .arg("--out")
        .arg(out)
        .args(["--nodes", "150", "--per-game", "12"])
        .args(args)
        .output()
        .expect("run yote datagen");
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(run.stdout.is_empty(), "stdout is not for logs");
    match run.status.success() {
        true => Ok(stderr),
        false => Err(stderr),
    }
}

fn sorted_lines(paths: &[&Path]) -> Vec<String> {
    let mut lines: Vec<String> = paths
        .iter()
        .flat_map(|p| {
            std::fs::read_to_string(p)
                .unwrap()
                .lines()
                .map(String::from)
                .collect::<Vec<_>>()
        })
        .collect();
    lines.sort();
    lines
}

#[test]
fn the_same_seed_gives_the_same_positions_for_any_threads_or_shards() {
    let dir = scratch("same");
    let one = dir.join("one.nnue");
    let two = dir.join("two.nnue");
    datagen(&one, &["--games", "14", "--threads", "1"]).unwrap();
    datagen(&two, &["--games", "14", "--threads", "2"]).unwrap();
    let whole = std::fs::read(&one).unwrap();
    assert_eq!(whole, std::fs::read(&two).unwrap());
    // Every preset of the default list, two games each.
    let text = String::from_utf8(whole).unwrap();
    let specs: std::collections::BTreeSet<&str> = text
        .lines()
        .map(|l| l.split('\t').next().unwrap())
        .collect();
    assert_eq!(specs.len(), 7, "{specs:?}");
    // Three shards hold the whole run's lines between them, each once.
    let shards: Vec<PathBuf> = (1..=3).map(|k| dir.join(format!("s{k}.nnue"))).collect();
    for (k, path) in shards.iter().enumerate() {
        datagen(path, &["--games", "14", "--shard", &format!("{}/3", k + 1)]).unwrap();
    }
    let parts: Vec<&Path> = shards.iter().map(PathBuf::as_path).collect();
    assert_eq!(sorted_lines(&parts), sorted_lines(&[&one]));
    assert!(
        parts
            .iter()
            .all(|p| std::fs::metadata(p).unwrap().len() > 0)
    );
    // Another seed, other games.
    let other = dir.join("other.nnue");
    datagen(&other, &["--games", "14", "--seed", "2"]).unwrap();
    assert_ne!(std::fs::read(&other).unwrap(), std::fs::read(&one).unwrap());
}

#[test]
fn a_resumed_run_continues_where_it_stopped() {
    let dir = scratch("resume");
    let whole = dir.join("whole.nnue");
    datagen(&whole, &["--games", "10"]).unwrap();
    // A run stopped after six games, with a tail written after its last
    // progress record (a kill between the two writes): the rerun cuts the
    // tail and plays games six to nine.
    let part = dir.join("part.nnue");
    datagen(&part, &["--games", "6"]).unwrap();
    let progress = std::fs::read_to_string(dir.join("part.nnue.progress")).unwrap();
    assert!(progress.starts_with("games 6 bytes "), "{progress}");
    let mut data = std::fs::OpenOptions::new()
        .append(true)
        .open(&part)
        .unwrap();
    std::io::Write::write_all(&mut data, b"standard\thalf a line").unwrap();
    let log = datagen(&part, &["--games", "10"]).unwrap();
    assert!(
        log.contains("4 games of 10 for shard 1/1 (6 done)"),
        "{log}"
    );
    assert_eq!(
        std::fs::read(&part).unwrap(),
        std::fs::read(&whole).unwrap()
    );
    // Finished: a rerun plays nothing and changes nothing.
    let log = datagen(&part, &["--games", "10"]).unwrap();
    assert!(log.contains("0 games of 10"), "{log}");
    assert_eq!(
        std::fs::read(&part).unwrap(),
        std::fs::read(&whole).unwrap()
    );
    // Data without its progress file is not overwritten.
    std::fs::remove_file(dir.join("part.nnue.progress")).unwrap();
    let err = datagen(&part, &["--games", "10"]).unwrap_err();
    assert!(err.contains("no progress file"), "{err}");
    assert_eq!(
        std::fs::read(&part).unwrap(),
        std::fs::read(&whole).unwrap()
    );
}

#[test]
fn each_line_is_a_labelled_quiet_position_with_its_inputs() {
    let dir = scratch("lines");
    let out = dir.join("lines.nnue");
    let log = datagen(&out, &["--games", "7", "--presets", "standard,6x6"]).unwrap();
    assert!(log.contains("CPU minutes a million"), "{log}");
    let text = std::fs::read_to_string(&out).unwrap();
    let mut scored = 0;
    for line in text.lines() {
        let f: Vec<&str> = line.split('\t').collect();
        assert_eq!(f.len(), 7, "{line}");
        assert!(f[0].starts_with("rows=5,cols=6,") || f[0].starts_with("rows=6,cols=6,"));
        assert!(["0", "0.5", "1"].contains(&f[2]), "{line}");
        scored += usize::from(f[3].parse::<i32>().is_ok());
        assert!(f[3] == "-" || f[3].parse::<i32>().is_ok(), "{line}");
        f[4].parse::<i32>().unwrap();
        for inputs in &f[5..] {
            assert!(
                inputs.split(',').all(|i| i.parse::<u16>().unwrap() < 128),
                "{line}"
            );
        }
    }
    assert!(scored * 10 > text.lines().count() * 9, "few search scores");
    // At most 12 positions from each of the 7 games.
    let n = text.lines().count();
    assert!(n > 30 && n <= 7 * 12, "{n} lines");
    for bad in [
        vec!["--games", "5", "--presets", "standard,rows=7"],
        vec!["--games", "5", "--shard", "3/2"],
        vec!["--games", "5", "--opening-plies", "9-3"],
    ] {
        let err = datagen(&dir.join("bad.nnue"), &bad).unwrap_err();
        assert!(err.starts_with("error:"), "{bad:?}: {err}");
        assert!(
            err.contains(bad[2]),
            "{bad:?}: the error names the flag: {err}"
        );
    }
}

#[test]
fn the_features_choose_which_engine_plays_the_games() {
    let dir = scratch("features");
    let run = |name: &str, features: &str| {
        let out = dir.join(name);
        let args = [
            "--games",
            "2",
            "--presets",
            "standard",
            "--features",
            features,
        ];
        datagen(&out, &args).unwrap();
        std::fs::read(out).unwrap()
    };
    // Standard is where the network is on by default: without it the
    // games are another engine's (data set v1 was made so, and before
    // the correction history and `tt_eval`).
    let fitted = run("fitted.nnue", "-nnue,-correction,-tt_eval");
    assert_ne!(run("network.nnue", ""), fitted);
    assert_ne!(run("corrected.nnue", "-nnue"), fitted);
    assert_eq!(
        run("fitted-again.nnue", "-nnue,-correction,-tt_eval"),
        fitted
    );
    let err = datagen(
        &dir.join("bad.nnue"),
        &["--games", "2", "--features", "nnue"],
    )
    .unwrap_err();
    assert!(err.contains("--features"), "{err}");
}

/// Runs `yote relabel`; stderr on success.
fn relabel(input: &Path, out: &Path, args: &[&str]) -> Result<String, String> {
    let run = Command::new(env!("CARGO_BIN_EXE_yote"))
        .arg("relabel")
        .arg("--in")
        .arg(input)
        .arg("--out")
        .arg(out)
        .args(args)
        .output()
        .expect("run yote relabel");
    let stderr = String::from_utf8_lossy(&run.stderr).into_owned();
    assert!(run.stdout.is_empty(), "stdout is not for logs");
    match run.status.success() {
        true => Ok(stderr),
        false => Err(stderr),
    }
}

#[test]
fn relabelling_changes_scores_only_for_any_threads_and_resumes() {
    let dir = scratch("relabel");
    let data = dir.join("data.nnue");
    datagen(&data, &["--games", "14"]).unwrap();
    let one = dir.join("one.nnue");
    let two = dir.join("two.nnue");
    relabel(&data, &one, &["--nodes", "3000", "--threads", "1"]).unwrap();
    relabel(&data, &two, &["--nodes", "3000", "--threads", "2"]).unwrap();
    let relabelled = std::fs::read_to_string(&one).unwrap();
    assert_eq!(relabelled, std::fs::read_to_string(&two).unwrap());
    let before = std::fs::read_to_string(&data).unwrap();
    assert_eq!(relabelled.lines().count(), before.lines().count());
    let mut changed = 0;
    for (new, old) in relabelled.lines().zip(before.lines()) {
        let (new, old): (Vec<&str>, Vec<&str>) =
            (new.split('\t').collect(), old.split('\t').collect());
        assert_eq!(new.len(), 7);
        for i in [0, 1, 2, 4, 5, 6] {
            assert_eq!(new[i], old[i], "field {i}");
        }
        if old[3] == "-" {
            assert_eq!(new[3], "-", "a line without a score is copied");
        }
        changed += usize::from(new[3] != old[3]);
    }
    assert!(
        changed * 4 > before.lines().count(),
        "{changed} scores changed"
    );
    // Only standard's lines searched again.
    let standard = dir.join("standard.nnue");
    relabel(
        &data,
        &standard,
        &["--nodes", "3000", "--presets", "standard"],
    )
    .unwrap();
    for ((picked, all), old) in std::fs::read_to_string(&standard)
        .unwrap()
        .lines()
        .zip(relabelled.lines())
        .zip(before.lines())
    {
        let is_standard = old
            .contains("win=one-left,no_moves=loses,mandatory_capture=false,multi_jump=false")
            && old.starts_with("rows=5,cols=6,pieces=12,removal=board,");
        assert_eq!(picked, if is_standard { all } else { old });
    }
    // A run stopped after five lines, with a tail written after its last
    // progress record: the rerun cuts the tail and goes on.
    let part = dir.join("part.nnue");
    let head: usize = relabelled.lines().take(5).map(|l| l.len() + 1).sum();
    std::fs::write(&part, format!("{}half a line", &relabelled[..head])).unwrap();
    std::fs::write(
        dir.join("part.nnue.progress"),
        format!("lines 5 bytes {head}\n"),
    )
    .unwrap();
    let log = relabel(&data, &part, &["--nodes", "3000"]).unwrap();
    assert!(log.contains("from line 6"), "{log}");
    assert_eq!(std::fs::read_to_string(&part).unwrap(), relabelled);
    // Output without its progress file is not overwritten; bad lines are named.
    std::fs::remove_file(dir.join("part.nnue.progress")).unwrap();
    let err = relabel(&data, &part, &["--nodes", "3000"]).unwrap_err();
    assert!(err.contains("no progress file"), "{err}");
    let bad = dir.join("bad.nnue");
    std::fs::write(
        &bad,
        format!("{}x\ty\n", before.lines().next().unwrap().to_owned() + "\n"),
    )
    .unwrap();
    let err = relabel(&bad, &dir.join("bad-out.nnue"), &[]).unwrap_err();
    assert!(err.contains("line 2: 2 tab-separated fields"), "{err}");
}

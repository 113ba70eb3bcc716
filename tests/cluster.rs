//! The cluster recipes of docs/cluster.md on a real scheduler: a one-node
//! Slurm cluster on this machine (scripts/cluster/slurm_local.sh) runs the
//! match, table, verification and training-data array jobs, and the
//! Kubernetes Indexed Job
//! is validated against the Kubernetes schema (no cluster needed).
//!
//! The Slurm tests run under CI=true (where they never skip: they bring the
//! cluster up themselves if .ci/run has not) or with YOTE_SLURM=1 (as root:
//! the script installs slurm-wlm and munge when missing); elsewhere they
//! say they were skipped. They take turns: one node, two CPUs.

use std::collections::BTreeMap;
use std::path::{Path, PathBuf};
use std::process::{Command, Output};
use std::sync::{Mutex, MutexGuard, OnceLock};
use std::time::{Duration, Instant};
use yote::client::records::GameRecord;

const ROOT: &str = env!("CARGO_MANIFEST_DIR");
const YOTE: &str = env!("CARGO_BIN_EXE_yote");

fn under_ci() -> bool {
    std::env::var("CI").is_ok_and(|v| v == "true")
}

/// A line on stderr that the test harness does not capture: a skipped
/// test must say so even when it "passes".
fn say(line: &str) {
    use std::io::Write as _;
    let _ = writeln!(std::io::stderr(), "{line}");
}

fn text(bytes: &[u8]) -> String {
    String::from_utf8_lossy(bytes).into_owned()
}

fn ok(out: Output, what: &str) -> String {
    assert!(
        out.status.success(),
        "{what}: {:?}\n{}{}",
        out.status,
        text(&out.stdout),
        text(&out.stderr)
    );
    text(&out.stdout)
}

/// A fresh folder for one test's files (the node runs on this machine, so
/// a local folder is the "shared volume").
fn workdir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("yote-cluster-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    std::fs::create_dir_all(&dir).unwrap();
    dir
}

/// One test at a time uses the CPUs (the cluster's node is this machine,
/// and the kill test's timing is its own).
fn turn() -> MutexGuard<'static, ()> {
    static TURN: Mutex<()> = Mutex::new(());
    TURN.lock().unwrap_or_else(|e| e.into_inner())
}

/// The local cluster, held for one test at a time.
struct Slurm {
    conf: PathBuf,
    _turn: MutexGuard<'static, ()>,
}

/// The cluster when the Slurm tests are enabled (brought up once for the
/// whole run; `up` is quick when it is already up), else None after
/// saying how to enable them.
fn slurm(test: &str) -> Option<Slurm> {
    let asked = std::env::var("YOTE_SLURM").is_ok_and(|v| v == "1");
    if !under_ci() && !asked {
        say(&format!(
            "{test}: skipped (needs Slurm): run with YOTE_SLURM=1, as root, to bring up a \
             one-node cluster with scripts/cluster/slurm_local.sh and run it; CI=true always runs it"
        ));
        return None;
    }
    static CONF: OnceLock<PathBuf> = OnceLock::new();
    let turn = turn();
    let conf = CONF.get_or_init(|| {
        let out = Command::new("bash")
            .arg(format!("{ROOT}/scripts/cluster/slurm_local.sh"))
            .arg("up")
            .output()
            .expect("run slurm_local.sh");
        let stdout = ok(out, "scripts/cluster/slurm_local.sh up");
        PathBuf::from(
            stdout
                .lines()
                .last()
                .expect("the script prints slurm.conf's path"),
        )
    });
    Some(Slurm {
        conf: conf.clone(),
        _turn: turn,
    })
}

impl Slurm {
    fn command(&self, program: &str) -> Command {
        let mut command = Command::new(program);
        command.env("SLURM_CONF", &self.conf);
        command
    }

    /// Submits `script` as an array job from `dir` (its logs go there) with
    /// these environment variables; returns the job's id.
    fn sbatch(&self, dir: &Path, args: &[&str], env: &[(&str, String)], script: &str) -> String {
        let out = self
            .command("sbatch")
            .arg("--parsable")
            .arg(format!("--chdir={}", dir.display()))
            .args(args)
            .arg(format!("{ROOT}/{script}"))
            .envs(env.iter().map(|(k, v)| (k, v)))
            .output()
            .unwrap();
        let id = ok(out, "sbatch");
        id.trim().split(';').next().unwrap().to_string()
    }

    /// Runs scontrol/scancel with these arguments, which must succeed.
    fn control(&self, program: &str, args: &[&str]) {
        let out = self.command(program).args(args).output().unwrap();
        ok(out, &format!("{program} {args:?}"));
    }

    /// Each array task's state (`COMPLETED`, `FAILED`, `CANCELLED`, …).
    fn states(&self, job: &str) -> BTreeMap<u32, String> {
        let out = self
            .command("scontrol")
            .args(["show", "job", "-o", job])
            .output()
            .unwrap();
        ok(out, "scontrol show job")
            .lines()
            .flat_map(|line| {
                let field = |name: &str| {
                    line.split(' ')
                        .find_map(|w| w.strip_prefix(name))
                        .map(str::to_string)
                };
                let state = field("JobState=").unwrap_or_default();
                // Tasks not started yet share one record, `ArrayTaskId=3-4`
                // (or `3,5`, `1-4%2`): each of them is in that state.
                let ids = field("ArrayTaskId=").map_or_else(Vec::new, |ids| task_ids(&ids));
                ids.into_iter().map(move |id| (id, state.clone()))
            })
            .collect()
    }

    /// Waits until no task of `job` is pending or running; returns their
    /// final states.
    fn wait(&self, job: &str, limit: Duration) -> BTreeMap<u32, String> {
        let start = Instant::now();
        loop {
            let states = self.states(job);
            let busy = states.values().any(|s| {
                matches!(
                    s.as_str(),
                    "PENDING" | "RUNNING" | "REQUEUED" | "COMPLETING" | "CONFIGURING"
                )
            });
            if !states.is_empty() && !busy {
                return states;
            }
            assert!(
                start.elapsed() < limit,
                "job {job} still busy after {limit:?}: {states:?}"
            );
            std::thread::sleep(Duration::from_millis(500));
        }
    }
}

// ---------------------------------------------------------------- matches

/// The match of the tests: the engine against itself with one search
/// feature off, node limits (the games depend on nothing but the flags
/// and the seed), 40 games = 20 pairs, 5 for each of 4 shares.
const GAMES: &str = "40";
const SEED: &str = "7";
const LIMIT: &str = "--nodes 1000";
const ENGINE_B_OPTION: &str = "option.SearchFeatures=-lmr";

fn match_env(results: &Path) -> Vec<(&'static str, String)> {
    vec![
        ("YOTE", YOTE.to_string()),
        ("ENGINE_A", format!("name=new,cmd={YOTE}")),
        (
            "ENGINE_B",
            format!("name=base,cmd={YOTE},{ENGINE_B_OPTION}"),
        ),
        ("LIMIT", LIMIT.to_string()),
        ("GAMES", GAMES.to_string()),
        ("SEED", SEED.to_string()),
        ("RESULTS", results.display().to_string()),
    ]
}

/// Each game's moves and result by its number in the schedule.
type Games = BTreeMap<u64, (Vec<String>, String)>;

/// [`Games`] of a records file.
fn games_by_number(text: &str) -> Games {
    GameRecord::parse_all(text)
        .unwrap()
        .into_iter()
        .map(|g| {
            let number = g.tag("Game").unwrap().parse().unwrap();
            (number, (g.moves.clone(), g.result.to_string()))
        })
        .collect()
}

/// The unsharded run of the same flags and seed on this machine (played
/// once for all the tests): its records and its `--rescore` statistics.
fn unsharded() -> &'static (Games, String) {
    static WHOLE: OnceLock<(Games, String)> = OnceLock::new();
    WHOLE.get_or_init(|| {
        let dir = workdir("whole");
        let pgn = dir.join("whole.pgn");
        let out = Command::new(YOTE)
            .args(["match", "--quiet", "--games", GAMES, "--seed", SEED])
            .args(LIMIT.split(' '))
            .args(["--engine", &format!("name=new,cmd={YOTE}")])
            .args([
                "--engine",
                &format!("name=base,cmd={YOTE},{ENGINE_B_OPTION}"),
            ])
            .args(["--concurrency", "2", "--pgn"])
            .arg(&pgn)
            .output()
            .unwrap();
        ok(out, "the unsharded match");
        let games = games_by_number(&std::fs::read_to_string(&pgn).unwrap());
        let stats = rescore(&[pgn]);
        let _ = std::fs::remove_dir_all(&dir);
        (games, stats)
    })
}

/// `yote match --rescore` of these files: must succeed; its statistics.
fn rescore(files: &[PathBuf]) -> String {
    let out = Command::new(YOTE)
        .args(["match", "--rescore"])
        .args(files)
        .output()
        .unwrap();
    ok(out, "yote match --rescore")
}

/// The shards' records files in `dir`, as `shard-*.pgn` globs them.
fn shard_files(dir: &Path) -> Vec<PathBuf> {
    let mut files: Vec<PathBuf> = std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| {
            let name = p.file_name().unwrap().to_string_lossy();
            name.starts_with("shard-") && name.ends_with(".pgn")
        })
        .collect();
    files.sort();
    files
}

/// Every game of every shard, each once: no game in two records.
fn merged_games(files: &[PathBuf]) -> Games {
    let mut merged = BTreeMap::new();
    for file in files {
        let text = std::fs::read_to_string(file).unwrap();
        let records = GameRecord::parse_all(&text).unwrap();
        let games = games_by_number(&text);
        assert_eq!(
            records.len(),
            games.len(),
            "{}: a game recorded twice",
            file.display()
        );
        for (number, game) in games {
            assert!(merged.insert(number, game).is_none(), "game {number} twice");
        }
    }
    merged
}

/// The same games, or which numbers differ (a whole game's moves are too
/// long to read in a failure).
fn assert_same_games(found: &Games, expected: &Games) {
    let differ: Vec<String> = expected
        .keys()
        .chain(found.keys())
        .collect::<std::collections::BTreeSet<_>>()
        .into_iter()
        .filter(|n| found.get(n) != expected.get(n))
        .map(|n| match (found.get(n), expected.get(n)) {
            (None, _) => format!("{n} missing"),
            (_, None) => format!("{n} not in the unsharded run"),
            (Some(f), Some(e)) => format!(
                "{n}: {} in {} plies, not {} in {}",
                f.1,
                f.0.len(),
                e.1,
                e.0.len()
            ),
        })
        .collect();
    assert!(
        differ.is_empty(),
        "games differ from the unsharded run: {differ:?}"
    );
}

/// The task ids of an `ArrayTaskId=` value: `2`, `3-4`, `3,5`, `1-4%2`.
fn task_ids(text: &str) -> Vec<u32> {
    let text = text.split('%').next().unwrap_or_default();
    text.split(',')
        .flat_map(|part| match part.split_once('-') {
            Some((a, b)) => match (a.parse::<u32>(), b.parse::<u32>()) {
                (Ok(a), Ok(b)) => (a..=b).collect(),
                _ => Vec::new(),
            },
            None => part.parse().ok().into_iter().collect(),
        })
        .collect()
}

#[test]
fn array_task_ids_are_read_as_slurm_writes_them() {
    assert_eq!(task_ids("2"), [2]);
    assert_eq!(task_ids("3-4"), [3, 4]);
    assert_eq!(task_ids("3,5"), [3, 5]);
    assert_eq!(task_ids("1-4%2"), [1, 2, 3, 4]);
    assert!(task_ids("N/A").is_empty());
}

fn all_completed(states: &BTreeMap<u32, String>, tasks: u32) {
    assert_eq!(states.len(), tasks as usize, "{states:?}");
    assert!(states.values().all(|s| s == "COMPLETED"), "{states:?}");
}

/// `sbatch --array=1-4 scripts/cluster/slurm_match.sh` with the match's
/// flags, then `yote match --rescore` of the shards: the same games and
/// the same statistics as the unsharded run, exactly.
#[test]
fn match_on_slurm_merges_to_the_unsharded_run() {
    let Some(slurm) = slurm("match_on_slurm_merges_to_the_unsharded_run") else {
        return;
    };
    let dir = workdir("match");
    let job = slurm.sbatch(
        &dir,
        &["--array=1-4", "--cpus-per-task=1"],
        &match_env(&dir),
        "scripts/cluster/slurm_match.sh",
    );
    all_completed(&slurm.wait(&job, Duration::from_secs(240)), 4);
    let files = shard_files(&dir);
    assert_eq!(files.len(), 4, "{files:?}");
    let (games, stats) = unsharded();
    assert_same_games(&merged_games(&files), games);
    assert_eq!(&rescore(&files), stats);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A task killed mid-run and requeued (`scontrol requeue`) resumes its own
/// records file: no game twice, none lost, the merge still the unsharded
/// run's.
#[test]
fn a_requeued_match_task_resumes_its_records() {
    let Some(slurm) = slurm("a_requeued_match_task_resumes_its_records") else {
        return;
    };
    let dir = workdir("requeue");
    let job = slurm.sbatch(
        &dir,
        &["--array=1-4", "--cpus-per-task=1"],
        &match_env(&dir),
        "scripts/cluster/slurm_match.sh",
    );
    let first = dir.join("shard-1.pgn");
    let start = Instant::now();
    let played = |path: &Path| {
        std::fs::read_to_string(path).map_or(0, |t| GameRecord::parse_all(&t).unwrap().len())
    };
    while played(&first) < 2 {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "share 1 never started"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    let task = format!("{job}_1");
    slurm.control("scontrol", &["requeue", &task]);
    let killed_at = played(&first);
    assert!(killed_at < 10, "share 1 finished before the requeue");
    // A requeued job waits out a begin time; no need to here.
    let _ = slurm
        .command("scontrol")
        .args(["update", &format!("jobid={task}"), "begintime=now"])
        .output();
    all_completed(&slurm.wait(&job, Duration::from_secs(300)), 4);
    let log = std::fs::read_to_string(dir.join(format!("yote-match-{job}_1.log"))).unwrap();
    assert!(log.contains("resuming run"), "share 1 resumed: {log}");
    let files = shard_files(&dir);
    let (games, stats) = unsharded();
    assert_same_games(&merged_games(&files), games);
    assert_eq!(&rescore(&files), stats);
    let _ = std::fs::remove_dir_all(&dir);
}

/// A share that fails is reported by the merge: task 2 is cancelled
/// mid-run and task 4 never starts (cancelled while held); `--rescore` of
/// the files there prints what it has, names both shares and fails.
#[test]
fn a_failed_match_task_is_reported_by_the_merge() {
    let Some(slurm) = slurm("a_failed_match_task_is_reported_by_the_merge") else {
        return;
    };
    let dir = workdir("failed");
    let job = slurm.sbatch(
        &dir,
        &["--array=1-4", "--cpus-per-task=1", "--hold"],
        &match_env(&dir),
        "scripts/cluster/slurm_match.sh",
    );
    slurm.control("scancel", &[&format!("{job}_4")]);
    slurm.control("scontrol", &["release", &format!("{job}_[1-3]")]);
    let second = dir.join("shard-2.pgn");
    let start = Instant::now();
    let played = |path: &Path| {
        std::fs::read_to_string(path).map_or(0, |t| GameRecord::parse_all(&t).unwrap().len())
    };
    while played(&second) < 1 {
        assert!(
            start.elapsed() < Duration::from_secs(120),
            "share 2 never started"
        );
        std::thread::sleep(Duration::from_millis(100));
    }
    slurm.control("scancel", &[&format!("{job}_2")]);
    let states = slurm.wait(&job, Duration::from_secs(300));
    assert_eq!(
        states.get(&2).map(String::as_str),
        Some("CANCELLED"),
        "{states:?}"
    );
    let files = shard_files(&dir);
    assert_eq!(files.len(), 3, "share 4 never wrote: {files:?}");
    let out = Command::new(YOTE)
        .args(["match", "--rescore"])
        .args(&files)
        .output()
        .unwrap();
    let stdout = text(&out.stdout);
    assert!(
        !out.status.success(),
        "the merge of a failed share fails: {stdout}"
    );
    assert!(
        stdout.contains("new vs base: "),
        "the statistics print: {stdout}"
    );
    let short = played(&second);
    assert!(
        stdout.contains(&format!("incomplete: shard 2/4 of seed={SEED} "))
            && stdout.contains(&format!(": {short} of its 10 games")),
        "{stdout}"
    );
    assert!(
        stdout.contains(&format!("incomplete: shard 4/4 of seed={SEED} "))
            && stdout.contains(": no records"),
        "{stdout}"
    );
    assert!(text(&out.stderr).contains("the merge is incomplete"));
    let _ = std::fs::remove_dir_all(&dir);
}

// ----------------------------------------------------------------- tables

/// Tables of the tests: standard rules, every class of at most 5 pieces
/// (33 classes in 5 stages, 3.6 × 10^6 positions, about 3 CPU seconds; the
/// 6-piece set passes too but costs 33 CPU seconds a run, and CI's budget
/// for the cluster is 5 minutes).
const PIECES: &str = "5";

/// Every file of a table directory: name and bytes.
fn table_files(dir: &Path) -> BTreeMap<String, Vec<u8>> {
    std::fs::read_dir(dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.is_file() && !p.to_string_lossy().ends_with(".log"))
        .map(|p| {
            let name = p.file_name().unwrap().to_string_lossy().into_owned();
            (name, std::fs::read(&p).unwrap())
        })
        .collect()
}

/// The same tables made by one run on one machine (once for all tests).
fn one_machine_tables() -> &'static BTreeMap<String, Vec<u8>> {
    static TABLES: OnceLock<BTreeMap<String, Vec<u8>>> = OnceLock::new();
    TABLES.get_or_init(|| {
        let dir = workdir("tables-local");
        let out = Command::new(YOTE)
            .args(["tb", "generate", "--pieces", PIECES, "--dir"])
            .arg(&dir)
            .output()
            .unwrap();
        ok(out, "tb generate on one machine");
        let files = table_files(&dir);
        let _ = std::fs::remove_dir_all(&dir);
        assert!(files.len() > 10, "{:?}", files.keys());
        files
    })
}

/// `tb generate --classes K/2` as an array job: the files are identical
/// byte for byte to a one-machine run, and `tb verify` passes on them.
#[test]
fn tables_on_slurm_equal_a_one_machine_run() {
    let Some(slurm) = slurm("tables_on_slurm_equal_a_one_machine_run") else {
        return;
    };
    let dir = workdir("tables");
    let tables = dir.join("tables");
    let job = slurm.sbatch(
        &dir,
        &["--array=1-2", "--cpus-per-task=1"],
        &[
            ("YOTE", YOTE.to_string()),
            ("PIECES", PIECES.to_string()),
            ("DIR", tables.display().to_string()),
        ],
        "scripts/cluster/slurm_tables.sh",
    );
    let states = slurm.wait(&job, Duration::from_secs(300));
    for k in 1..=2 {
        let log = dir.join(format!("yote-tables-{job}_{k}.log"));
        let log = std::fs::read_to_string(log).unwrap_or_default();
        assert!(
            states.get(&k).map(String::as_str) == Some("COMPLETED"),
            "{states:?}: {log}"
        );
    }
    let files = table_files(&tables);
    let local = one_machine_tables();
    assert_eq!(
        files.keys().collect::<Vec<_>>(),
        local.keys().collect::<Vec<_>>()
    );
    for (name, bytes) in &files {
        assert!(
            &local[name] == bytes,
            "{name} differs from the one-machine run"
        );
    }
    // Verified as an array job too: two shares, each with its journal,
    // check every class once between them.
    let job = slurm.sbatch(
        &dir,
        &["--array=1-2", "--cpus-per-task=1"],
        &[
            ("YOTE", YOTE.to_string()),
            ("DIR", tables.display().to_string()),
            ("JOURNALS", dir.display().to_string()),
        ],
        "scripts/cluster/slurm_verify.sh",
    );
    all_completed(&slurm.wait(&job, Duration::from_secs(120)), 2);
    let mut checked: Vec<String> = (1..=2)
        .flat_map(|k| {
            let journal = dir.join(format!("verify-{k}-of-2.journal"));
            let text = std::fs::read_to_string(&journal).unwrap_or_default();
            let classes: Vec<String> = text
                .lines()
                .map(|l| l.split(' ').next().unwrap().to_string())
                .collect();
            assert!(!classes.is_empty(), "share {k} checked nothing");
            classes
        })
        .collect();
    checked.sort();
    let mut expected: Vec<String> = local
        .keys()
        .filter_map(|name| name.strip_suffix(".ytw").map(str::to_string))
        .collect();
    expected.sort();
    assert_eq!(checked, expected);
    let _ = std::fs::remove_dir_all(&dir);
}

// ---------------------------------------------------------------- datagen

/// `yote datagen --shard K/2` as an array job: the shards together hold
/// exactly the positions of one run on one machine.
#[test]
fn datagen_on_slurm_equals_one_machine() {
    let Some(slurm) = slurm("datagen_on_slurm_equals_one_machine") else {
        return;
    };
    let dir = workdir("datagen");
    let data = dir.join("data");
    let (games, nodes) = ("14", "200");
    let job = slurm.sbatch(
        &dir,
        &["--array=1-2", "--cpus-per-task=1"],
        &[
            ("YOTE", YOTE.to_string()),
            ("GAMES", games.to_string()),
            ("NODES", nodes.to_string()),
            ("OUT", data.display().to_string()),
        ],
        "scripts/cluster/slurm_datagen.sh",
    );
    all_completed(&slurm.wait(&job, Duration::from_secs(120)), 2);
    let lines = |paths: &[PathBuf]| {
        let mut all: Vec<String> = paths
            .iter()
            .flat_map(|p| {
                let text = std::fs::read_to_string(p).unwrap();
                text.lines().map(str::to_string).collect::<Vec<_>>()
            })
            .collect();
        all.sort();
        all
    };
    let shards: Vec<PathBuf> = (1..=2)
        .map(|k| data.join(format!("shard-{k}.nnue")))
        .collect();
    let one = dir.join("one.nnue");
    let out = Command::new(YOTE)
        .args(["datagen", "--games", games, "--nodes", nodes, "--out"])
        .arg(&one)
        .output()
        .unwrap();
    ok(out, "datagen on one machine");
    let found = lines(&shards);
    assert!(found.len() > 100, "{} positions", found.len());
    assert_eq!(found, lines(&[one]));
    let _ = std::fs::remove_dir_all(&dir);
}

/// A share that dies leaves nothing half-written that a later share would
/// read: `tb generate` killed (SIGKILL, no chance to clean up) at several
/// moments leaves only complete files under their real names, each
/// readable and identical to the one-machine run's; the run started again
/// completes the set, byte for byte. Needs no scheduler.
#[test]
fn a_killed_table_share_leaves_no_half_file() {
    let _turn = turn();
    let dir = workdir("tables-killed");
    let local = one_machine_tables();
    let generate = || {
        Command::new(YOTE)
            .args([
                "tb",
                "generate",
                "--pieces",
                PIECES,
                "--threads",
                "1",
                "--dir",
            ])
            .arg(&dir)
            .stderr(std::process::Stdio::null())
            .spawn()
            .unwrap()
    };
    let mut kills = 0;
    for delay_ms in [150, 300, 450, 600, 800, 1000, 1300] {
        let mut child = generate();
        std::thread::sleep(Duration::from_millis(delay_ms));
        if child.try_wait().unwrap().is_some() {
            break; // finished within the delay: nothing left to kill
        }
        child.kill().unwrap();
        child.wait().unwrap();
        kills += 1;
        for (name, bytes) in table_files(&dir) {
            if name.ends_with(".part") {
                continue; // a temporary name no reader opens
            }
            assert!(
                local.get(&name) == Some(&bytes),
                "killed after {delay_ms} ms: {name} is not the finished file"
            );
        }
    }
    assert!(kills >= 2, "the run ended before it could be killed twice");
    let status = generate().wait().unwrap();
    assert!(status.success());
    let finished: BTreeMap<String, Vec<u8>> = table_files(&dir)
        .into_iter()
        .filter(|(name, _)| !name.ends_with(".part"))
        .collect();
    assert_eq!(&finished, local);
    let _ = std::fs::remove_dir_all(&dir);
}

// ------------------------------------------------------------- kubernetes

/// `kubernetes-validate` (PyPI; the schemas ship with it, no cluster or
/// network needed), which CI installs; elsewhere a missing one skips.
fn kubernetes_validate(args: &[&str], file: &Path) -> Option<Output> {
    match Command::new("kubernetes-validate")
        .args(args)
        .arg(file)
        .output()
    {
        Ok(out) => Some(out),
        Err(e) if !under_ci() => {
            say(&format!(
                "the_kubernetes_job_validates_against_the_schema: skipped ({e}): \
                 pip install kubernetes-validate to check it"
            ));
            None
        }
        Err(e) => panic!("kubernetes-validate under CI: {e}"),
    }
}

/// The Indexed Job validates strictly (no unknown field) against the
/// Kubernetes schema; a misspelt field or a wrong type in a copy does not.
#[test]
fn the_kubernetes_job_validates_against_the_schema() {
    let manifest = PathBuf::from(format!("{ROOT}/scripts/cluster/k8s_match_job.yaml"));
    let Some(out) = kubernetes_validate(&["--strict"], &manifest) else {
        return;
    };
    let stdout = ok(out, "kubernetes-validate --strict");
    assert!(stdout.contains("passed"), "{stdout}");
    let yaml = std::fs::read_to_string(&manifest).unwrap();
    let dir = workdir("k8s");
    for (from, to) in [
        ("backoffLimit: 8", "backofLimit: 8"),
        ("parallelism: 4", "parallelism: four"),
    ] {
        assert!(yaml.contains(from));
        let broken = dir.join("broken.yaml");
        std::fs::write(&broken, yaml.replace(from, to)).unwrap();
        let out = kubernetes_validate(&["--strict"], &broken).unwrap();
        assert!(!out.status.success(), "{to}: {}", text(&out.stdout));
    }
    let _ = std::fs::remove_dir_all(&dir);
}

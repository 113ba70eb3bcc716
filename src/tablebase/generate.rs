//! Generating a table set: classes in solving order, both cores, resumable
//! (classes already on disk are checked and kept), shardable over machines.

use super::class::{Class, class_pairs, table_classes};
use super::file::{self, TableFileError};
use super::retrograde::solve_pair;
use super::table::{Table, Tablebase};
use super::value::Metric;
use crate::rules::Rules;
use std::collections::HashMap;
use std::path::{Path, PathBuf};
use std::time::{Duration, Instant};

/// This run's share of the work: share `index` (from 1) of `count`.
#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub struct Shard {
    pub index: u32,
    pub count: u32,
}

impl Shard {
    pub const ALL: Shard = Shard { index: 1, count: 1 };

    /// Reads `K/N` with 1 ≤ K ≤ N.
    pub fn parse(text: &str) -> Result<Shard, ShardError> {
        let bad = || ShardError(text.to_string());
        let (k, n) = text.split_once('/').ok_or_else(bad)?;
        let (index, count) = (
            k.trim().parse::<u32>().map_err(|_| bad())?,
            n.trim().parse::<u32>().map_err(|_| bad())?,
        );
        if index == 0 || index > count {
            return Err(bad());
        }
        Ok(Shard { index, count })
    }

    /// Whether the `n`th class pair of a stage is this shard's to solve.
    pub(crate) fn owns(&self, n: usize) -> bool {
        n % self.count as usize == (self.index - 1) as usize
    }
}

/// A `--classes` text that is not `K/N` with 1 ≤ K ≤ N.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct ShardError(pub String);

impl std::fmt::Display for ShardError {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "--classes wants K/N with 1 <= K <= N, got '{}'", self.0)
    }
}

impl std::error::Error for ShardError {}

/// What `generate` was asked to do.
#[derive(Clone, Debug)]
pub struct Request {
    pub pieces: u32,
    /// Where the tables go; None keeps them in memory only.
    pub dir: Option<PathBuf>,
    pub shard: Shard,
    pub threads: usize,
    /// What the distances count: DTZ (what the engine needs, and small)
    /// or DTM (the fastest win; what `solve` and the statistics need).
    pub metric: Metric,
}

impl Request {
    /// How a whole-set run writes its classes: wins only, since every
    /// class a loss's children are in is in the set.
    pub fn layout(&self) -> file::Layout {
        file::Layout {
            metric: self.metric,
            losses_derived: true,
        }
    }
}

/// What a generation run did.
#[derive(Clone, Debug, Default)]
pub struct Report {
    pub solved: Vec<Class>,
    /// Classes found on disk, checked and kept.
    pub kept: Vec<Class>,
    pub positions_solved: u64,
    pub elapsed: Duration,
}

/// Where progress goes: the total once known, then positions done and the
/// class being solved.
pub trait Progress: Sync {
    fn start(&self, total_positions: u64);
    fn class(&self, classes: &[Class]);
    fn advance(&self, positions: u64);
    /// A note for people (waiting for another shard, a class regenerated).
    fn note(&self, text: &str);
}

/// Progress nobody watches (tests, `solve`'s inner runs).
pub struct Silent;

impl Progress for Silent {
    fn start(&self, _: u64) {}
    fn class(&self, _: &[Class]) {}
    fn advance(&self, _: u64) {}
    fn note(&self, _: &str) {}
}

/// Loads a class from disk when its file is there and sound. A damaged
/// file is reported and solved again; a file for other rules or of the
/// other metric stops the run (the directory belongs to another set).
pub(crate) fn load(
    dir: &Path,
    spec: &str,
    class: Class,
    cells: u8,
    metric: Metric,
    progress: &dyn Progress,
) -> anyhow::Result<Option<Table>> {
    match file::read(dir, spec, class, cells, metric) {
        Ok(table) => Ok(Some(table)),
        Err(e) if e.is_missing() => Ok(None),
        Err(e @ TableFileError::OldFormat(_)) => Err(anyhow::anyhow!("{e}")),
        Err(
            e @ (TableFileError::WrongRules { .. }
            | TableFileError::Version { .. }
            | TableFileError::OtherMetric { .. }),
        ) => Err(anyhow::anyhow!(
            "{e}; use another directory for these tables"
        )),
        Err(e) => {
            progress.note(&format!("{e}; solving it again"));
            Ok(None)
        }
    }
}

/// Generates (or completes) every table of up to `request.pieces` pieces.
/// Returns the table set with every class of the run in memory.
pub fn generate(
    rules: &Rules,
    request: &Request,
    progress: &dyn Progress,
) -> anyhow::Result<(Tablebase, Report)> {
    let start = Instant::now();
    let variant = rules.variant();
    let cells = rules.geometry().cell_count();
    let spec = file::table_rules(variant);
    let mut tables = Tablebase::new(rules.clone(), request.pieces, request.metric);
    let mut report = Report::default();
    if let Some(dir) = &request.dir {
        std::fs::create_dir_all(dir)?;
    }
    let pairs = class_pairs(&table_classes(variant, request.pieces));
    let mut stages: Vec<Vec<Vec<Class>>> = Vec::new();
    for pair in pairs {
        match stages.last_mut() {
            Some(stage) if stage[0][0].stage() == pair[0].stage() => stage.push(pair),
            _ => stages.push(vec![pair]),
        }
    }
    // First pass: what is on disk already, so the bar counts only new work.
    let mut on_disk = HashMap::new();
    if let Some(dir) = &request.dir {
        for stage in &stages {
            for pair in stage {
                for &class in pair {
                    if let Some(table) = load(dir, &spec, class, cells, request.metric, progress)? {
                        on_disk.insert(class, table);
                    }
                }
            }
        }
    }
    let kept = |class: Class, on_disk: &HashMap<Class, Table>| on_disk.contains_key(&class);
    let todo: u64 = stages
        .iter()
        .flat_map(|stage| stage.iter().enumerate())
        .filter(|(n, pair)| request.shard.owns(*n) && pair.iter().any(|&c| !kept(c, &on_disk)))
        .flat_map(|(_, pair)| pair.iter())
        .map(|c| c.size(cells))
        .sum();
    progress.start(todo);
    for stage in &stages {
        let mut waiting = Vec::new();
        for (n, pair) in stage.iter().enumerate() {
            if pair.iter().all(|&c| kept(c, &on_disk)) {
                for &class in pair {
                    report.kept.push(class);
                }
                continue;
            }
            if !request.shard.owns(n) {
                waiting.push(pair.clone());
                continue;
            }
            progress.class(pair);
            let pair_start = Instant::now();
            let solved = solve_pair(&tables, pair, request.threads, &|n| progress.advance(n));
            let names: Vec<String> = pair.iter().map(|c| c.to_string()).collect();
            progress.note(&format!(
                "class {} solved in {:.1} s",
                names.join(" + "),
                pair_start.elapsed().as_secs_f64()
            ));
            for table in solved {
                if let Some(dir) = &request.dir {
                    file::write(dir, &spec, &table, request.layout(), request.threads)?;
                }
                report.positions_solved += table.index.size();
                report.solved.push(table.class());
                tables.insert(table);
            }
        }
        let this_stage: Vec<Class> = on_disk
            .keys()
            .filter(|c| c.stage() == stage[0][0].stage())
            .copied()
            .collect();
        for class in this_stage {
            if let Some(table) = on_disk.remove(&class) {
                tables.insert(table);
            }
        }
        for pair in waiting {
            for class in pair {
                let table = wait_for(request, &spec, class, cells, progress)?;
                tables.insert(table);
            }
        }
        // Read back from files of wins only: the losses from their
        // children, which are all here now (the partner and earlier stages).
        for class in stage.iter().flatten() {
            if !tables.derive_losses(*class, request.threads) {
                anyhow::bail!("class {class}: a child's table is missing to derive its losses");
            }
        }
    }
    report.elapsed = start.elapsed();
    Ok((tables, report))
}

/// Another shard solves `class`: polls the shared directory until its file
/// appears, sound.
pub(crate) fn wait_for(
    request: &Request,
    spec: &str,
    class: Class,
    cells: u8,
    progress: &dyn Progress,
) -> anyhow::Result<Table> {
    let dir = request
        .dir
        .as_ref()
        .ok_or_else(|| anyhow::anyhow!("sharded generation needs a shared --dir"))?;
    let mut told = false;
    loop {
        match file::read(dir, spec, class, cells, request.metric) {
            Ok(table) => return Ok(table),
            Err(e) if e.is_missing() => {}
            Err(e) => return Err(e.into()),
        }
        if !told {
            progress.note(&format!("waiting for class {class} from another shard"));
            told = true;
        }
        std::thread::sleep(Duration::from_secs(2));
    }
}

/// Finds every table of up to `max_pieces` pieces in `dir` for these rules,
/// to be probed in place. Missing classes are skipped; a file that is
/// damaged or made for other rules is an error.
pub fn load_dir(rules: &Rules, dir: &Path, max_pieces: u32) -> Result<Tablebase, TableFileError> {
    let (tables, mut refused) = load_dirs(rules, &[dir.to_path_buf()], max_pieces);
    match refused.is_empty() {
        true => Ok(tables),
        false => Err(refused.remove(0)),
    }
}

/// The metric of the first class of up to `max_pieces` pieces found in
/// `dirs` (a set has one; DTZ when nothing is there).
fn metric_of(rules: &Rules, dirs: &[PathBuf], max_pieces: u32) -> Metric {
    table_classes(rules.variant(), max_pieces)
        .into_iter()
        .find_map(|class| dirs.iter().find_map(|dir| file::metric_in(dir, class)))
        .unwrap_or(Metric::Dtz)
}

/// Finds the tables of up to `max_pieces` pieces for these rules in the
/// first of `dirs` that holds each class, to be probed in place: only the
/// headers are read (and the sizes compared with them). The set's metric
/// is that of the first class found. Files that are damaged, made for
/// other rules, of the other metric or of the old format are refused
/// (returned, never probed); what is not a regular file is never opened.
pub fn load_dirs(
    rules: &Rules,
    dirs: &[PathBuf],
    max_pieces: u32,
) -> (Tablebase, Vec<TableFileError>) {
    let spec = file::table_rules(rules.variant());
    let cells = rules.geometry().cell_count();
    let metric = metric_of(rules, dirs, max_pieces);
    let mut tables = Tablebase::new(rules.clone(), max_pieces, metric);
    let mut refused = Vec::new();
    for class in table_classes(rules.variant(), max_pieces) {
        for dir in dirs {
            match file::find(dir, &spec, class, cells, metric) {
                Ok(table) => {
                    tables.insert(table);
                    break;
                }
                Err(e) if e.is_missing() => {}
                Err(e) => refused.push(e),
            }
        }
    }
    (tables, refused)
}

/// Reads every table of up to `max_pieces` pieces in `dir` whole into
/// memory, every block checked (`tb verify`, which probes every child).
pub fn read_dir(rules: &Rules, dir: &Path, max_pieces: u32) -> Result<Tablebase, TableFileError> {
    let spec = file::table_rules(rules.variant());
    let cells = rules.geometry().cell_count();
    let metric = metric_of(rules, &[dir.to_path_buf()], max_pieces);
    let mut tables = Tablebase::new(rules.clone(), max_pieces, metric);
    let classes = table_classes(rules.variant(), max_pieces);
    for &class in &classes {
        match file::read(dir, &spec, class, cells, metric) {
            Ok(table) => tables.insert(table),
            Err(e) if e.is_missing() => {}
            Err(e) => return Err(e),
        }
    }
    // In solving order: a class's children are complete before it.
    let threads = std::thread::available_parallelism().map_or(1, |n| n.get());
    for class in classes {
        if !tables.derive_losses(class, threads) {
            return Err(TableFileError::Malformed {
                path: file::path(dir, class),
                what: "a child's table is missing to derive the losses",
            });
        }
    }
    Ok(tables)
}

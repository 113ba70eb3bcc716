//! `yote tb …` and `yote solve`: the command-line side of the tables.

use super::bound::{self, peak_memory_mib};
use super::class::{Class, table_classes};
use super::file;
use super::format::{self, Kind};
use super::generate::{self, Progress, Request, Shard};
use super::perfect;
use super::table::{ClassStats, Tablebase};
use super::value::{Metric, Value};
use super::verify::{verify, verify_classes};
use crate::rules::{Position, Rules, Variant};
use anyhow::{Context, Result, bail};
use clap::{Args, Subcommand};
use indicatif::{ProgressBar, ProgressStyle};
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Subcommand, Debug, Clone)]
pub enum TbCommand {
    /// Solve every position with at most N pieces (board and hand, both
    /// sides) into one file per material class; classes already in DIR are
    /// checked and kept.
    Generate {
        /// The most pieces a position may hold, board and hand, both sides
        /// together (at most twice the variant's `pieces`): every class of
        /// that many or fewer is solved.
        #[arg(long)]
        pieces: u32,
        /// Where the table files go (created if missing); files already
        /// there for the same rules are checked and kept.
        #[arg(long)]
        dir: PathBuf,
        /// Rules: a preset and/or key=value overrides, as for `yote perft`.
        #[arg(long, default_value = "standard")]
        variant: String,
        /// Solve only share K of N of each stage's classes (for a batch
        /// scheduler); the other shares' files are awaited in DIR.
        #[arg(long, value_name = "K/N")]
        classes: Option<String>,
        /// Worker threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// Start a run estimated to take more than ten minutes or more
        /// than 4 GiB of memory (without it, such a run is refused after
        /// its estimate is printed).
        #[arg(long)]
        yes: bool,
        /// Keep only the pair being solved and the classes it probes in
        /// memory (read from DIR for each pair), not the whole set.
        #[arg(long)]
        memory_bound: bool,
        /// What the distance files count: `dtz`, the plies to the next
        /// capture (what the engine needs under NoCaptureDraw, and small),
        /// or `dtm`, the plies to the end (the fastest win; the
        /// statistics of `tb stats` in that case are distances to the end).
        #[arg(long, default_value = "dtz", value_parser = parse_metric)]
        metric: Metric,
    },
    /// One line per class: positions, wins, draws, losses, longest win,
    /// longest loss (side to move's view).
    Stats {
        /// A directory of table files made by `tb generate`.
        #[arg(long)]
        dir: PathBuf,
        /// Only the classes of exactly this many pieces, read from their
        /// files one class at a time (memory: one class, so sets too large
        /// to hold whole can be counted). A file that stores its wins only
        /// prints `-` for the longest loss: finding it takes a ply of
        /// search per loss (`tb verify` prints it).
        #[arg(long)]
        pieces: Option<u32>,
    },
    /// The value of a position and of every legal move.
    Probe {
        /// A directory of table files made by `tb generate`.
        #[arg(long)]
        dir: PathBuf,
        /// The position text (as `position fen` takes it).
        #[arg(long)]
        fen: String,
        /// Rules: a preset and/or key=value overrides, as for `yote perft`.
        #[arg(long, default_value = "standard")]
        variant: String,
    },
    /// Recompute every stored value from its children (every block's
    /// checksum is checked on the way).
    Verify {
        /// A directory of table files made by `tb generate`.
        #[arg(long)]
        dir: PathBuf,
        /// Worker threads (default: every core).
        #[arg(long)]
        threads: Option<usize>,
        /// Check only the classes of exactly N pieces (their children are
        /// probed in the smaller classes, checked by another run).
        #[arg(long, value_name = "N")]
        pieces: Option<u32>,
        /// Check only share K of N of the classes (for a batch scheduler:
        /// the N shares together check every class once).
        #[arg(long, value_name = "K/N")]
        classes: Option<String>,
        /// Resume from FILE: classes listed there are skipped, and each
        /// class checked is appended to it (one line: class, positions).
        #[arg(long, value_name = "FILE")]
        journal: Option<PathBuf>,
    },
    /// Convert a directory of version-1 tables (`*.ytb`, uncompressed), or
    /// of format-2 tables that store every distance (`--memory-bound`),
    /// into the compact format (wins' distances only); classes already
    /// packed in TO are kept.
    Pack {
        #[arg(long)]
        from: PathBuf,
        #[arg(long)]
        to: PathBuf,
        #[arg(long)]
        threads: Option<usize>,
    },
}

#[derive(Args, Debug, Clone)]
pub struct SolveArgs {
    #[arg(long, default_value = "standard")]
    pub variant: String,
    /// Also write the tables here (resumable, as `tb generate`).
    #[arg(long)]
    pub dir: Option<PathBuf>,
    #[arg(long)]
    pub threads: Option<usize>,
}

/// A `--metric` that is neither `dtz` nor `dtm`.
#[derive(Debug)]
struct UnknownMetric(String);

impl std::fmt::Display for UnknownMetric {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        write!(f, "'{}': the metric is dtz or dtm", self.0)
    }
}

impl std::error::Error for UnknownMetric {}

fn parse_metric(text: &str) -> Result<Metric, UnknownMetric> {
    Metric::parse(text).ok_or_else(|| UnknownMetric(text.to_string()))
}

fn threads(wanted: Option<usize>) -> usize {
    wanted.unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()))
}

fn rules_of(spec: &str) -> Result<Rules> {
    Ok(Rules::new(Variant::from_spec(spec)?)?)
}

/// The bar on stderr: positions solved of the run's total, with an ETA.
/// indicatif draws it only on a terminal and keeps the rate estimate.
struct Bar(ProgressBar);

impl Bar {
    fn new() -> Bar {
        let bar = ProgressBar::new(0);
        bar.set_style(
            ProgressStyle::with_template(
                "{elapsed_precise} [{bar:30}] {percent:>3}% {human_pos}/{human_len} positions, ETA {eta} {msg}",
            )
            .expect("a valid template")
            .progress_chars("=> "),
        );
        Bar(bar)
    }
}

impl Progress for Bar {
    fn start(&self, total: u64) {
        self.0.set_length(total);
    }
    fn class(&self, classes: &[Class]) {
        let names: Vec<String> = classes.iter().map(|c| c.to_string()).collect();
        self.0.set_message(format!("class {}", names.join(" + ")));
    }
    fn advance(&self, positions: u64) {
        self.0.inc(positions);
    }
    fn note(&self, text: &str) {
        self.0.suspend(|| eprintln!("{text}"));
    }
}

pub fn run_tb(command: TbCommand) -> Result<()> {
    match command {
        TbCommand::Generate {
            pieces,
            dir,
            variant,
            classes,
            threads: t,
            yes,
            memory_bound,
            metric,
        } => {
            let rules = rules_of(&variant)?;
            let shard = match classes {
                Some(text) => Shard::parse(&text)?,
                None => Shard::ALL,
            };
            let estimate = RunEstimate::new(&rules, pieces, threads(t), shard)?;
            eprintln!("tb generate: {estimate}");
            if estimate.is_large() && !yes {
                bail!(
                    "this is a large run; add --yes to start it, or ask for fewer --pieces \
                     (classes already in {} are kept, so the estimate is an upper bound)",
                    dir.display()
                );
            }
            let request = Request {
                pieces,
                dir: Some(dir),
                shard,
                threads: threads(t),
                metric,
            };
            let bar = Bar::new();
            let report = match memory_bound {
                true => bound::generate_bounded(&rules, &request, &bar)?,
                false => generate::generate(&rules, &request, &bar)?.1,
            };
            bar.0.finish_and_clear();
            eprintln!(
                "tb generate: {} classes solved ({} positions), {} kept from disk, {:.1} s, peak memory {} MiB",
                report.solved.len(),
                report.positions_solved,
                report.kept.len(),
                report.elapsed.as_secs_f64(),
                peak_memory_mib().map_or("?".to_string(), |m| m.to_string())
            );
            Ok(())
        }
        TbCommand::Stats {
            dir,
            pieces: Some(n),
        } => {
            existing_dir(&dir)?;
            stats_of_files(&load_any(&dir, false)?, n)
        }
        TbCommand::Stats { dir, pieces: None } => {
            existing_dir(&dir)?;
            // In memory: losses stored as "derived" are filled in first.
            let tables = load_any(&dir, true)?;
            println!("# distances: {}", metric_text(tables.metric()));
            for table in tables.tables() {
                let codes = table
                    .codes()
                    .with_context(|| format!("{}", file::path(&dir, table.class()).display()))?;
                println!("class {}: {}", table.class(), ClassStats::of(&codes));
            }
            Ok(())
        }
        TbCommand::Pack {
            from,
            to,
            threads: t,
        } => pack(&from, &to, threads(t)),
        TbCommand::Probe { dir, fen, variant } => {
            let rules = rules_of(&variant)?;
            let pos = rules
                .parse_position(&fen)
                .with_context(|| format!("position '{fen}'"))?;
            existing_dir(&dir)?;
            let tables = generate::load_dir(&rules, &dir, pos_pieces(&pos))?;
            for line in probe_lines(&tables, &pos)? {
                println!("{line}");
            }
            Ok(())
        }
        TbCommand::Verify {
            dir,
            threads: t,
            pieces,
            classes,
            journal,
        } => {
            let shard = match classes {
                Some(text) => Shard::parse(&text)?,
                None => Shard::ALL,
            };
            existing_dir(&dir)?;
            let tables = load_any(&dir, true)?;
            let mut journal = VerifyJournal::open(journal.as_deref())?;
            run_verify(&tables, threads(t), pieces, shard, &mut journal)
        }
    }
}

/// `tb stats --pieces n`: each class of `n` pieces decoded from its files
/// in turn, its line on stdout, then the classes' sum.
fn stats_of_files(tables: &Tablebase, n: u32) -> Result<()> {
    let selected: Vec<&super::table::Table> = tables
        .tables()
        .into_iter()
        .filter(|t| t.class().pieces() == n)
        .collect();
    if selected.is_empty() {
        bail!("no classes of {n} pieces in these tables");
    }
    let bar = Bar::new();
    bar.start(selected.iter().map(|t| t.index.size()).sum());
    let (start, cpu_start) = (Instant::now(), bound::cpu_seconds());
    println!("# distances: {}", metric_text(tables.metric()));
    let mut sum = ClassStats::EMPTY;
    let mut derived = false;
    for table in selected {
        bar.class(&[table.class()]);
        let codes = table
            .codes()
            .with_context(|| format!("class {}", table.class()))?;
        let stats = ClassStats::of(&codes);
        sum.merge(&stats);
        derived |= table.losses_derived;
        bar.0.suspend(|| {
            println!(
                "class {}: {}",
                table.class(),
                stats_text(&stats, table.losses_derived)
            )
        });
        bar.advance(stats.positions);
    }
    bar.0.finish_and_clear();
    println!("{n} pieces: {}", stats_text(&sum, derived));
    let cpu = cpu_start.zip(bound::cpu_seconds()).map(|(a, b)| b - a);
    eprintln!(
        "tb stats: {:.1} s ({} CPU s), peak memory {} MiB",
        start.elapsed().as_secs_f64(),
        cpu.map_or("?".to_string(), |c| format!("{c:.1}")),
        peak_memory_mib().map_or("?".to_string(), |m| m.to_string())
    );
    Ok(())
}

/// A stats line; a class whose distance file stores the wins only read
/// every loss as `Loss(0)`, so its longest loss is unknown (`-`).
fn stats_text(stats: &ClassStats, losses_derived: bool) -> String {
    if !losses_derived {
        return stats.to_string();
    }
    let s = stats;
    let (p, w, d, l, lw) = (s.positions, s.wins, s.draws, s.losses, s.longest_win);
    format!("{p} {w} {d} {l} {lw} -")
}

/// `tb verify`: the selected classes checked one after another, with a
/// progress bar over their positions and a line per class on stderr.
fn run_verify(
    tables: &Tablebase,
    threads: usize,
    pieces: Option<u32>,
    shard: Shard,
    journal: &mut VerifyJournal,
) -> Result<()> {
    let selected: Vec<Class> = tables
        .tables()
        .iter()
        .map(|t| t.class())
        .filter(|c| pieces.is_none_or(|n| c.pieces() == n))
        .enumerate()
        .filter(|&(n, _)| shard.owns(n))
        .map(|(_, c)| c)
        .collect();
    let (todo, skipped): (Vec<Class>, Vec<Class>) =
        selected.iter().partition(|c| !journal.has(**c));
    let total: u64 = todo
        .iter()
        .filter_map(|&c| tables.table(c))
        .map(|t| t.index.size())
        .sum();
    eprintln!(
        "tb verify: {} classes, {total} positions ({} classes already in the journal)",
        todo.len(),
        skipped.len()
    );
    let bar = Bar::new();
    bar.start(total);
    let start = Instant::now();
    let cpu_start = bound::cpu_seconds();
    let mut failed = None;
    let result = verify_classes(
        tables,
        threads,
        |c| todo.contains(&c),
        &mut |class, stats| {
            // `tb stats`'s line, so a verified set needs no second pass.
            bar.note(&format!(
                "class {class}: {stats} (every value agrees with its children)"
            ));
            if let Err(e) = journal.record(class, stats.positions) {
                failed.get_or_insert(e);
            }
        },
        &|n| bar.advance(n),
    );
    bar.0.finish_and_clear();
    if let Some(e) = failed {
        return Err(e);
    }
    match result {
        Ok(n) => {
            let cpu = cpu_start.zip(bound::cpu_seconds()).map(|(a, b)| b - a);
            println!(
                "verified {n} positions in {} classes, {:.1} s ({} CPU s), peak memory {} MiB",
                todo.len(),
                start.elapsed().as_secs_f64(),
                cpu.map_or("?".to_string(), |c| format!("{c:.1}")),
                peak_memory_mib().map_or("?".to_string(), |m| m.to_string())
            );
            Ok(())
        }
        Err(m) => bail!("verification failed: {m}"),
    }
}

/// The classes a `tb verify` has checked, kept in a file so that an
/// interrupted run picks up after the last whole class.
struct VerifyJournal {
    file: Option<std::fs::File>,
    done: std::collections::HashSet<Class>,
}

impl VerifyJournal {
    fn open(path: Option<&Path>) -> Result<VerifyJournal> {
        let Some(path) = path else {
            return Ok(VerifyJournal {
                file: None,
                done: Default::default(),
            });
        };
        let text = match std::fs::read_to_string(path) {
            Ok(text) => text,
            Err(e) if e.kind() == std::io::ErrorKind::NotFound => String::new(),
            Err(e) => return Err(e).with_context(|| format!("journal {}", path.display())),
        };
        // A line cut short by a kill has no newline: it is not taken, and
        // it is cut off so that the next line starts a line of its own.
        let kept = text.rfind('\n').map_or(0, |end| end + 1);
        let mut done = std::collections::HashSet::new();
        for (n, line) in text[..kept].lines().enumerate() {
            let class = parse_journal_line(line)
                .with_context(|| format!("journal {} line {}: '{line}'", path.display(), n + 1))?;
            done.insert(class);
        }
        let file = std::fs::OpenOptions::new()
            .create(true)
            .append(true)
            .open(path)
            .with_context(|| format!("journal {}", path.display()))?;
        if kept < text.len() {
            file.set_len(kept as u64)
                .with_context(|| format!("journal {}", path.display()))?;
        }
        Ok(VerifyJournal {
            file: Some(file),
            done,
        })
    }

    fn has(&self, class: Class) -> bool {
        self.done.contains(&class)
    }

    fn record(&mut self, class: Class, positions: u64) -> Result<()> {
        use std::io::Write;
        if let Some(file) = &mut self.file {
            writeln!(file, "{} {positions}", class.file_stem()).context("writing the journal")?;
            file.sync_data().context("writing the journal")?;
        }
        Ok(())
    }
}

/// `2-2-0-0 1234`: a class and its positions.
fn parse_journal_line(line: &str) -> Result<Class> {
    let (stem, positions) = line
        .split_once(' ')
        .context("wants a class and a number of positions")?;
    positions
        .trim()
        .parse::<u64>()
        .context("positions is not a number")?;
    Class::from_file_stem(stem).context("class is not four numbers")
}

/// A table directory named on the command line must be there: a missing
/// one once read as an empty set ("no table for this position").
fn existing_dir(dir: &Path) -> Result<()> {
    match std::fs::metadata(dir) {
        Ok(meta) if meta.is_dir() => Ok(()),
        Ok(_) => bail!("{} is not a directory", dir.display()),
        Err(e) if e.kind() == std::io::ErrorKind::NotFound => {
            bail!("the directory {} does not exist", dir.display())
        }
        Err(e) => Err(e).with_context(|| dir.display().to_string()),
    }
}

/// Measured speed of the solver, positions per second of one core (the
/// 8-piece standard run of docs/tablebases.md: 2.0 × 10^9 positions in
/// 1 529 CPU seconds; the 7-piece set ran faster, 1.75 × 10^6).
const POSITIONS_PER_CORE_SECOND: u64 = 1_300_000;
/// Beyond either, `tb generate` wants `--yes`.
const LARGE_SECONDS: u64 = 600;
const LARGE_BYTES: u64 = 4 << 30;

/// What a `tb generate` run will solve and about what it will cost, said
/// before it starts.
struct RunEstimate {
    classes: usize,
    positions: u64,
    seconds: u64,
    threads: usize,
}

impl RunEstimate {
    /// Refuses a piece count the variant cannot reach. A shard of the
    /// classes (`--classes K/N`) is counted as its share of the whole.
    fn new(rules: &Rules, pieces: u32, threads: usize, shard: Shard) -> Result<RunEstimate> {
        let v = rules.variant();
        let most = 2 * u32::from(v.pieces);
        if pieces > most {
            bail!(
                "--pieces {pieces}: these rules have {most} pieces in all ({} a side), \
                 so no position holds more than {most}",
                v.pieces
            );
        }
        let classes = table_classes(v, pieces);
        let cells = rules.geometry().cell_count();
        let positions = classes
            .iter()
            .map(|c| c.size(cells))
            .fold(0u64, u64::saturating_add)
            / u64::from(shard.count.max(1));
        let per_second = POSITIONS_PER_CORE_SECOND.saturating_mul(threads.max(1) as u64);
        Ok(RunEstimate {
            classes: classes.len(),
            positions,
            seconds: positions / per_second,
            threads,
        })
    }

    /// One byte per position in memory (and about as much on disk).
    fn bytes(&self) -> u64 {
        self.positions
    }

    fn is_large(&self) -> bool {
        self.seconds > LARGE_SECONDS || self.bytes() > LARGE_BYTES
    }
}

impl std::fmt::Display for RunEstimate {
    fn fmt(&self, f: &mut std::fmt::Formatter<'_>) -> std::fmt::Result {
        let gib = self.bytes() as f64 / f64::from(1u32 << 30);
        let (amount, unit) = match self.seconds {
            s if s < 120 => (s as f64, "seconds"),
            s if s < 2 * 3600 => (s as f64 / 60.0, "minutes"),
            s if s < 2 * 86_400 => (s as f64 / 3600.0, "hours"),
            s => (s as f64 / 86_400.0, "days"),
        };
        write!(
            f,
            "{} classes, {} positions: about {amount:.0} {unit} on {} threads and {gib:.1} GiB \
             of memory and of disk (estimated from the solver's measured speed)",
            self.classes, self.positions, self.threads
        )
    }
}

fn pos_pieces(pos: &Position) -> u32 {
    crate::rules::Player::BOTH
        .iter()
        .map(|&p| pos.total(p))
        .sum()
}

/// The rules and the largest class of the table files in `dir` with this
/// extension (all must name the same rules), None when there are none.
fn identify_dir(dir: &Path, extension: &str) -> Result<Option<(Rules, u32)>> {
    let mut rules_seen: Option<String> = None;
    let mut max_pieces = 0;
    for entry in std::fs::read_dir(dir).with_context(|| format!("{}", dir.display()))? {
        let path = entry?.path();
        if path.extension().and_then(|e| e.to_str()) != Some(extension) {
            continue;
        }
        let (rules, class) = file::read_identity(&path)?;
        match &rules_seen {
            Some(seen) if *seen != rules => bail!(
                "{}: made for other rules ({rules}) than the other files here ({seen})",
                path.display()
            ),
            _ => rules_seen = Some(rules),
        }
        max_pieces = max_pieces.max(class.pieces());
    }
    match rules_seen {
        Some(spec) => Ok(Some((rules_of(&spec)?, max_pieces))),
        None => Ok(None),
    }
}

/// Every table in `dir`, for the rules its files name: probed in place, or
/// read whole into memory.
fn load_any(dir: &Path, in_memory: bool) -> Result<Tablebase> {
    let wdl = Kind::Wdl.extension();
    let Some((rules, max_pieces)) = identify_dir(dir, wdl)? else {
        if identify_dir(dir, file::LEGACY_EXTENSION)?.is_some() {
            bail!(
                "{}: tables of format version 1 (*.{}); convert them with `yote tb pack --from {} --to NEWDIR`",
                dir.display(),
                file::LEGACY_EXTENSION,
                dir.display()
            )
        }
        bail!("{}: no table files (*.{wdl})", dir.display())
    };
    Ok(match in_memory {
        true => generate::read_dir(&rules, dir, max_pieces)?,
        false => generate::load_dir(&rules, dir, max_pieces)?,
    })
}

/// `tb pack`: every version-1 class of `from` written in format 2 into
/// `to`, one class at a time (memory: one class), classes whose files are
/// already sound in `to` kept.
fn pack(from: &Path, to: &Path, threads: usize) -> Result<()> {
    let source = match identify_dir(from, file::LEGACY_EXTENSION)? {
        Some(found) => Some(found),
        None => identify_dir(from, Kind::Wdl.extension())?,
    };
    let Some((rules, max_pieces)) = source else {
        bail!(
            "{}: no table files to pack (*.{} of version 1, or *.{} of format 2)",
            from.display(),
            file::LEGACY_EXTENSION,
            Kind::Wdl.extension()
        )
    };
    std::fs::create_dir_all(to).with_context(|| format!("{}", to.display()))?;
    let spec = file::table_rules(rules.variant());
    let cells = rules.geometry().cell_count();
    let start = Instant::now();
    let (mut old_bytes, mut packed) = (0u64, 0usize);
    for class in table_classes(rules.variant(), max_pieces) {
        let Some((table, metric, bytes)) = pack_source(from, &spec, class, cells)? else {
            continue;
        };
        old_bytes += bytes;
        if file::find(to, &spec, class, cells, metric).is_ok_and(|t| t.losses_derived) {
            continue;
        }
        let class_start = Instant::now();
        let layout = file::Layout {
            metric,
            losses_derived: true,
        };
        file::write(to, &spec, &table, layout, threads)?;
        packed += 1;
        eprintln!(
            "class {class} packed in {:.1} s",
            class_start.elapsed().as_secs_f64()
        );
    }
    let size = |kind: Kind| -> u64 {
        table_classes(rules.variant(), max_pieces)
            .into_iter()
            .filter_map(|class| std::fs::metadata(format::path(to, class, kind)).ok())
            .map(|m| m.len())
            .sum()
    };
    let wdl = size(Kind::Wdl);
    let distance = size(Kind::Distance(Metric::Dtm)) + size(Kind::Distance(Metric::Dtz));
    println!(
        "packed {packed} classes in {:.1} s: {old_bytes} bytes before, {} now ({wdl} win/draw/loss, {distance} distance)",
        start.elapsed().as_secs_f64(),
        wdl + distance
    );
    Ok(())
}

/// A class of `tb pack`'s source directory, every value in memory, with
/// its metric and the bytes of its files: a version-1 file (distances to
/// the end), or format-2 files that store every distance (those of
/// `--memory-bound`, or of earlier versions). None when the class is not
/// there.
fn pack_source(
    from: &Path,
    spec: &str,
    class: Class,
    cells: u8,
) -> Result<Option<(super::table::Table, Metric, u64)>> {
    let legacy = file::legacy_path(from, class);
    if legacy.is_file() {
        let bytes = std::fs::metadata(&legacy)?.len();
        return Ok(Some((
            file::read_legacy(from, spec, class, cells)?,
            Metric::Dtm,
            bytes,
        )));
    }
    let Some(metric) = file::metric_in(from, class) else {
        return Ok(None);
    };
    let table = file::read(from, spec, class, cells, metric)?;
    if table.losses_derived {
        bail!(
            "{}: already packed (its distance file stores the wins only)",
            file::path(from, class).display()
        );
    }
    let bytes = Kind::both(metric)
        .iter()
        .filter_map(|&kind| std::fs::metadata(format::path(from, class, kind)).ok())
        .map(|m| m.len())
        .sum();
    Ok(Some((table, metric, bytes)))
}

/// What a set's distances count, for people.
fn metric_text(metric: Metric) -> &'static str {
    match metric {
        Metric::Dtm => "dtm (plies to the end of the game)",
        Metric::Dtz => "dtz (plies to the next capture)",
    }
}

/// `probe`'s lines: the position's value, then every legal move with the
/// value it leads to for the side that played it, best first.
pub fn probe_lines(tables: &Tablebase, pos: &Position) -> Result<Vec<String>> {
    let rules = tables.rules();
    let value = perfect::value_of(tables, pos)?;
    let mut lines = vec![format!("value {}", value_text(value))];
    let mut moves = perfect::move_values(tables, pos)?;
    moves.sort_by_key(|m| std::cmp::Reverse(m.1));
    lines.extend(
        moves
            .iter()
            .map(|(mv, v)| format!("move {} {}", rules.move_text(mv), value_text(*v))),
    );
    lines.push(format!("distances {}", metric_text(tables.metric())));
    Ok(lines)
}

/// `win 7`, `draw`, `loss 12`: a value in plies, for scripts.
pub fn value_text(value: Value) -> String {
    match value {
        Value::Win(d) => format!("win {d}"),
        Value::Draw => "draw".to_string(),
        Value::Loss(d) => format!("loss {d}"),
    }
}

/// `yote solve`: every class of the variant's whole game, then the value
/// of the start position, every first move that keeps it (`best`), the
/// perfect game when someone wins (`line`), and every first move's value.
pub fn run_solve(args: SolveArgs) -> Result<()> {
    let rules = rules_of(&args.variant)?;
    let v = rules.variant();
    let pieces = 2 * u32::from(v.pieces);
    let classes = table_classes(v, pieces);
    let positions: u64 = classes
        .iter()
        .map(|c| c.size(rules.geometry().cell_count()))
        .sum();
    eprintln!(
        "solve: {} classes, {positions} positions (every class of {pieces} pieces or fewer)",
        classes.len()
    );
    // The perfect game and its length need the distance to the end.
    let request = Request {
        pieces,
        dir: args.dir,
        shard: Shard::ALL,
        threads: threads(args.threads),
        metric: Metric::Dtm,
    };
    let bar = Bar::new();
    let (tables, report) = generate::generate(&rules, &request, &bar)?;
    bar.0.finish_and_clear();
    let verify_start = Instant::now();
    let checked = verify(&tables, request.threads)
        .map_err(|m| anyhow::anyhow!("verification failed: {m}"))?;
    println!(
        "variant {}",
        file::table_rules(v) + &format!(",pieces={}", v.pieces)
    );
    println!(
        "solved {} positions in {:.2} s, verified {checked} in {:.2} s, {} CPU s in all, peak memory {} MiB",
        positions,
        report.elapsed.as_secs_f64(),
        verify_start.elapsed().as_secs_f64(),
        bound::cpu_seconds().map_or("?".to_string(), |c| format!("{c:.1}")),
        peak_memory_mib().map_or("?".to_string(), |m| m.to_string())
    );
    let start = rules.start_position();
    let mut lines = probe_lines(&tables, &start)?;
    let best = perfect::optimal_moves(&tables, &start)?;
    lines.insert(1, format!("best {}", perfect::line_text(&tables, &best)));
    if let Some(game) = perfect::perfect_game(&tables, &start)? {
        lines.insert(2, format!("line {}", perfect::line_text(&tables, &game)));
    }
    for line in lines {
        println!("{line}");
    }
    Ok(())
}

//! `yote analyse`: records in, annotated records and a summary out.

use super::journal::{self, Journal};
use super::judge::Tally;
use super::{GameAnalysis, GameInput, Job, MoveReport, Settings};
use crate::client::records::{self, GameRecord, GameResult};
use crate::rules::Variant;
use crate::search::Limits;
use crate::search::tables::Tables;
use anyhow::{Context, Result, bail};
use clap::Args;
use indicatif::{ProgressBar, ProgressStyle};
use std::fmt::Write as _;
use std::path::{Path, PathBuf};
use std::time::Instant;

#[derive(Args, Debug)]
pub struct AnalyseArgs {
    /// A records file of the match runner (`yote match --pgn`), or a plain
    /// move list: one game per line, moves separated by spaces.
    pub records: PathBuf,
    /// Where the annotated games go; default: RECORDS with `-analysed.pgn`.
    #[arg(long, short)]
    pub output: Option<PathBuf>,
    /// Nodes per position (deterministic: the same output on every run).
    #[arg(long)]
    pub nodes: Option<u64>,
    /// Depth per position (deterministic).
    #[arg(long)]
    pub depth: Option<u32>,
    /// Milliseconds per position (not deterministic).
    #[arg(long)]
    pub movetime: Option<u64>,
    /// Rules for games without a `Variant` tag (a preset and/or overrides).
    #[arg(long, default_value = "standard")]
    pub variant: String,
    /// Positions searched at once (one thread each); default: every core.
    #[arg(long)]
    pub threads: Option<usize>,
    /// Hash table per thread, MiB.
    #[arg(long, default_value_t = 16)]
    pub hash: usize,
    /// Endgame table directories (`:`-separated, as the engine's
    /// TablebasePath): positions in the tables get their exact value.
    #[arg(long)]
    pub tablebases: Option<String>,
    /// No progress bar.
    #[arg(long)]
    pub quiet: bool,
}

impl AnalyseArgs {
    fn limits(&self) -> Result<Limits> {
        let given = [
            self.nodes.map(|_| "--nodes"),
            self.depth.map(|_| "--depth"),
            self.movetime.map(|_| "--movetime"),
        ];
        let given: Vec<&str> = given.into_iter().flatten().collect();
        match given.len() {
            0 => bail!("give a limit per position: --nodes, --depth or --movetime"),
            1 => {}
            _ => bail!(
                "give one limit per position, not {}: each ends the search on its own",
                given.join(" and ")
            ),
        }
        if self.nodes == Some(0) || self.depth == Some(0) || self.movetime == Some(0) {
            bail!("a limit of 0 searches nothing: give at least 1");
        }
        Ok(Limits {
            nodes: self.nodes,
            depth: self.depth,
            movetime: self.movetime,
            ..Limits::default()
        })
    }

    fn output_path(&self) -> PathBuf {
        self.output.clone().unwrap_or_else(|| {
            let stem = self
                .records
                .file_stem()
                .unwrap_or_default()
                .to_string_lossy();
            self.records.with_file_name(format!("{stem}-analysed.pgn"))
        })
    }
}

pub fn run(args: AnalyseArgs) -> Result<()> {
    let limits = args.limits()?;
    let variant = Variant::from_spec(&args.variant).context("--variant")?;
    let text = crate::textfile::read(&args.records)
        .with_context(|| format!("reading {}", args.records.display()))?;
    let games = read_games(&text, &variant)?;
    let workers = args
        .threads
        .unwrap_or_else(|| std::thread::available_parallelism().map_or(1, |n| n.get()));
    if workers == 0 {
        bail!("--threads must be at least 1");
    }
    let settings = Settings {
        limits,
        workers,
        hash_mb: args.hash.max(1),
        tables: load_tables(args.tablebases.as_deref(), &games)?,
    };
    let output = args.output_path();
    // What makes two runs' results the same: the journal is kept only for
    // the same limits and tables.
    let identity = format!("{:?} tables={:?}", settings.limits, args.tablebases);
    let reports = search_all(&games, &settings, &text, &identity, &output, args.quiet)?;
    let analyses: Vec<GameAnalysis> = games
        .iter()
        .enumerate()
        .map(|(g, input)| super::judge_game(input, &reports[g]))
        .collect();
    let annotated: String = games
        .iter()
        .zip(&analyses)
        .zip(&reports)
        .map(|((input, analysis), reports)| annotated_record(input, analysis, reports))
        .collect();
    std::fs::write(&output, annotated).with_context(|| format!("writing {}", output.display()))?;
    print!("{}", summary(&games, &analyses));
    println!("Annotated games: {}", output.display());
    Ok(())
}

/// The tables for the games' rules (one rule set per run: tables are made
/// for one); any error loading them stops the run rather than analysing
/// without the exact values asked for.
fn load_tables(paths: Option<&str>, games: &[GameInput]) -> Result<Tables> {
    let Some(paths) = paths else {
        return Ok(Tables::default());
    };
    let rules = &games[0].rules;
    let same = |g: &GameInput| {
        crate::tablebase::file::table_rules(g.rules.variant())
            == crate::tablebase::file::table_rules(rules.variant())
    };
    if !games.iter().all(same) {
        bail!("--tablebases: the games are of different rules; analyse one rule set per run");
    }
    // Every table found is used: the engine option's own ceiling.
    const ALL_PIECES: u32 = 32;
    let (tables, summary, errors) = Tables::load(paths, ALL_PIECES, rules);
    if let Some(error) = errors.first() {
        bail!("--tablebases: {error}");
    }
    eprintln!("{summary}");
    Ok(tables)
}

/// Records, or a plain move list when the text has no tags.
fn read_games(text: &str, variant: &Variant) -> Result<Vec<GameInput>> {
    let text = crate::textfile::without_bom(text);
    let has_tags = text.lines().any(|l| l.trim_start().starts_with('['));
    let records = if has_tags {
        GameRecord::parse_all(text).context("reading records")?
    } else {
        text.lines()
            .filter(|l| !l.trim().is_empty())
            .map(|line| GameRecord {
                moves: line
                    .split_whitespace()
                    .filter(|w| !records::is_move_number(w))
                    .map(str::to_string)
                    .collect(),
                ..GameRecord::default()
            })
            .collect()
    };
    if records.is_empty() {
        bail!("no games in the input");
    }
    records
        .into_iter()
        .enumerate()
        .map(|(i, r)| GameInput::from_record(r, variant, i + 1).map_err(Into::into))
        .collect()
}

/// Every move's report, from the journal where it has them, searching the
/// rest; `reports[game][ply]`.
fn search_all(
    games: &[GameInput],
    settings: &Settings,
    input: &str,
    identity: &str,
    output: &Path,
    quiet: bool,
) -> Result<Vec<Vec<MoveReport>>> {
    let journal_path = PathBuf::from(format!("{}.journal", output.display()));
    let (mut journal, mut done) =
        Journal::open(&journal_path, journal::fingerprint(input, identity))
            .with_context(|| format!("journal {}", journal_path.display()))?;
    let all = super::jobs(games);
    let todo: Vec<Job> = all
        .iter()
        .copied()
        .filter(|j| !done.contains_key(j))
        .collect();
    if !done.is_empty() {
        eprintln!(
            "resuming: {} of {} positions already in {}",
            all.len() - todo.len(),
            all.len(),
            journal_path.display()
        );
    }
    let bar = progress_bar(todo.len(), quiet);
    let started = Instant::now();
    let mut failure = None;
    super::search_moves(games, &todo, settings, |job, report| {
        if failure.is_none()
            && let Err(e) = journal.record(job, &report)
        {
            failure = Some(e);
        }
        done.insert(job, report);
        bar.inc(1);
    });
    bar.finish_and_clear();
    if let Some(e) = failure {
        return Err(e).context("writing the journal");
    }
    log::info!(
        "{} positions searched in {:.1} s",
        todo.len(),
        started.elapsed().as_secs_f64()
    );
    let reports = games
        .iter()
        .enumerate()
        .map(|(game, input)| {
            (0..input.moves.len())
                .map(|ply| done.remove(&Job { game, ply }).expect("every move judged"))
                .collect()
        })
        .collect();
    journal.remove().context("removing the journal")?;
    Ok(reports)
}

fn progress_bar(len: usize, quiet: bool) -> ProgressBar {
    if quiet {
        return ProgressBar::hidden();
    }
    let bar = ProgressBar::new(len as u64);
    bar.set_style(
        ProgressStyle::with_template(
            "{elapsed_precise} [{bar:40}] {pos}/{len} positions, ETA {eta}",
        )
        .expect("a valid template")
        .progress_chars("=> "),
    );
    bar
}

fn annotated_record(input: &GameInput, analysis: &GameAnalysis, reports: &[MoveReport]) -> String {
    let mut record = input.record.clone();
    record.comments = analysis
        .judgements
        .iter()
        .zip(reports)
        .map(|(j, report)| super::move_comment(j, report))
        .collect();
    record.set_tag("Annotator", format!("yote {}", env!("CARGO_PKG_VERSION")));
    record.write()
}

const COLOURS: [&str; 2] = ["White", "Black"];

fn player_name(record: &GameRecord, side: usize) -> String {
    let tag = COLOURS[side];
    record.tag(tag).unwrap_or(tag).to_string()
}

/// `1 mistake`, `2 mistakes`.
fn count(n: impl Into<u64>, singular: &str, plural: &str) -> String {
    match n.into() {
        1 => format!("1 {singular}"),
        n => format!("{n} {plural}"),
    }
}

fn tally_text(t: &Tally) -> String {
    format!(
        "{}, average loss {:.1} cp, {}, {}, {}",
        count(t.moves, "move", "moves"),
        t.average_cp_loss(),
        count(t.inaccuracies, "inaccuracy", "inaccuracies"),
        count(t.mistakes, "mistake", "mistakes"),
        count(t.blunders, "blunder", "blunders")
    )
}

/// `search (White)`, or `White` alone for a game without player names.
fn player_with_colour(name: &str, side: usize) -> String {
    if name == COLOURS[side] {
        name.to_string()
    } else {
        format!("{name} ({})", COLOURS[side])
    }
}

/// Per game: each player's tally and the decisive error; then per player
/// over all games.
pub fn summary(games: &[GameInput], analyses: &[GameAnalysis]) -> String {
    let mut out = String::new();
    let mut players: Vec<(String, usize, Tally)> = Vec::new();
    for (index, (input, analysis)) in games.iter().zip(analyses).enumerate() {
        let record = &input.record;
        let names = [player_name(record, 0), player_name(record, 1)];
        let result = match record.result {
            GameResult::Unfinished => "*",
            other => other.as_str(),
        };
        let _ = writeln!(
            out,
            "Game {}: {} - {}, {result}, {}",
            index + 1,
            names[0],
            names[1],
            count(input.moves.len() as u64, "ply", "plies")
        );
        for (side, (name, tally)) in names.iter().zip(&analysis.tallies).enumerate() {
            let _ = writeln!(
                out,
                "  {}: {}",
                player_with_colour(name, side),
                tally_text(tally)
            );
            match players.iter_mut().find(|(n, _, _)| n == name) {
                Some((_, games, total)) => {
                    *games += 1;
                    total.merge(tally);
                }
                None => players.push((name.clone(), 1, *tally)),
            }
        }
        if let Some(ply) = analysis.decisive {
            let j = &analysis.judgements[ply];
            let _ = writeln!(
                out,
                "  Decisive error: ply {} by {}: {} ({}, {} after it, {} was possible)",
                ply + 1,
                names[analysis.movers[ply]],
                input.record.moves[ply],
                j.mark.name(),
                j.played,
                j.best
            );
        }
    }
    let _ = writeln!(out, "Players:");
    for (name, games, tally) in &players {
        let _ = writeln!(
            out,
            "  {name}: {}, {}",
            count(*games as u64, "game", "games"),
            tally_text(tally)
        );
    }
    out
}

//! The match runner: engine-vs-engine tournaments refereed by the rules.
//!
//! Engines are external processes spoken to over UGI/UCI
//! (`engine_process`); each game is refereed move by move with the rules
//! library (`game`); `schedule` and `openings` decide who plays what;
//! `runner` plays the schedule on N threads; `tally` and `stats` turn results
//! into Elo, LOS and SPRT; `coverage` finds the games a sharded match is
//! missing. The engine processes and the records are `client`'s.

pub mod cli;
pub mod coverage;
pub mod game;
pub mod openings;
pub mod progress;
pub mod resume;
pub mod runner;
pub mod schedule;
pub mod standings;
pub mod stats;
pub mod tally;

pub use cli::{MatchArgs, MatchConfig, parse_args};
pub use runner::{MatchReport, PlayedGame, run_match};

use crate::client::interrupt;
use crate::client::records::{self, GameResult};
use anyhow::{Context, Result, bail, ensure};
use coverage::{Coverage, MissingShare};
use std::collections::{HashMap, HashSet};
use std::io::{BufRead, BufReader};
use tally::PairTally;

/// `yote match`: plays the match (or rescores records files) and prints the
/// results on stdout. After SIGINT or SIGTERM it prints the results so far
/// and exits with 128 + the signal's number.
pub fn run(args: MatchArgs) -> Result<()> {
    if !args.rescore.is_empty() {
        let mut files: Vec<(String, Box<dyn BufRead>)> = Vec::new();
        for path in &args.rescore {
            let file =
                std::fs::File::open(path).with_context(|| format!("reading {}", path.display()))?;
            files.push((path.display().to_string(), Box::new(BufReader::new(file))));
        }
        let sprt = args.sprt.as_deref().map(cli::sprt_spec).transpose()?;
        let (tallies, missing) = merge(files)?;
        for tally in &tallies {
            print!("{}", tally.report(sprt.as_ref()));
        }
        for share in &missing {
            println!("incomplete: {share}");
        }
        if let Some(anchor) = &args.anchor {
            ensure!(
                tallies.iter().any(|t| &t.a == anchor || &t.b == anchor),
                "--anchor {anchor}: no engine of that name played in these records"
            );
        }
        print!("{}", standings_text(&tallies, args.anchor.as_deref()));
        // After the statistics, which stand for the games that are there:
        // a failed task of a batch array must not pass for a whole match.
        ensure!(
            missing.is_empty(),
            "the merge is incomplete: {}",
            missing
                .iter()
                .map(|m| m.to_string())
                .collect::<Vec<_>>()
                .join("; ")
        );
        return Ok(());
    }
    let config = MatchConfig::from_args(&args)?;
    let report = run_match(&config, &mut |_| {})?;
    print!("{}", summary(&config, &report));
    if let Some(code) = interrupt::exit_code() {
        use std::io::Write;
        let _ = std::io::stdout().flush();
        std::process::exit(code);
    }
    Ok(())
}

/// Standings and crosstable when more than two engines played.
fn standings_text(tallies: &[PairTally], anchor: Option<&str>) -> String {
    let mut names: Vec<String> = Vec::new();
    for t in tallies {
        for name in [&t.a, &t.b] {
            if !names.contains(name) {
                names.push(name.clone());
            }
        }
    }
    if names.len() > 2 {
        format!("\n{}", standings::report(&names, tallies, anchor))
    } else {
        String::new()
    }
}

/// The end-of-run text: each pairing's results, standings, restarts, speed.
pub fn summary(config: &MatchConfig, report: &MatchReport) -> String {
    let mut out = String::new();
    for tally in &report.tallies {
        out += &tally.report(config.sprt.as_ref());
    }
    out += &standings_text(&report.tallies, config.anchor.as_deref());
    for (name, n) in report.restarts.iter().filter(|(_, n)| *n > 0) {
        out += &format!("{name}: restarted {n} time(s) after misbehaving\n");
    }
    let seconds = report.elapsed.as_secs_f64();
    let done = report.played + report.resumed;
    out += &format!(
        "{done} of {} games ({} this time, {} resumed) in {seconds:.1} s ({:.1} games/s), concurrency {}\n",
        report.scheduled,
        report.played,
        report.resumed,
        report.played as f64 / seconds.max(1e-9),
        config.concurrency
    );
    if let Some(shard) = config.shard {
        out += &format!(
            "shard {}/{} of the match; merge the shards' records with --rescore\n",
            shard.index + 1,
            shard.count
        );
    }
    if let Some(result) = report.sprt.filter(|r| r.decision.is_some()) {
        out += &format!("stopped by SPRT: {}\n", result.summary());
    }
    if report.interrupted {
        out += &format!(
            "interrupted: {} games left; run again with the same flags and --resume to finish\n",
            report.scheduled.saturating_sub(done)
        );
    }
    out += &format!("run: {}\n", report.run.tag());
    out
}

/// Statistics of one records file; see [`rescore_inputs`].
pub fn rescore(text: &str) -> Result<Vec<PairTally>> {
    rescore_files(&[text.to_string()])
}

/// [`rescore_inputs`] of texts.
pub fn rescore_files(texts: &[String]) -> Result<Vec<PairTally>> {
    rescore_inputs(
        texts
            .iter()
            .enumerate()
            .map(|(i, t)| {
                (
                    format!("records {}", i + 1),
                    Box::new(t.as_bytes()) as Box<dyn BufRead + '_>,
                )
            })
            .collect(),
    )
}

/// What rescoring keeps of a game: not its moves, so that a file of any
/// size is rescored in little memory.
struct Scored {
    run: usize,
    number: u64,
    white: String,
    black: String,
    result: GameResult,
    pair: String,
    termination: String,
}

/// Statistics of records files (shards of one match, or several runs
/// appended to one file), each read a line at a time: one tally per pair of
/// engine names, from the side of the engine that is White in the pairing's
/// first game. Games sharing a `Pair` tag within one run (`Run` tag) are the
/// two colours of one opening; games of different runs never pair. Records
/// without a `Run` tag (older files) count as one run per file, a new one
/// starting whenever a `Game` number repeats. A game number written twice
/// in one run is counted once (the first record), as `--resume` counts it;
/// a damaged `Run` tag is an error, since its game could not be told apart
/// from another run's. Games are taken in run order, then `Game` tag order,
/// not file order (concurrent games finish out of order), so a rescore
/// reports the same way round as the live run.
pub fn rescore_inputs<'a>(inputs: Vec<(String, Box<dyn BufRead + 'a>)>) -> Result<Vec<PairTally>> {
    merge(inputs).map(|(tallies, _)| tallies)
}

/// [`rescore_inputs`], and the shares of sharded matches whose games are
/// missing from the records (see [`coverage`]).
pub fn merge<'a>(
    inputs: Vec<(String, Box<dyn BufRead + 'a>)>,
) -> Result<(Vec<PairTally>, Vec<MissingShare>)> {
    let mut coverage = Coverage::default();
    let mut games: Vec<Scored> = Vec::new();
    let mut run_order: HashMap<String, usize> = HashMap::new();
    for (file, (name, input)) in inputs.into_iter().enumerate() {
        let mut untagged_run = 0;
        let mut seen: HashSet<u64> = HashSet::new();
        let mut reader = records::RecordReader::default();
        let mut index = 0;
        for line in input.lines() {
            let line = line.with_context(|| format!("reading {name}"))?;
            let Some(game) = reader.line(&line).with_context(|| name.clone())? else {
                continue;
            };
            index += 1;
            let number = game
                .tag("Game")
                .and_then(|n| n.parse::<u64>().ok())
                .unwrap_or(index);
            let run = match game.tag("Run") {
                Some(run) => {
                    let tag = resume::parse_run_tag(run)
                        .with_context(|| format!("{name}: {}", resume::game_label(&game)))?;
                    let scheduled = game.tag("Scheduled").and_then(|n| n.parse().ok());
                    if !matches!(game.result, GameResult::Unfinished) {
                        coverage.add(&tag, number, scheduled);
                    }
                    run.to_string()
                }
                None => {
                    if !seen.insert(number) {
                        untagged_run += 1;
                        seen.clear();
                        seen.insert(number);
                    }
                    format!("file {} run {untagged_run}", file + 1)
                }
            };
            let next = run_order.len();
            let run = *run_order.entry(run).or_insert(next);
            let (Some(white), Some(black)) = (game.tag("White"), game.tag("Black")) else {
                bail!("{name}: game {index} has no White or Black tag");
            };
            games.push(Scored {
                run,
                number,
                white: white.to_string(),
                black: black.to_string(),
                result: game.result,
                pair: game
                    .tag("Pair")
                    .map_or_else(|| format!("game {number}"), str::to_string),
                termination: game.tag("Termination").unwrap_or("unknown").to_string(),
            });
        }
        reader.finish().with_context(|| name.clone())?;
    }
    games.sort_by_key(|g| (g.run, g.number));
    let before = games.len();
    games.dedup_by_key(|g| (g.run, g.number));
    if games.len() < before {
        log::warn!(
            "{} records repeat a game number of their run; each game is counted once",
            before - games.len()
        );
    }
    let mut tallies: Vec<PairTally> = Vec::new();
    for game in &games {
        let (white, black) = (game.white.as_str(), game.black.as_str());
        let index = match tallies
            .iter()
            .position(|t| (t.a == white && t.b == black) || (t.a == black && t.b == white))
        {
            Some(index) => index,
            None => {
                tallies.push(PairTally::new(white, black));
                tallies.len() - 1
            }
        };
        let tally = &mut tallies[index];
        let white_outcome = match game.result {
            GameResult::WhiteWins => stats::Outcome::Win,
            GameResult::BlackWins => stats::Outcome::Loss,
            GameResult::Draw => stats::Outcome::Draw,
            GameResult::Unfinished => continue,
        };
        let outcome = if tally.a == white {
            white_outcome
        } else {
            flip(white_outcome)
        };
        let key = format!("{} / {}", game.run, game.pair);
        tally.add(&key, outcome, &game.termination);
    }
    Ok((tallies, coverage.missing()))
}

fn flip(outcome: stats::Outcome) -> stats::Outcome {
    match outcome {
        stats::Outcome::Win => stats::Outcome::Loss,
        stats::Outcome::Draw => stats::Outcome::Draw,
        stats::Outcome::Loss => stats::Outcome::Win,
    }
}

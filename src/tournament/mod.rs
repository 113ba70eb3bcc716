//! The match runner: engine-vs-engine tournaments refereed by the rules.
//!
//! Engines are external processes spoken to over UGI/UCI
//! (`engine_process`); each game is refereed move by move with the rules
//! library (`game`); `schedule` and `openings` decide who plays what;
//! `runner` plays the schedule on N threads, tallying results as it goes;
//! `resume` finds an interrupted run's games. The engine processes and the
//! records are `client`'s; what results mean (Elo, SPRT, standings,
//! rescoring records) is `results`'.

pub mod cli;
pub mod game;
pub mod openings;
pub mod progress;
pub mod resume;
pub mod runner;
pub mod schedule;

pub use cli::{MatchArgs, MatchConfig, parse_args};
pub use runner::{MatchReport, PlayedGame, run_match};

use crate::client::interrupt;
use crate::results::merge;
use crate::results::standings;
use crate::results::tally::PairTally;
use anyhow::{Context, Result, ensure};
use std::io::{BufRead, BufReader};

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
    let names = standings::names(tallies);
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

//! The match runner: engine-vs-engine tournaments refereed by the rules.
//!
//! Engines are external processes spoken to over UGI/UCI
//! (`engine_process`); each game is refereed move by move with the rules
//! library (`game`); `schedule` and `openings` decide who plays what;
//! `runner` plays the schedule on N threads; `tally` and `stats` turn results
//! into Elo, LOS and SPRT; `records` writes and reads the game records.

pub mod cli;
pub mod engine_process;
pub mod game;
pub mod openings;
pub mod progress;
pub mod records;
pub mod runner;
pub mod schedule;
pub mod stats;
pub mod tally;

pub use cli::{MatchArgs, MatchConfig, parse_args};
pub use runner::{MatchReport, run_match};

use anyhow::{Context, Result, bail};
use records::{GameRecord, GameResult};
use tally::PairTally;

/// `yote match`: plays the match (or rescores a records file) and prints the
/// results on stdout.
pub fn run(args: MatchArgs) -> Result<()> {
    if let Some(path) = &args.rescore {
        let text =
            std::fs::read_to_string(path).with_context(|| format!("reading {}", path.display()))?;
        let sprt = args.sprt.as_deref().map(cli::sprt_spec).transpose()?;
        for tally in rescore(&text)? {
            print!("{}", tally.report(sprt.as_ref()));
        }
        return Ok(());
    }
    let config = MatchConfig::from_args(&args)?;
    let report = run_match(&config)?;
    print!("{}", summary(&config, &report));
    Ok(())
}

/// The end-of-run text: each pairing's results, restarts, speed.
pub fn summary(config: &MatchConfig, report: &MatchReport) -> String {
    let mut out = String::new();
    for tally in &report.tallies {
        out += &tally.report(config.sprt.as_ref());
    }
    for (name, n) in report.restarts.iter().filter(|(_, n)| *n > 0) {
        out += &format!("{name}: restarted {n} time(s) after misbehaving\n");
    }
    let played = report.games.len();
    let seconds = report.elapsed.as_secs_f64();
    out += &format!(
        "{played} of {} games in {seconds:.1} s ({:.1} games/s), concurrency {}\n",
        report.scheduled,
        played as f64 / seconds.max(1e-9),
        config.concurrency
    );
    if let Some(result) = report.sprt.filter(|r| r.decision.is_some()) {
        out += &format!("stopped by SPRT: {}\n", result.summary());
    }
    out
}

/// Statistics of a records file: one tally per pair of engine names, from
/// the side of the engine that is White in the pairing's first game. Games
/// are taken in `Game` tag order, not file order (concurrent games finish
/// out of order), so a rescore reports the same way round as the live run.
/// Games sharing a `Pair` tag are the two colours of one opening.
pub fn rescore(text: &str) -> Result<Vec<PairTally>> {
    let mut games = GameRecord::parse_all(text)?;
    games.sort_by_key(|g| {
        g.tag("Game")
            .and_then(|n| n.parse::<u64>().ok())
            .unwrap_or(u64::MAX)
    });
    let mut tallies: Vec<PairTally> = Vec::new();
    for (i, game) in games.iter().enumerate() {
        let (Some(white), Some(black)) = (game.tag("White"), game.tag("Black")) else {
            bail!("game {} has no White or Black tag", i + 1);
        };
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
        let key = game
            .tag("Pair")
            .map_or_else(|| format!("game {i}"), str::to_string);
        tally.add(&key, outcome, game.tag("Termination").unwrap_or("unknown"));
    }
    Ok(tallies)
}

fn flip(outcome: stats::Outcome) -> stats::Outcome {
    match outcome {
        stats::Outcome::Win => stats::Outcome::Loss,
        stats::Outcome::Draw => stats::Outcome::Draw,
        stats::Outcome::Loss => stats::Outcome::Win,
    }
}

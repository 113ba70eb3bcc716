//! Rescoring records files: the games of one or more files (shards of one
//! match, or several runs appended to one file) turned back into tallies,
//! each game counted once, and the shares a sharded match is missing.

use super::coverage::{Coverage, MissingShare};
use super::run_tag::parse_run_tag;
use super::stats::Outcome;
use super::tally::PairTally;
use crate::client::records::{self, GameResult};
use anyhow::{Context, Result, bail};
use std::collections::{HashMap, HashSet};
use std::io::BufRead;

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
/// missing from the records (see [`super::coverage`]).
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
                    let tag =
                        parse_run_tag(run).with_context(|| format!("{name}: {}", game.label()))?;
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
        let Some(white_outcome) = Outcome::of_white(game.result) else {
            continue;
        };
        let outcome = if tally.a == white {
            white_outcome
        } else {
            white_outcome.flipped()
        };
        let key = format!("{} / {}", game.run, game.pair);
        tally.add(&key, outcome, &game.termination);
    }
    Ok((tallies, coverage.missing()))
}

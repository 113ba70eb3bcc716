//! Which games of a sharded match a merge holds: the shares of one match
//! (same seed and settings, `shard=K/N` in their `Run` tags) are grouped,
//! and a share whose records are missing or short is named, so that a
//! failed task of a batch array is never silently left out of the merged
//! statistics. A record's `Scheduled` tag (games in the whole match) tells
//! how many games each share owes; records written before it only show
//! which shares are there at all.

use super::run_tag::RunTag;
use std::collections::{BTreeMap, BTreeSet};
use std::fmt;

/// The games of one sharded match seen in the records.
#[derive(Default)]
struct MatchGames {
    shards: usize,
    scheduled: Option<u64>,
    /// Game numbers per share (K - 1).
    games: BTreeMap<usize, BTreeSet<u64>>,
}

/// A share of a match whose games are not all in the records.
#[derive(Clone, Debug, PartialEq, Eq)]
pub struct MissingShare {
    /// `seed=… config=…`: the match.
    pub settings: String,
    /// K of `K/N`, from 1.
    pub index: usize,
    pub count: usize,
    pub found: u64,
    /// None when the records do not say (written before `Scheduled`).
    pub expected: Option<u64>,
}

impl fmt::Display for MissingShare {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let share = format!("shard {}/{} of {}", self.index, self.count, self.settings);
        match (self.found, self.expected) {
            (0, _) => write!(f, "{share}: no records"),
            (found, Some(expected)) => write!(f, "{share}: {found} of its {expected} games"),
            (found, None) => write!(f, "{share}: {found} games, fewer than scheduled"),
        }
    }
}

/// Collects the games of sharded runs as a merge reads them.
#[derive(Default)]
pub struct Coverage {
    matches: BTreeMap<String, MatchGames>,
}

impl Coverage {
    /// Notes game `number` of the run tagged `run` (checked already),
    /// whose record says the match has `scheduled` games. Unsharded runs
    /// are not a merge's concern.
    pub fn add(&mut self, run: &RunTag<'_>, number: u64, scheduled: Option<u64>) {
        let Some((settings, shard)) = run.settings.rsplit_once(" shard=") else {
            return;
        };
        let Some((k, n)) = shard.split_once('/') else {
            return;
        };
        let (Ok(k), Ok(n)) = (k.parse::<usize>(), n.parse::<usize>()) else {
            return;
        };
        if k == 0 || k > n {
            return;
        }
        let games = self.matches.entry(settings.to_string()).or_default();
        games.shards = n;
        games.scheduled = games.scheduled.or(scheduled);
        games.games.entry(k - 1).or_default().insert(number);
    }

    /// Every share of every match seen that has fewer games than it owes:
    /// none at all, or (where the schedule's size is known) short.
    pub fn missing(&self) -> Vec<MissingShare> {
        let mut missing = Vec::new();
        for (settings, games) in &self.matches {
            for index in 0..games.shards {
                let found = games.games.get(&index).map_or(0, |g| g.len() as u64);
                let expected = games
                    .scheduled
                    .map(|total| owed(total, index, games.shards));
                if found == 0 || expected.is_some_and(|e| found < e) {
                    missing.push(MissingShare {
                        settings: settings.clone(),
                        index: index + 1,
                        count: games.shards,
                        found,
                        expected,
                    });
                }
            }
        }
        missing
    }
}

/// Games share `index` (from 0) of `count` owes in a schedule of `total`:
/// game pairs (numbers 2p+1, 2p+2) go to share p mod count, as
/// `schedule::Shard::holds` deals them.
fn owed(total: u64, index: usize, count: usize) -> u64 {
    (0..total)
        .filter(|g| (g / 2) as usize % count == index)
        .count() as u64
}

#[cfg(test)]
mod tests {
    use super::*;

    fn tag(settings: &str) -> RunTag<'_> {
        RunTag {
            started: "2026-01-01T00:00:00.000Z",
            settings,
        }
    }

    #[test]
    fn shares_owe_whole_pairs_dealt_in_turn() {
        // 10 games = 5 pairs over 4 shares: 4, 2, 2, 2.
        let owes: Vec<u64> = (0..4).map(|k| owed(10, k, 4)).collect();
        assert_eq!(owes, [4, 2, 2, 2]);
    }

    #[test]
    fn a_short_or_absent_share_is_named() {
        let mut coverage = Coverage::default();
        for g in [1, 2, 5, 6] {
            coverage.add(&tag("seed=3 config=ab shard=1/2"), g, Some(8));
        }
        coverage.add(&tag("seed=3 config=ab shard=2/2"), 3, Some(8));
        coverage.add(&tag("seed=9 config=cd shard=2/3"), 3, None);
        coverage.add(&tag("seed=9 config=ef"), 1, Some(2));
        let text: Vec<String> = coverage.missing().iter().map(|m| m.to_string()).collect();
        assert_eq!(
            text,
            [
                "shard 2/2 of seed=3 config=ab: 1 of its 4 games",
                "shard 1/3 of seed=9 config=cd: no records",
                "shard 3/3 of seed=9 config=cd: no records",
            ]
        );
    }

    #[test]
    fn complete_shares_are_not_reported() {
        let mut coverage = Coverage::default();
        for g in 1..=6 {
            let k = ((g - 1) / 2) % 2 + 1;
            coverage.add(&tag(&format!("seed=1 config=ab shard={k}/2")), g, Some(6));
        }
        assert!(coverage.missing().is_empty());
    }
}

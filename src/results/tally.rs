//! Results of one pairing as they come in: W/D/L, game pairs for the
//! pentanomial model, and how games ended. Shared by live runs and rescoring.

use crate::results::stats::{Outcome, Pentanomial, Sprt, SprtResult, Trinomial};
use std::collections::{BTreeMap, HashMap};

#[derive(Clone, Debug, Default)]
pub struct PairTally {
    /// Names of the two engines; every count is from `a`'s side.
    pub a: String,
    pub b: String,
    pub games: Trinomial,
    pub pairs: Pentanomial,
    /// First games of pairs whose second game is not in yet, by pair key.
    pending: HashMap<String, Outcome>,
    /// How many games ended each way, by termination code.
    pub terminations: BTreeMap<String, u64>,
}

impl PairTally {
    pub fn new(a: &str, b: &str) -> PairTally {
        PairTally {
            a: a.to_string(),
            b: b.to_string(),
            ..PairTally::default()
        }
    }

    /// Adds a game; games with the same `pair_key` are the two colours of
    /// one opening and form a pentanomial sample once both are in.
    pub fn add(&mut self, pair_key: &str, outcome: Outcome, termination: &str) {
        self.games.add(outcome);
        *self
            .terminations
            .entry(termination.to_string())
            .or_default() += 1;
        match self.pending.remove(pair_key) {
            Some(first) => self.pairs.add_pair(first, outcome),
            None => {
                self.pending.insert(pair_key.to_string(), outcome);
            }
        }
    }

    /// A's points / games.
    pub fn score(&self) -> f64 {
        let n = self.games.games();
        if n == 0 {
            return 0.5;
        }
        (self.games.wins as f64 + 0.5 * self.games.draws as f64) / n as f64
    }

    /// The pentanomial SPRT on the pairs complete so far.
    pub fn sprt(&self, test: &Sprt) -> SprtResult {
        test.pentanomial(&self.pairs)
    }

    /// The end-of-run report for this pairing.
    pub fn report(&self, sprt: Option<&Sprt>) -> String {
        let g = &self.games;
        let mut out = format!(
            "{} vs {}: {} games, +{} ={} -{} ({:.1}%)\n  pentanomial: {}\n  trinomial:   {}\n",
            self.a,
            self.b,
            g.games(),
            g.wins,
            g.draws,
            g.losses,
            100.0 * self.score(),
            self.pairs.summary(),
            g.summary()
        );
        if let Some(test) = sprt {
            out += &format!("  SPRT: {}\n", self.sprt(test).summary());
        }
        let ends: Vec<String> = self
            .terminations
            .iter()
            .map(|(k, v)| format!("{k} {v}"))
            .collect();
        out += &format!("  endings: {}\n", ends.join(", "));
        out
    }
}

#[cfg(test)]
mod tests {
    use super::*;

    #[test]
    fn pairs_form_when_both_colours_are_in() {
        let mut t = PairTally::new("a", "b");
        t.add("1", Outcome::Win, "no legal move");
        t.add("2", Outcome::Draw, "max plies");
        assert_eq!(t.pairs.pairs(), 0);
        t.add("1", Outcome::Loss, "crash");
        assert_eq!(t.pairs.0, [0, 0, 1, 0, 0]);
        assert_eq!(t.games.games(), 3);
        assert_eq!(t.terminations["crash"], 1);
        assert!((t.score() - 0.5).abs() < 1e-12);
        assert!(t.report(None).contains("a vs b: 3 games, +1 =1 -1 (50.0%)"));
    }
}

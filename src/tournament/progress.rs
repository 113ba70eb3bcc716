//! The live progress line on stderr. On a terminal it is rewritten in place
//! after every game; into a file or pipe it is printed every few games so a
//! log stays readable.

use super::stats::SprtResult;
use super::tally::PairTally;
use std::io::{IsTerminal, Write};

pub struct Progress {
    total: usize,
    enabled: bool,
    terminal: bool,
    every: usize,
}

impl Progress {
    pub fn new(total: usize, enabled: bool) -> Progress {
        Progress {
            total,
            enabled,
            terminal: std::io::stderr().is_terminal(),
            every: (total / 20).max(1),
        }
    }

    /// Shows games done and the first pairing's score and Elo (the pairing a
    /// two-engine match or a gauntlet is about), and the LLR of a running SPRT.
    pub fn update(&self, done: usize, main: &PairTally, sprt: Option<&SprtResult>) {
        if !self.enabled
            || (!self.terminal && !done.is_multiple_of(self.every) && done != self.total)
        {
            return;
        }
        let elo = match main.pairs.elo().or_else(|| main.games.elo()) {
            Some(e) => format!("Elo {:+.1} ± {:.1}", e.elo, e.error()),
            None => "Elo n/a".to_string(),
        };
        let g = &main.games;
        let llr = sprt.map_or(String::new(), |r| {
            format!(" LLR {:.2} ({:.2}, {:.2})", r.llr, r.lower, r.upper)
        });
        let line = format!(
            "[{done}/{}] {} vs {}: +{} ={} -{} ({:.1}%) {elo}{llr}",
            self.total,
            main.a,
            main.b,
            g.wins,
            g.draws,
            g.losses,
            100.0 * main.score()
        );
        let mut err = std::io::stderr().lock();
        let _ = if self.terminal {
            write!(err, "\r{line}\x1b[K")
        } else {
            writeln!(err, "{line}")
        };
        let _ = err.flush();
    }

    /// Ends the in-place line so later output starts on a fresh line.
    pub fn finish(&self) {
        if self.enabled && self.terminal {
            eprintln!();
        }
    }
}

//! What a run shows on stderr while it plays: the progress line for the
//! whole tournament (on a terminal rewritten in place after every game;
//! into a file or pipe printed every few games so a log stays readable),
//! optionally one line per finished game and the statistics every N games.

use super::runner::PlayedGame;
use crate::results::stats::{SprtResult, elo_text};
use crate::results::tally::PairTally;
use std::io::{IsTerminal, Write};
use std::time::Instant;

pub struct Progress {
    total: usize,
    /// Games finished, those of a resumed run included.
    done: usize,
    /// Games finished by this invocation, and since when, for the speed.
    fresh: usize,
    started: Instant,
    enabled: bool,
    terminal: bool,
    every: usize,
}

impl Progress {
    pub fn new(total: usize, done: usize, enabled: bool) -> Progress {
        Progress {
            total,
            done,
            fresh: 0,
            started: Instant::now(),
            enabled,
            terminal: std::io::stderr().is_terminal(),
            every: (total / 20).max(1),
        }
    }

    pub fn done(&self) -> usize {
        self.done
    }

    /// Counts a finished game and shows the line: games done, speed, time
    /// left, and with one pairing its W/D/L, score and Elo (with several,
    /// the leading engine's score), and the LLR of a running SPRT.
    pub fn update(&mut self, tallies: &[PairTally], sprt: Option<&SprtResult>) {
        self.done += 1;
        self.fresh += 1;
        if !self.enabled
            || (!self.terminal && !self.done.is_multiple_of(self.every) && self.done != self.total)
        {
            return;
        }
        let seconds = self.started.elapsed().as_secs_f64().max(1e-9);
        let rate = self.fresh as f64 / seconds;
        let left = (self.total.saturating_sub(self.done)) as f64 / rate.max(1e-9);
        let state = match tallies {
            [one] => pairing_text(one),
            _ => leader_text(tallies),
        };
        let llr = sprt.map_or(String::new(), |r| {
            format!(" LLR {:.2} ({:.2}, {:.2})", r.llr, r.lower, r.upper)
        });
        let line = format!(
            "[{}/{}] {rate:.1} games/s, {} left | {state}{llr}",
            self.done,
            self.total,
            duration_text(left)
        );
        self.show(&line);
    }

    /// `game 12 (pair 1.6): a vs b 1-0 (illegal move)`
    pub fn game_line(&self, game: &PlayedGame) {
        let r = &game.record;
        let tag = |name| r.tag(name).unwrap_or("?");
        self.message(&format!(
            "game {} (pair {}): {} vs {} {} ({})",
            tag("Game"),
            tag("Pair"),
            tag("White"),
            tag("Black"),
            r.result,
            game.termination.code()
        ));
    }

    /// A block of text between progress lines.
    pub fn interim(&self, text: &str) {
        self.message(text.trim_end());
    }

    fn message(&self, text: &str) {
        let mut err = std::io::stderr().lock();
        let _ = if self.terminal {
            writeln!(err, "\r\x1b[K{text}")
        } else {
            writeln!(err, "{text}")
        };
    }

    fn show(&self, line: &str) {
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

fn pairing_text(t: &PairTally) -> String {
    let g = &t.games;
    let elo = elo_text(t.pairs.elo().or_else(|| g.elo()), g.points(), g.games());
    format!(
        "{} vs {}: +{} ={} -{} ({:.1}%) {elo}",
        t.a,
        t.b,
        g.wins,
        g.draws,
        g.losses,
        100.0 * t.score()
    )
}

/// The engine with the best score so far over all its games.
fn leader_text(tallies: &[PairTally]) -> String {
    let mut scores: Vec<(&str, f64, u64)> = Vec::new();
    for t in tallies {
        let g = &t.games;
        let a_points = g.wins as f64 + 0.5 * g.draws as f64;
        for (name, points) in [(&t.a, a_points), (&t.b, g.games() as f64 - a_points)] {
            match scores.iter_mut().find(|(n, _, _)| *n == name.as_str()) {
                Some(entry) => {
                    entry.1 += points;
                    entry.2 += g.games();
                }
                None => scores.push((name, points, g.games())),
            }
        }
    }
    let ratio = |(_, p, n): &(&str, f64, u64)| if *n == 0 { 0.0 } else { p / *n as f64 };
    match scores.iter().max_by(|a, b| ratio(a).total_cmp(&ratio(b))) {
        Some(best) if best.2 > 0 => format!(
            "leader {} {:.1}/{} ({:.1}%)",
            best.0,
            best.1,
            best.2,
            100.0 * ratio(best)
        ),
        _ => "no games yet".to_string(),
    }
}

fn duration_text(seconds: f64) -> String {
    let s = seconds.round() as u64;
    if s >= 3600 {
        format!("{}h{:02}m", s / 3600, s / 60 % 60)
    } else {
        format!("{}m{:02}s", s / 60, s % 60)
    }
}

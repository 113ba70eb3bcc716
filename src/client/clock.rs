//! The time control an engine plays under: a clock, or a fixed limit per
//! move. The runner keeps the clocks; the engine process turns a control
//! into `go` arguments.

use std::fmt;

#[derive(Clone, Copy, Debug, PartialEq, Eq)]
pub enum TimeControl {
    /// A clock per side: initial time and increment per move, and with
    /// `moves` the initial time is added again after every that many moves
    /// of the side (`40/60`: 60 s for each 40 moves).
    Clock {
        moves: Option<u32>,
        base_ms: u64,
        inc_ms: u64,
    },
    MoveTime(u64),
    Nodes(u64),
    Depth(u32),
}

impl TimeControl {
    pub fn is_clock(&self) -> bool {
        matches!(self, TimeControl::Clock { .. })
    }

    /// The PGN `TimeControl` value: `40/60`, `60+0.6`, `40/60+0.5` (seconds)
    /// for clocks, `-` (no clock) for fixed limits, which [`fmt::Display`]
    /// names instead.
    pub fn pgn(&self) -> String {
        match self {
            TimeControl::Clock { .. } => self.to_string(),
            _ => "-".to_string(),
        }
    }
}

impl fmt::Display for TimeControl {
    fn fmt(&self, f: &mut fmt::Formatter<'_>) -> fmt::Result {
        let seconds = |ms: u64| ms as f64 / 1000.0;
        match *self {
            TimeControl::Clock {
                moves,
                base_ms,
                inc_ms,
            } => {
                if let Some(n) = moves {
                    write!(f, "{n}/")?;
                }
                write!(f, "{}", seconds(base_ms))?;
                match (moves, inc_ms) {
                    (Some(_), 0) => Ok(()),
                    _ => write!(f, "+{}", seconds(inc_ms)),
                }
            }
            TimeControl::MoveTime(ms) => write!(f, "movetime={ms}"),
            TimeControl::Nodes(n) => write!(f, "nodes={n}"),
            TimeControl::Depth(d) => write!(f, "depth={d}"),
        }
    }
}

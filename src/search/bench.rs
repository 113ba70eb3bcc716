//! `bench`: a fixed set of positions searched to a fixed depth. The node
//! count is the engine's signature: identical on every run and machine.
//!
//! Each position is searched with one thread, a fresh 16 MB table and
//! fresh heuristics, as after `ucinewgame`, so no search depends on the one
//! before it. Nodes are counted as the search counts them (every position
//! visited by the main search, quiescence and the root; see `alphabeta`).

use super::tt::TranspositionTable;
use super::{Limits, SearchOptions, SearchRequest, Signals, driver};
use crate::rules::{Game, Rules, Variant};
use std::sync::atomic::Ordering;
use std::time::{Duration, Instant};

pub const DEFAULT_DEPTH: u32 = 8;

/// (rule spec, position text): several variants, opening to endgame. The
/// positions came from seeded random playouts of each variant.
pub const POSITIONS: &[(&str, &str)] = &[
    ("standard", "6/6/6/6/6 w 12 12 0 1"),
    ("standard", "6/2W3/4B1/2B2B/3W2 w 8 9 4 6"),
    ("standard", "W5/B4W/1W1BW1/W4W/W5 w 5 2 1 12"),
    ("standard", "W4B/5B/2W3/5B/W1W1B1 w 0 2 1 18"),
    ("hand-removal", "BBB3/1B2W1/2BW2/5W/2W2W w 5 5 1 10"),
    ("6x6", "2W3/W2B1W/WW2W1/2B1W1/5B/B5 w 5 6 5 9"),
    ("classic", "B2B1B/1W4/BB1W1B/WB1W2/W2W1W w 1 3 4 14"),
    ("5x5", "4W/B4/W1W2/3BB/5 w 7 8 4 8"),
    ("boxed", "W2B1B/3W2/4B1/6/1W3B w 5 4 2 13"),
    ("all-options", "1W4/B2W2/6/W1WB1W/5W b 6 8 3 7"),
    (
        "mandatory_capture=true,multi_jump=true",
        "W5/2B1W1/2W3/6/2W1W1 w 7 3 1 11",
    ),
    (
        "standard,no_capture_draw=20,repetition_draw=3",
        "1B1BW1/1BB3/6/2W3/3BW1 w 3 3 0 15",
    ),
];

pub struct BenchReport {
    pub nodes: u64,
    pub elapsed: Duration,
}

impl BenchReport {
    pub fn nodes_per_second(&self) -> u64 {
        (self.nodes as f64 / self.elapsed.as_secs_f64().max(1e-9)) as u64
    }
}

/// Searches every bench position to `depth`; the elapsed time counts the
/// searches only, not building the tables.
pub fn run(depth: u32) -> BenchReport {
    run_until(depth, &Signals::default()).expect("an unstopped bench finishes")
}

/// `run`, ended early (None) once `signals.stop` is raised.
pub fn run_until(depth: u32, signals: &Signals) -> Option<BenchReport> {
    run_with(depth, &SearchOptions::default(), signals)
}

/// `run_until` with other search options (e.g. other `SearchParams`).
pub fn run_with(depth: u32, options: &SearchOptions, signals: &Signals) -> Option<BenchReport> {
    let mut nodes = 0;
    let mut elapsed = Duration::ZERO;
    for (spec, text) in POSITIONS {
        let variant = Variant::from_spec(spec).expect("bench variants are valid");
        let rules = Rules::new(variant).expect("bench variants are valid");
        let pos = rules
            .parse_position(text)
            .expect("bench positions are valid");
        let game = Game::from_position(rules, pos);
        let tt = TranspositionTable::new(options.hash_mb);
        let request = SearchRequest {
            limits: Limits {
                depth: Some(depth),
                ..Limits::default()
            },
            searchmoves: Vec::new(),
        };
        let start = Instant::now();
        let result = driver::search(&game, &request, options, &tt, signals, &mut |_| {});
        if signals.stop.load(Ordering::Relaxed) {
            return None;
        }
        elapsed += start.elapsed();
        nodes += result.nodes;
    }
    Some(BenchReport { nodes, elapsed })
}

//! Solved small boards: `yote solve` lists every first move that keeps the
//! value and the perfect game, the line replays to the end the value says,
//! and an independent brute-force solver confirms the boards that are won.

#[path = "support/brute_force.rs"]
mod brute_force;

use brute_force::assert_tables_agree;
use std::process::Command;
use yote::rules::{Player, Position, Rules, Variant};
use yote::tablebase::generate::Silent;
use yote::tablebase::perfect::{Solved, optimal_moves, perfect_game};
use yote::tablebase::{Metric, Request, Shard, Tablebase, Value, generate};

const BIN: &str = env!("CARGO_BIN_EXE_yote");

fn rules(spec: &str) -> Rules {
    Rules::new(Variant::from_spec(spec).unwrap()).unwrap()
}

/// Every class of the variant's whole game.
fn solve(rules: &Rules) -> Tablebase {
    let request = Request {
        pieces: 2 * u32::from(rules.variant().pieces),
        dir: None,
        shard: Shard::ALL,
        threads: 1,
        metric: Metric::Dtm,
    };
    generate(rules, &request, &Silent).unwrap().0
}

fn solve_output(spec: &str) -> String {
    let out = Command::new(BIN)
        .args(["solve", "--threads", "1", "--variant", spec])
        .output()
        .unwrap();
    assert!(
        out.status.success(),
        "{}",
        String::from_utf8_lossy(&out.stderr)
    );
    String::from_utf8(out.stdout).unwrap()
}

/// The words after `key ` on the line that starts with it.
fn field<'a>(out: &'a str, key: &str) -> Option<Vec<&'a str>> {
    out.lines()
        .find_map(|l| l.strip_prefix(key)?.strip_prefix(' '))
        .map(|rest| rest.split(' ').collect())
}

#[test]
fn solve_lists_every_best_first_move_and_a_perfect_game_that_replays() {
    let spec = "standard,rows=3,cols=3,pieces=5";
    let out = solve_output(spec);
    assert_eq!(field(&out, "value"), Some(vec!["win", "29"]), "{out}");
    // `best` is exactly the set of `move` lines with the root's value.
    let keeping: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("move ") && l.ends_with(" win 29"))
        .map(|l| l.split(' ').nth(1).unwrap())
        .collect();
    let mut best = field(&out, "best").unwrap();
    best.sort_unstable();
    let mut expected = keeping.clone();
    expected.sort_unstable();
    assert_eq!(best, expected);
    assert!(!best.is_empty() && best.len() < 9, "{out}");
    // The line is legal move by move and ends the game after exactly 29
    // plies, the first player winning.
    let line = field(&out, "line").unwrap();
    assert_eq!(line.len(), 29);
    assert!(keeping.contains(&line[0]));
    let rules = rules(spec);
    let mut pos = rules.start_position();
    for (ply, text) in line.iter().enumerate() {
        assert!(rules.status(&pos).is_none(), "over before ply {ply}");
        let mv = rules.parse_move(&pos, text).unwrap();
        rules.apply(&mut pos, &mv);
    }
    let end = rules.status(&pos).expect("the game is over");
    assert_eq!(end.winner(), Some(Player::White));
}

#[test]
fn a_drawn_board_has_no_perfect_game_and_every_move_keeps_the_draw() {
    let out = solve_output("standard,rows=3,cols=3,pieces=3");
    assert_eq!(field(&out, "value"), Some(vec!["draw"]));
    assert_eq!(field(&out, "best").unwrap().len(), 9, "{out}");
    assert_eq!(field(&out, "line"), None);
}

/// The real tables, except that the start position claims a win in 3.
struct StartLies(Tablebase);

impl Solved for StartLies {
    fn rules(&self) -> &Rules {
        self.0.rules()
    }
    fn probe(&self, pos: &Position) -> Option<Value> {
        match *pos == self.0.rules().start_position() {
            true => Some(Value::Win(3)),
            false => self.0.probe(pos),
        }
    }
}

#[test]
fn a_perfect_game_that_contradicts_its_table_is_refused() {
    let rules = rules("standard,rows=3,cols=3,pieces=5");
    let tables = solve(&rules);
    let start = rules.start_position();
    assert!(perfect_game(&tables, &start).unwrap().is_some());
    let liar = StartLies(tables);
    assert!(optimal_moves(&liar, &start).unwrap().is_empty());
    let refused = perfect_game(&liar, &start).unwrap_err().to_string();
    assert!(refused.contains("no move keeps it"), "{refused}");
}

/// The boards `yote solve` finds won (3x3 with 5 to 8 pieces a side in the
/// five families): the brute-force solver, which shares nothing with the
/// retrograde one but the rules, agrees on every reachable position, and
/// the perfect game is as long as the start's value says.
#[test]
fn brute_force_confirms_the_solved_3x3_boards() {
    let mut won = 0;
    for family in [
        "standard",
        "hand-removal",
        "classic",
        "boxed",
        "all-options",
    ] {
        for pieces in 5..=8 {
            let spec = format!("{family},rows=3,cols=3,pieces={pieces}");
            let rules = rules(&spec);
            let tables = solve(&rules);
            assert!(assert_tables_agree(&rules, &tables, &spec) > 1000, "{spec}");
            let start = rules.start_position();
            let value = tables.probe(&start).unwrap();
            let game = perfect_game(&tables, &start).unwrap();
            assert_eq!(
                game.map(|g| g.len()),
                match value {
                    Value::Draw => None,
                    v => Some(usize::from(v.distance())),
                }
            );
            won += usize::from(matches!(value, Value::Win(_)));
        }
    }
    assert!(won >= 10, "only {won} boards won");
}

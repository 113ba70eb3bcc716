//! Every perft count in tests/data/perft_vectors.txt (a copy of the shared
//! vectors, computed by a separate reference implementation) must match.

use yote::rules::{Position, Rules, Variant, divide, divide_full, perft, perft_full};

fn variant_of(spec: &str) -> Variant {
    Variant::from_spec(spec).unwrap_or_else(|e| panic!("rules '{spec}': {e}"))
}

#[test]
fn all_vectors_match_the_reference() {
    let mut checked = 0;
    let mut failures = Vec::new();
    for v in vectors() {
        let pos = v.position();
        for &(depth, expected) in &v.counts {
            let got = perft(&v.rules, &pos, depth).unwrap();
            checked += 1;
            if got != expected {
                failures.push(format!(
                    "{}\n  depth {depth}: expected {expected}, got {got}",
                    v.line
                ));
            }
        }
    }
    assert!(
        failures.is_empty(),
        "{} of {checked} counts wrong:\n{}",
        failures.len(),
        failures.join("\n")
    );
    assert!(checked > 150, "only {checked} counts read");
}

/// One line of the vectors: its rules, position text and (depth, nodes) pairs.
struct Vector {
    line: &'static str,
    rules: Rules,
    text: &'static str,
    counts: Vec<(u32, u64)>,
}

impl Vector {
    fn position(&self) -> Position {
        self.rules
            .parse_position(self.text)
            .unwrap_or_else(|e| panic!("{}: {e}", self.line))
    }
}

fn vectors() -> Vec<Vector> {
    include_str!("data/perft_vectors.txt")
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
        .map(|line| {
            let fields: Vec<&str> = line.split(';').collect();
            let counts = fields[2..]
                .chunks(2)
                .map(|pair| (pair[0].parse().unwrap(), pair[1].parse().unwrap()))
                .collect();
            let rules = Rules::new(variant_of(fields[0])).unwrap();
            Vector {
                line,
                rules,
                text: fields[1],
                counts,
            }
        })
        .collect()
}

/// The full perft (every leaf played, no bulk counting) gives the
/// reference counts too, wherever they are small enough to play out here.
#[test]
fn full_perft_matches_the_reference() {
    let mut checked = 0;
    for v in vectors() {
        let pos = v.position();
        for &(depth, expected) in v.counts.iter().filter(|&&(_, n)| n <= 2_000_000) {
            let got = perft_full(&v.rules, &pos, depth).unwrap();
            assert_eq!(got, expected, "{}: depth {depth}", v.line);
            checked += 1;
        }
    }
    assert!(checked > 100, "only {checked} counts checked");
}

/// Full and bulk perft split by first move agree move by move, from the
/// start of several variants and from positions that owe removals (which
/// the bulk counters expand at the root and the full perft plays).
#[test]
fn full_divide_matches_bulk_divide() {
    let cases = [
        ("standard", "6/6/6/6/6 w 12 12 0 1", 4),
        ("standard", "6/6/2W3/2B3/B4B w 11 9 0 3 x1", 4),
        ("standard", "1W1WW1/W4B/3B2/1W3W/3W2 b 5 4", 3),
        ("removal=board-or-hand", "6/6/2W3/2B3/B4B w 11 9 0 3 x1", 4),
        ("bonus_turn=true", "1W1WW1/W4B/3B2/1W3W/3W2 b 5 4", 3),
        (
            "multi_jump=true,jump_own=true",
            "1W1WW1/W4B/3B2/1W3W/3W2 b 5 4",
            3,
        ),
        ("mandatory_capture=true", "1W1WW1/W4B/3B2/1W3W/3W2 b 5 4", 3),
        ("rows=6,cols=6", "6/6/6/6/6/6 w 12 12 0 1", 3),
    ];
    for (spec, text, depth) in cases {
        let rules = Rules::new(variant_of(spec)).unwrap();
        let pos = rules
            .parse_position(text)
            .unwrap_or_else(|e| panic!("{text}: {e}"));
        for d in 0..=depth {
            let full = divide_full(&rules, &pos, d).unwrap();
            assert_eq!(
                full,
                divide(&rules, &pos, d).unwrap(),
                "{spec} {text} depth {d}"
            );
            let total = if d == 0 {
                1
            } else {
                full.iter().map(|(_, n)| n).sum()
            };
            assert_eq!(
                perft_full(&rules, &pos, d).unwrap(),
                total,
                "{spec} {text} depth {d}"
            );
            assert_eq!(
                perft(&rules, &pos, d).unwrap(),
                total,
                "{spec} {text} depth {d}"
            );
        }
    }
}

#[test]
fn the_copy_matches_the_shared_file_when_present() {
    // CI lays shared/ beside the checkout; keep the copy from drifting.
    let shared =
        std::path::Path::new(env!("CARGO_MANIFEST_DIR")).join("../shared/perft/vectors.txt");
    if let Ok(text) = std::fs::read_to_string(&shared) {
        assert_eq!(
            text,
            include_str!("data/perft_vectors.txt"),
            "tests/data/perft_vectors.txt differs from {}",
            shared.display()
        );
    }
}

/// `yote perft --full` prints what `yote perft` prints: the same divide
/// lines and total, and with `--total` the total alone.
#[test]
fn the_command_line_full_mode_prints_the_same_counts() {
    let run = |args: &[&str]| {
        let out = std::process::Command::new(env!("CARGO_BIN_EXE_yote"))
            .args(args)
            .output()
            .unwrap();
        assert!(out.status.success(), "{args:?}");
        String::from_utf8(out.stdout).unwrap()
    };
    let fen = ["--fen", "6/6/2W3/2B3/B4B w 11 9 0 3 x1"];
    let bulk = run(&[&["perft", "3"], &fen[..]].concat());
    assert_eq!(run(&[&["perft", "3", "--full"], &fen[..]].concat()), bulk);
    assert!(bulk.lines().count() > 3, "{bulk}");
    assert_eq!(
        run(&["perft", "4", "--total", "--full"]),
        "Nodes searched: 823848\n"
    );
}

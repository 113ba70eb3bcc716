//! Every perft count in tests/data/perft_vectors.txt (a copy of the shared
//! vectors, computed by a separate reference implementation) must match.

use yote::rules::{Rules, Variant, perft};

fn variant_of(spec: &str) -> Variant {
    Variant::from_spec(spec).unwrap_or_else(|e| panic!("rules '{spec}': {e}"))
}

#[test]
fn all_vectors_match_the_reference() {
    let text = include_str!("data/perft_vectors.txt");
    let mut checked = 0;
    let mut failures = Vec::new();
    for line in text
        .lines()
        .filter(|l| !l.starts_with('#') && !l.trim().is_empty())
    {
        let fields: Vec<&str> = line.split(';').collect();
        let rules = Rules::new(variant_of(fields[0])).unwrap();
        let pos = rules
            .parse_position(fields[1])
            .unwrap_or_else(|e| panic!("{line}: {e}"));
        for pair in fields[2..].chunks(2) {
            let depth: u32 = pair[0].parse().unwrap();
            let expected: u64 = pair[1].parse().unwrap();
            let got = perft(&rules, &pos, depth);
            checked += 1;
            if got != expected {
                failures.push(format!(
                    "{line}\n  depth {depth}: expected {expected}, got {got}"
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

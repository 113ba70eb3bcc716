//! What a client written from protocol.md alone relies on (issue 17): a
//! capture given in parts (the jump, then its removals), the engine
//! finishing its own capture with the pieces it chose, and one `response`
//! line for every `query`. Each failure the issue names is fed here as it
//! was found.

mod support;

use support::Engine;
use yote::rules::Variant;

fn started() -> Engine {
    let mut e = Engine::start();
    e.send("ugi");
    e.until(|l| l == "ugiok");
    e
}

fn response(e: &mut Engine, query: &str) -> String {
    let line = e.ask_one(query);
    line.strip_prefix("response ")
        .unwrap_or_else(|| panic!("{query}: {line}"))
        .to_string()
}

/// The move of the `bestmove` line ending `lines`.
fn best(lines: &[String]) -> String {
    let last = lines.last().expect("a bestmove line");
    last.split(' ').nth(1).expect("a move").to_string()
}

/// Sends `go` and returns its output, with whether the engine answered
/// from its last capture (no search) rather than by searching.
fn go(e: &mut Engine, go: &str) -> (String, bool) {
    e.send(go);
    let lines = e.bestmove();
    let remembered = lines
        .iter()
        .any(|l| l.contains("the rest of this engine's capture"));
    let searched = lines
        .iter()
        .any(|l| l.starts_with("info depth") && !l.contains(" nodes 0 "));
    assert!(remembered != searched, "{lines:#?}");
    (best(&lines), remembered)
}

#[test]
fn a_jump_without_its_removals_leaves_them_owed() {
    let mut e = started();
    let before = "6/6/6/2B2B/2W3 w 11 10 4 3";
    e.ask(&format!("position fen {before}"));
    assert_eq!(response(&mut e, "query islegal c1c3"), "true");
    e.ask(&format!("position fen {before} moves c1c3"));
    assert_eq!(response(&mut e, "query fen"), "6/6/2W3/5B/6 w 11 10 0 3 x1");
    assert_eq!(response(&mut e, "query p1turn"), "true");
    assert_eq!(response(&mut e, "query gameover"), "false");
    assert_eq!(response(&mut e, "query moves"), "xf2");
    assert_eq!(response(&mut e, "query islegal c3c4"), "false");
    e.ask(&format!("position fen {before} moves c1c3 xf2"));
    let two_turns = response(&mut e, "query fen");
    e.ask(&format!("position fen {before} moves c1c3xf2"));
    assert_eq!(response(&mut e, "query fen"), two_turns);
    assert_eq!(two_turns, "6/6/2W3/6/6 b 11 10 0 3");
    // A jump that owes nothing (the enemy has nothing left to take) is the
    // whole move: the turn passes.
    e.ask("position fen 6/6/6/2B3/2W3 w 11 10 4 3 moves c1c3");
    assert_eq!(response(&mut e, "query fen"), "6/6/2W3/6/6 b 11 10 0 3");
}

/// The engine answered `c1c3xf2` (or `xa1`); the front end plays the jump
/// alone and asks again: the same piece, at once, whether the position
/// comes as moves or as the `x1` text. A GUI saw another piece chosen in
/// 11 of 81 captures before.
#[test]
fn the_engine_finishes_its_own_capture_as_it_chose_it() {
    let mut e = started();
    let before = "6/6/6/2B2B/B1W3 w 11 9 4 3";
    e.ask(&format!("position fen {before}"));
    let (whole, remembered) = go(&mut e, "go depth 4 searchmoves c1c3xa1 c1c3xf2");
    assert!(!remembered);
    let removal = whole.strip_prefix("c1c3").expect("the capture").to_string();
    e.ask(&format!("position fen {before} moves c1c3"));
    assert_eq!(go(&mut e, "go depth 4"), (removal.clone(), true));
    // Again, from the position text of the jump.
    e.ask(&format!("position fen {before}"));
    assert_eq!(
        go(&mut e, "go depth 4 searchmoves c1c3xa1 c1c3xf2").0,
        whole
    );
    e.ask("position fen 6/6/2W3/5B/B5 w 11 9 0 3 x1");
    assert_eq!(go(&mut e, "go movetime 50"), (removal.clone(), true));
    // Not the continuation of its answer (another hand count): a search.
    e.ask(&format!("position fen {before}"));
    go(&mut e, "go depth 4 searchmoves c1c3xa1 c1c3xf2");
    e.ask("position fen 6/6/2W3/5B/B5 w 10 9 0 3 x1");
    assert!(!go(&mut e, "go depth 4").1);
    // searchmoves that leave the chosen piece out, and `go infinite`, search.
    e.ask(&format!("position fen {before}"));
    go(&mut e, "go depth 4 searchmoves c1c3xa1 c1c3xf2");
    e.ask(&format!("position fen {before} moves c1c3"));
    let other = if removal == "xa1" { "xf2" } else { "xa1" };
    assert_eq!(
        go(&mut e, &format!("go depth 2 searchmoves {other}")),
        (other.to_string(), false)
    );
}

/// With a chain's removals played one per turn, each answer is the rest of
/// the capture the engine chose.
#[test]
fn the_engine_finishes_a_chain_capture_one_removal_at_a_time() {
    let mut e = started();
    e.ask("setoption name Variant value all-options");
    let before = "6/5B/1B4/B5/W3BB w 1 0";
    e.ask(&format!("position fen {before}"));
    let chains = "a1a3c3xe1xf1 a1a3c3xe1xf4 a1a3c3xf1xf4";
    let (whole, _) = go(&mut e, &format!("go depth 3 searchmoves {chains}"));
    let removals = whole.strip_prefix("a1a3c3").expect("the chain").to_string();
    e.ask(&format!("position fen {before} moves a1a3c3"));
    assert_eq!(response(&mut e, "query fen"), "6/5B/2W3/6/4BB w 1 0 0 1 x2");
    assert_eq!(go(&mut e, "go nodes 1000"), (removals.clone(), true));
    let (first, rest) = removals[1..].split_once('x').unwrap();
    e.ask(&format!("position fen {before} moves a1a3c3 x{first}"));
    assert_eq!(go(&mut e, "go nodes 1000"), (format!("x{rest}"), true));
    e.ask(&format!(
        "position fen {before} moves a1a3c3 x{first} x{rest}"
    ));
    e.ask(&format!("position fen {before} moves {whole}"));
    let one_turn = response(&mut e, "query fen");
    e.ask(&format!(
        "position fen {before} moves a1a3c3 x{first} x{rest}"
    ));
    assert_eq!(response(&mut e, "query fen"), one_turn);
}

/// The multi-jump recipe when fewer pieces can be removed than are owed:
/// `x2` with one black piece answers `xf2` alone, and the old recipe's `x1`
/// that follows (nothing left to remove) is the position after the
/// capture, not an error.
#[test]
fn owed_removals_that_cannot_be_made_are_forfeited() {
    let mut e = started();
    e.ask("setoption name Variant value all-options");
    let out = e.ask("position fen 2W3/6/6/5B/6 w 11 9 0 5 x2");
    assert!(out.is_empty(), "{out:?}");
    assert_eq!(response(&mut e, "query fen"), "2W3/6/6/5B/6 w 11 9 0 5 x1");
    e.send("go depth 3");
    assert_eq!(best(&e.bestmove()), "xf2");
    let out = e.ask("position fen 2W3/6/6/6/6 w 11 9 0 5 x1");
    assert!(out.is_empty(), "{out:?}");
    assert_eq!(response(&mut e, "query fen"), "2W3/6/6/6/6 w 11 9 0 5");
    // Removal none: nothing is ever owed; the turn passes.
    e.ask("setoption name Variant value standard,removal=none");
    assert!(e.ask("position fen 6/6/6/6/B5 w 11 11 0 1 x1").is_empty());
    assert_eq!(response(&mut e, "query fen"), "6/6/6/6/B5 b 11 11 0 1");
}

/// `query`, `query banana`, `query islegal` and `query islegal @c3 extra`
/// printed only an error: a client waiting for `response` hung.
#[test]
fn every_query_gets_exactly_one_response() {
    let mut e = started();
    for rejected in [false, true] {
        if rejected {
            e.ask("position startpos moves @a1 @a1");
        }
        for query in [
            "query",
            "query banana",
            "query islegal",
            "query islegal @c3 extra",
        ] {
            let out = e.ask(query);
            assert_eq!(out.len(), 2, "{query}: {out:?}");
            assert!(out[0].starts_with("info string error: query"), "{out:?}");
            assert!(out[1].starts_with("response error query"), "{out:?}");
        }
    }
    assert_eq!(response(&mut e, "query moves"), "none");
    e.ask("position startpos");
    let moves = response(&mut e, "query moves");
    assert_eq!(moves.split(' ').count(), 30);
    assert!(moves.starts_with("@a1 @b1"), "{moves}");
    e.ask("position fen W5/6/6/6/B5 w 11 0 0 1");
    assert_eq!(response(&mut e, "query gameover"), "true");
    assert_eq!(response(&mut e, "query moves"), "none");
}

/// Issue 17's measured target: a client of under 100 lines, written from
/// protocol.md alone, plays a game in every preset with every capture
/// split into its jump and one removal per turn, using engine answers only.
#[test]
fn a_client_without_rules_code_plays_two_turn_captures_in_every_preset() {
    let script = concat!(
        env!("CARGO_MANIFEST_DIR"),
        "/scripts/clients/two_turn_client.py"
    );
    let lines = std::fs::read_to_string(script).unwrap().lines().count();
    assert!(lines < 100, "{lines} lines");
    // A game with no capture in it proves nothing about captures played in
    // parts, and which self-play game shuffles a piece for ever changes
    // with every new evaluation (1200 nodes: hand-removal since the network
    // of 44ddeef; 1000: classic and all-options since f3701b0; 1200 and
    // 800: hand-removal since the correction history). Three node counts,
    // and every preset must split a capture in at least one.
    let mut split = std::collections::BTreeMap::new();
    for nodes in ["1200", "800", "600"] {
        for (preset, owed) in two_turn_games(script, nodes) {
            *split.entry(preset).or_insert(0) += owed;
        }
    }
    for (preset, owed) in split {
        assert!(
            owed > 0,
            "{preset}: no capture played in parts at either count"
        );
    }
}

/// Runs the two-turn client over every preset at `nodes` a move; the parts
/// it played per preset. The client itself fails on any answer that
/// breaks the protocol.
fn two_turn_games(script: &str, nodes: &str) -> Vec<(&'static str, u32)> {
    let out = std::process::Command::new("python3")
        .args([script, "--engine", support::BIN, "--plies", "200"])
        .args(["--nodes", nodes])
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    let stderr = String::from_utf8_lossy(&out.stderr);
    assert!(out.status.success(), "{nodes} nodes: {stdout}\n{stderr}");
    Variant::PRESETS
        .iter()
        .map(|p| {
            let line = stdout
                .lines()
                .find(|l| l.starts_with(&format!("{}: ", p.name)))
                .unwrap_or_else(|| panic!("{} missing at {nodes} nodes: {stdout}", p.name));
            (p.name, line.split(' ').nth(3).unwrap().parse().unwrap())
        })
        .collect()
}

/// The parts of a capture are for playing it in turns: `searchmoves`, the
/// referee and game records take whole moves.
#[test]
fn searchmoves_take_whole_moves_only() {
    let mut e = started();
    e.ask("position fen 6/6/6/2B2B/B1W3 w 11 9 4 3");
    let out = e.ask("go depth 2 searchmoves c1c3");
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(out[0].contains("without its 1 removal(s)"), "{out:?}");
    let rules = yote::rules::Rules::standard();
    let start = rules.parse_position("6/6/6/2B2B/B1W3 w 11 9 4 3").unwrap();
    let mut game = yote::rules::Game::from_position(rules, start);
    assert!(game.play_text("c1c3").is_err());
    assert!(game.play_text("c1c3xa1").is_ok());
}

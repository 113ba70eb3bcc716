//! The engine protocol, tested through the real binary over pipes.
//!
//! Time bounds here are deliberately loose (the machine is shared): they
//! catch a hang or a missing answer, not a slow one. The real latencies are
//! measured by the ignored benchmarks at the end (see docs/measurements.md).

mod support;

use std::time::{Duration, Instant};
use support::{Engine, Rng, field, median};
use yote::rules::{Game, MoveList, Rules};

fn started(handshake: &str) -> Engine {
    let mut e = Engine::start();
    e.send(handshake);
    e.until(|l| l.ends_with("ok") && !l.starts_with("option"));
    e
}

fn errors(lines: &[String]) -> usize {
    lines
        .iter()
        .filter(|l| l.starts_with("info string error"))
        .count()
}

#[test]
fn ugi_and_uci_handshakes() {
    for (cmd, ok) in [("ugi", "ugiok"), ("uci", "uciok")] {
        let mut e = Engine::start();
        e.send(cmd);
        let lines = e.until(|l| l == ok);
        assert!(lines[0].starts_with("id name Yote "), "{lines:?}");
        assert_eq!(lines[1], "id author the Yote engine developers");
        for l in &lines[2..lines.len() - 1] {
            assert!(l.starts_with("option name "), "{l}");
            assert_eq!(l.trim_end(), l);
        }
        for expected in [
            "option name Hash type spin default 16 min 1 max 4096",
            "option name Threads type spin default 1 min 1 max 64",
            "option name MultiPV type spin default 1 min 1 max 64",
            "option name MoveOverhead type spin default 10 min 0 max 5000",
            "option name Ponder type check default false",
            "option name Style type combo default search var search var random var greedy",
            "option name Clear Hash type button",
            "option name Skill Level type spin default 20 min 0 max 20",
            "option name SearchFeatures type string default <empty>",
            "option name SearchParams type string default <empty>",
            "option name Removal type combo default board var board var board-or-hand var board-then-hand var none",
            "option name RepetitionDraw type spin default 0 min 0 max 1000",
        ] {
            assert!(lines.iter().any(|l| l == expected), "missing {expected}");
        }
        assert!(e.sync().is_empty());
    }
}

#[test]
fn setoption_errors_keep_the_old_value() {
    let mut e = started("ugi");
    let out = e.ask("setoption name rows value 4");
    assert_eq!(out.len(), 1);
    assert!(
        out[0].starts_with("info string variant rows=4,cols=6,")
            && out[0].ends_with(" startpos 6/6/6/6 w 12 12 0 1"),
        "{out:?}"
    );
    for bad in [
        "setoption name Rows value 9",
        "setoption name Rows value many",
        "setoption name Rows",
        "setoption name Removal value sideways",
        "setoption name RepetitionDraw value 1",
        "setoption name Hash value 0",
        "setoption name Hash value 99999999999999999999999",
        "setoption name Ponder value maybe",
        "setoption name Clear Hash value now",
        "setoption name Skill Level value 21",
        "setoption name Skill Level value -1",
        "setoption name UCI_Elo value 5",
        "setoption name NoSuchThing value 1",
        "setoption name",
        "setoption Hash value 3",
    ] {
        let out = e.ask(bad);
        assert_eq!(errors(&out), 1, "{bad}: {out:?}");
        assert_eq!(out.len(), 1, "{bad}: {out:?}");
    }
    assert_eq!(e.ask_one("query fen"), "response 6/6/6/6 w 12 12 0 1");
    // Names ignore case and spacing. The rule options set on their own
    // stay on top of a preset that comes later (issue 40), and the engine
    // says so; named in the value, the rules are the value's.
    assert!(e.ask("setoption name multi JUMP value true")[0].contains("multi_jump=true"));
    let out = e.ask("setoption name variant value 6X6");
    assert!(
        out[0].starts_with("info string variant rows=4,cols=6,"),
        "{out:?}"
    );
    assert!(out[0].contains("multi_jump=true"), "{out:?}");
    assert!(
        out[1].starts_with("info string Variant 6X6: kept Rows 4, MultiJump true,"),
        "{out:?}"
    );
    let out = e.ask("setoption name variant value 6x6,rows=6,multi_jump=false");
    assert!(out[0].starts_with("info string variant 6x6,rows=6,cols=6,"));
    assert!(out[0].contains("multi_jump=false"));
    assert!(out[0].ends_with("startpos 6/6/6/6/6/6 w 12 12 0 1"));
    assert_eq!(out.len(), 1, "{out:?}");
    assert_eq!(e.ask("setoption name Clear Hash"), Vec::<String>::new());
    assert_eq!(
        e.ask("setoption name move overhead value 30"),
        Vec::<String>::new()
    );
}

#[test]
fn rule_change_resets_the_position() {
    let mut e = started("uci");
    e.ask("position startpos moves @a1 @b1");
    assert_eq!(e.ask_one("query fen"), "response 6/6/6/6/WB4 w 11 11 2 2");
    e.ask("setoption name Pieces value 5");
    assert_eq!(e.ask_one("query fen"), "response 6/6/6/6/6 w 5 5 0 1");
}

#[test]
fn bad_positions_keep_the_previous_one() {
    let mut e = started("ugi");
    e.ask("position startpos moves @a1 @b1 a1a2");
    let good = e.ask_one("query fen");
    for (bad, token) in [
        ("position startpos moves @a1 @a1", "@a1"),
        ("position startpos moves @a1 @b1 zz", "zz"),
        ("position startpos moves @g6", "g6"),
        ("position startpos moves @a1 @b1 b1b2", "b1b2"),
        ("position fen 6/6/6/6 w 12 12 0 1", "ranks"),
        ("position fen 6/6/6/6/6 x 12 12", "side"),
        ("position fen 6/6/6/6/6 w 13 12 0 1", "13"),
        ("position fen 6/6/6/6/6 w 12 12 0 1 moves @a1 ok", "ok"),
        ("position fen", "fen"),
        ("position", "startpos"),
        ("position moves @a1", "moves"),
        ("position startpos @a1", "@a1"),
    ] {
        let out = e.ask(bad);
        assert_eq!(out.len(), 1, "{bad}: {out:?}");
        assert!(out[0].starts_with("info string error"), "{bad}: {out:?}");
        assert!(out[0].contains(token), "{bad}: {out:?} should name {token}");
        // Until a valid position arrives the engine answers for none.
        assert_eq!(e.ask_one("query fen"), "response none", "{bad}");
        e.ask("position startpos moves @a1 @b1 a1a2");
        assert_eq!(e.ask_one("query fen"), good, "{bad}");
    }
    // A capture that leaves nothing to remove has no removal suffix.
    e.ask("position fen 6/6/6/6/WB4 w 10 10 0 1 moves a1c1");
    assert_eq!(e.ask_one("query fen"), "response 6/6/6/6/2W3 b 10 10 0 1");
}

/// A long game of quiet moves, for the tournament manager's habit of sending
/// the whole move list before every command.
fn long_game(plies: usize, seed: u64) -> (Vec<String>, String) {
    let rules = Rules::standard();
    let mut game = Game::new(rules.clone());
    let mut rng = Rng(seed);
    let mut list = MoveList::new();
    let mut texts = Vec::new();
    while texts.len() < plies {
        game.legal_moves(&mut list);
        let quiet: Vec<_> = list.iter().filter(|m| !m.is_capture()).copied().collect();
        let pool = if quiet.is_empty() {
            list.as_slice().to_vec()
        } else {
            quiet
        };
        if pool.is_empty() {
            break;
        }
        let mv = pool[rng.below(pool.len())];
        texts.push(rules.move_text(&mv));
        game.play(&mv);
    }
    (texts, rules.position_text(game.position()))
}

#[test]
fn long_move_lists_are_fast() {
    let (moves, fen) = long_game(600, 7);
    assert!(moves.len() >= 400, "only {} plies", moves.len());
    let mut e = started("ugi");
    let command = format!("position startpos moves {}", moves.join(" "));
    let start = Instant::now();
    for _ in 0..20 {
        e.send(&command);
        assert_eq!(e.ask_one("query p1turn").split(' ').count(), 2);
    }
    let per_round = start.elapsed() / 20;
    assert_eq!(e.ask_one("query fen"), format!("response {fen}"));
    assert!(
        per_round < Duration::from_millis(100),
        "{per_round:?} per position"
    );
}

#[test]
fn one_bestmove_per_go() {
    let mut e = started("ugi");
    e.ask("position startpos moves @c3 @d3");
    for go in [
        "go depth 3",
        "go nodes 3000",
        "go movetime 50",
        "go wtime 300 btime 300",
    ] {
        e.send(go);
        let lines = e.bestmove();
        let best = lines.last().unwrap();
        assert_eq!(best.split(' ').count(), 2, "{best}");
        let last_info = &lines[lines.len() - 2];
        assert!(
            last_info.contains(" score ") && last_info.contains(" pv "),
            "{last_info}"
        );
        let rest = e.sync();
        assert!(
            rest.iter().all(|l| !l.starts_with("bestmove")),
            "{go}: {rest:?}"
        );
    }
}

#[test]
fn infinite_search_waits_for_stop() {
    let mut e = started("ugi");
    e.ask("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    let mut lines = e.sync();
    assert!(
        lines.iter().all(|l| !l.starts_with("bestmove")),
        "{lines:?}"
    );
    let sent = Instant::now();
    e.send("stop");
    lines.extend(e.bestmove());
    assert!(
        sent.elapsed() < Duration::from_millis(500),
        "{:?}",
        sent.elapsed()
    );
    // The stop may come right after an info line that already showed the
    // best move; either way the last info line has a score and a PV.
    let last_info = lines.iter().rev().find(|l| l.starts_with("info depth"));
    let last_info = last_info.expect("an info line");
    assert!(
        last_info.contains(" score ") && last_info.contains(" pv "),
        "{lines:?}"
    );
    assert!(e.sync().iter().all(|l| !l.starts_with("bestmove")));
    // A second stop has nothing to stop and prints nothing.
    assert!(e.ask("stop").is_empty());
}

/// An infinite search that ends by itself (a forced position) still holds
/// its bestmove until `stop`.
#[test]
fn infinite_search_of_a_forced_position_holds_bestmove() {
    let mut e = started("ugi");
    e.ask("position fen 6/6/6/6/WB4 w 1 1 0 1");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(300));
    assert!(e.sync().iter().all(|l| !l.starts_with("bestmove")));
    e.send("stop");
    assert_eq!(e.bestmove().last().unwrap(), "bestmove a1c1");
}

#[test]
fn ponder_then_ponderhit() {
    let mut e = started("ugi");
    e.ask("setoption name Ponder value true");
    e.ask("position startpos moves @c3 @d3");
    // A depth limit, so the test does not depend on how the search budgets
    // time after ponderhit.
    e.send("go ponder depth 3");
    std::thread::sleep(Duration::from_millis(300));
    assert!(e.sync().iter().all(|l| !l.starts_with("bestmove")));
    e.send("ponderhit");
    let best = e.bestmove().pop().unwrap();
    let tokens: Vec<&str> = best.split(' ').collect();
    assert!(
        tokens.len() == 2 || (tokens.len() == 4 && tokens[2] == "ponder"),
        "{best}"
    );
    assert!(e.sync().iter().all(|l| !l.starts_with("bestmove")));
    // With Ponder off, bestmove is exactly two tokens.
    e.ask("setoption name Ponder value false");
    e.send("go depth 3");
    assert_eq!(e.bestmove().pop().unwrap().split(' ').count(), 2);
}

/// After `ponderhit` the clock given with `go ponder` applies from then on.
#[test]
fn ponderhit_starts_the_clock() {
    let mut e = started("ugi");
    e.ask("position startpos moves @c3 @d3");
    e.send("go ponder p1time 1000 p2time 1000");
    std::thread::sleep(Duration::from_millis(500));
    assert!(e.sync().iter().all(|l| !l.starts_with("bestmove")));
    let hit = Instant::now();
    e.send("ponderhit");
    e.bestmove();
    assert!(
        hit.elapsed() < Duration::from_millis(1000),
        "{:?}",
        hit.elapsed()
    );
}

#[test]
fn isready_and_stop_answer_fast_during_search() {
    let mut e = started("ugi");
    e.ask("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    let sent = Instant::now();
    e.send("isready");
    e.until(|l| l == "readyok");
    assert!(
        sent.elapsed() < Duration::from_millis(200),
        "{:?}",
        sent.elapsed()
    );
    let sent = Instant::now();
    e.send("stop");
    e.bestmove();
    assert!(
        sent.elapsed() < Duration::from_millis(200),
        "{:?}",
        sent.elapsed()
    );
}

#[test]
fn movetime_and_clock_are_respected() {
    let mut e = started("ugi");
    e.ask("position startpos moves @c3 @d3");
    for (go, limit_ms) in [
        ("go movetime 300", 300 + 10 + 400),
        ("go wtime 400 btime 400", 400),
        ("go wtime 400 btime 400 winc 100 binc 100", 400),
        ("go p1time 50 p2time 50", 50 + 200),
    ] {
        let sent = Instant::now();
        e.send(go);
        e.bestmove();
        let took = sent.elapsed();
        assert!(took < Duration::from_millis(limit_ms), "{go}: {took:?}");
    }
}

#[test]
fn node_limited_search_is_deterministic() {
    let mut e = started("uci");
    e.ask("setoption name Threads value 1");
    let mut runs = Vec::new();
    for _ in 0..2 {
        e.ask("ucinewgame");
        e.ask("position startpos moves @c3 @d3 @c4");
        e.send("go nodes 20000");
        let lines = e.bestmove();
        let best = lines.last().unwrap().clone();
        let nodes = field(&lines[lines.len() - 2], "nodes");
        runs.push((best, nodes));
    }
    assert_eq!(runs[0], runs[1]);
}

#[test]
fn queries_follow_the_rules() {
    let mut e = started("ugi");
    let ask = |e: &mut Engine, q: &str| e.ask_one(q);
    // In progress.
    e.ask("position startpos moves @a1");
    assert_eq!(ask(&mut e, "query gameover"), "response false");
    assert_eq!(ask(&mut e, "query p1turn"), "response false");
    assert_eq!(ask(&mut e, "query result"), "response none");
    assert_eq!(ask(&mut e, "query islegal @a1"), "response false");
    assert_eq!(ask(&mut e, "query islegal @b1"), "response true");
    assert_eq!(ask(&mut e, "query islegal nonsense"), "response false");
    // Won: black has one piece left.
    e.ask("position fen W5/6/6/6/B5 w 11 0 0 1");
    assert_eq!(ask(&mut e, "query gameover"), "response true");
    assert_eq!(ask(&mut e, "query result"), "response p1win");
    assert_eq!(ask(&mut e, "query islegal @b1"), "response false");
    // A finished game gets bestmove (none) at once, after a reason.
    e.send("go depth 5");
    let lines = e.bestmove();
    assert_eq!(lines.len(), 2, "{lines:?}");
    assert!(lines[0].starts_with("info string game over: white wins"));
    assert_eq!(lines[1], "bestmove (none)");
    // Drawn: both at one piece.
    e.ask("position fen W5/6/6/6/5B w 0 0 0 1");
    assert_eq!(ask(&mut e, "query result"), "response draw");
    // Bonus turn: the capturer moves again, so p1turn stays true.
    e.ask("setoption name BonusTurn value true");
    e.ask("position fen 6/6/6/6/WB4 w 10 10 0 1 moves a1c1");
    assert_eq!(ask(&mut e, "query p1turn"), "response true");
    assert_eq!(ask(&mut e, "query gameover"), "response false");
    // History rules count when on: the third repetition draws.
    e.ask("setoption name Variant value standard");
    e.ask("setoption name RepetitionDraw value 3");
    let cycle = "a1a2 e1e2 a2a1 e2e1";
    e.ask(&format!(
        "position fen 6/6/6/6/WW2BB w 0 0 0 1 moves {cycle} {cycle}"
    ));
    assert_eq!(ask(&mut e, "query result"), "response draw");
    let out = e.ask(&format!(
        "position fen 6/6/6/6/WW2BB w 0 0 0 1 moves {cycle} {cycle} a1a2"
    ));
    assert!(out[0].contains("game is over"), "{out:?}");
}

#[test]
fn extras_print_board_moves_eval_and_perft() {
    let mut e = started("ugi");
    e.ask("position startpos moves @a1 @b1");
    let d = e.ask("d");
    assert!(d.contains(&"1 | W B . . . . | 1".to_string()), "{d:#?}");
    assert!(d.contains(&"Position: 6/6/6/6/WB4 w 11 11 2 2".to_string()));
    let moves = e.ask_one("moves");
    // 28 placements, the step a1a2 and the capture a1c1.
    assert_eq!(moves.split(' ').count(), 30);
    assert!(moves.contains(" a1c1"));
    // eval prints the searcher's own evaluation of the position.
    let rules = yote::rules::Rules::standard();
    let pos = rules.parse_position("6/6/6/6/WB4 w 11 11 2 2").unwrap();
    let score = yote::eval::evaluate(&rules, &pos);
    let expected = format!("Evaluation: {score} cp for white (player 1)");
    assert!(e.ask("eval").contains(&expected), "{expected}");
    // eval names the evaluation the search would use, as set by the user.
    let uses = |out: Vec<String>| out.into_iter().find(|l| l.starts_with("The search uses"));
    e.ask("setoption name SearchFeatures value -nnue");
    let off = uses(e.ask("eval"));
    assert_eq!(
        off.as_deref(),
        Some("The search uses: the fitted evaluation (SearchFeatures -nnue)")
    );
    e.ask("setoption name SearchFeatures value +nnue");
    assert_eq!(
        uses(e.ask("eval")).as_deref(),
        Some("The search uses: the network")
    );
    e.ask("position startpos");
    let perft = e.ask("perft 2");
    assert_eq!(perft.len(), 32);
    assert_eq!(perft.last().unwrap(), "Nodes searched: 870");
    assert_eq!(e.ask("go perft 3").last().unwrap(), "Nodes searched: 27180");
}

#[test]
fn malformed_input_gets_one_info_string_each() {
    let mut e = started("ugi");
    for line in [
        "foo",
        "GO",
        "go depth",
        "go depth x",
        "go depth 99999999999999999999",
        "go searchmoves",
        "go searchmoves @g9",
        "go fast",
        "isready now",
        "position startpos moves @a1 @a1",
    ] {
        let out = e.ask(line);
        assert_eq!(out.len(), 1, "{line}: {out:?}");
        assert!(out[0].starts_with("info string error"), "{line}: {out:?}");
    }
    assert!(e.ask("").is_empty());
    assert!(e.ask("   \t  ").is_empty());
    e.send_bytes(b"\xff\xfe go \x80\n");
    assert_eq!(errors(&e.sync()), 1);
    // go before position searches the start position and says so.
    let mut fresh = started("ugi");
    fresh.send("go depth 1");
    let lines = fresh.bestmove();
    assert!(lines[0].starts_with("info string no position given"));
}

#[test]
fn commands_during_a_search_do_not_disturb_it() {
    let mut e = started("ugi");
    e.ask("position startpos");
    e.send("go infinite");
    for line in [
        "position startpos moves @a1",
        "setoption name Hash value 32",
        "ucinewgame",
        "d",
        "query fen",
    ] {
        e.ask(line);
    }
    // A `go` during a search stops it: its `bestmove` comes first, then
    // the new search's.
    e.send("go depth 1");
    e.bestmove();
    let new = e.bestmove();
    assert!(new[0].contains("the running search was stopped"), "{new:?}");
    e.send("go depth 2");
    e.bestmove();
}

#[test]
fn end_of_input_stops_the_search_and_prints_bestmove() {
    let mut e = started("ugi");
    e.ask("position startpos");
    e.send("go infinite");
    std::thread::sleep(Duration::from_millis(100));
    let (rest, status) = e.close();
    assert!(status.success());
    assert_eq!(
        rest.iter().filter(|l| l.starts_with("bestmove")).count(),
        1,
        "{rest:?}"
    );
}

#[test]
fn logging_goes_to_stderr_only() {
    let mut e = Engine::start_with_env(&[("RUST_LOG", "trace")]);
    e.send("uci");
    e.until(|l| l == "uciok");
    e.ask("position startpos");
    e.send("go depth 2");
    for line in e.bestmove() {
        assert!(
            line.starts_with("info ") || line.starts_with("bestmove"),
            "{line}"
        );
    }
}

/// Real command lines, the seed of the fuzz test's mutations. Perft and
/// bench are left out: they run in the foreground, and a mutated depth
/// would just be a long computation, not a bug.
const CORPUS: &[&str] = &[
    "uci",
    "ugi",
    "isready",
    "ucinewgame",
    "uginewgame",
    "setoption name Hash value 8",
    "setoption name MultiPV value 2",
    "setoption name Ponder value true",
    "setoption name Variant value 6x6",
    "setoption name Rows value 4",
    "setoption name MultiJump value true",
    "setoption name Removal value board-or-hand",
    "setoption name Clear Hash",
    "setoption name Style value random",
    "position startpos",
    "position startpos moves @c3 @d3 c3c4",
    "position fen 6/6/6/6/WB4 w 10 10 0 1 moves a1c1",
    "position fen 6/6/6/6/6 b 12 12 0 1",
    "go depth 2",
    "go nodes 500",
    "go movetime 5",
    "go wtime 100 btime 100 winc 1 binc 1",
    "go p1time 50 p2time 50 movestogo 3",
    "go infinite",
    "go ponder",
    "go searchmoves @c3 @d4 depth 1",
    "go mate 2",
    "stop",
    "ponderhit",
    "query gameover",
    "query p1turn",
    "query result",
    "query fen",
    "query islegal @a1",
    "d",
    "eval",
    "moves",
];

fn mutate(rng: &mut Rng, line: &str) -> Vec<u8> {
    let mut tokens: Vec<String> = line.split(' ').map(String::from).collect();
    let words = [
        "",
        "-1",
        "18446744073709551616",
        "0",
        "value",
        "moves",
        "fen",
        "@z9",
        "\u{fffd}",
        "name",
    ];
    match rng.below(7) {
        0 => {
            let i = rng.below(tokens.len());
            tokens.remove(i);
        }
        1 => tokens.truncate(rng.below(tokens.len() + 1)),
        2 => {
            let i = rng.below(tokens.len() + 1);
            tokens.insert(i, words[rng.below(words.len())].to_string());
        }
        3 => {
            let (i, j) = (rng.below(tokens.len()), rng.below(tokens.len()));
            tokens.swap(i, j);
        }
        4 => tokens.push(tokens[rng.below(tokens.len())].clone()),
        _ => {}
    }
    let mut bytes = tokens
        .join(if rng.below(4) == 0 { "  \t" } else { " " })
        .into_bytes();
    if rng.below(5) == 0 && !bytes.is_empty() {
        let i = rng.below(bytes.len());
        bytes[i] = rng.next() as u8;
    }
    bytes.retain(|&b| b != b'\n');
    bytes
}

/// Reads everything the engine printed so far. The fuzz lines include
/// `isready`, so a `readyok` does not mark the end: a command no mutation
/// can produce does.
fn drain(e: &mut Engine) {
    e.send("fuzz-sentinel-0x5eed");
    e.until(|l| l.contains("fuzz-sentinel-0x5eed"));
    e.sync();
}

#[test]
fn fuzzed_input_never_breaks_the_engine() {
    let mut rng = Rng(0x5eed_1234_abcd_0001);
    let mut e = started("ugi");
    for i in 0..4000 {
        let mut line = match rng.below(4) {
            0 => (0..rng.below(40))
                .map(|_| rng.next() as u8)
                .filter(|&b| b != b'\n')
                .collect(),
            _ => {
                let seed_line = CORPUS[rng.below(CORPUS.len())];
                mutate(&mut rng, seed_line)
            }
        };
        line.push(b'\n');
        e.send_bytes(&line);
        if i % 500 == 0 {
            drain(&mut e);
        }
    }
    e.send("stop");
    drain(&mut e);
    assert_eq!(e.ask_one("query p1turn").split(' ').count(), 2);
    e.ask("setoption name Variant value standard");
    e.ask("setoption name Style value search");
    // The fuzz may have switched Ponder on; with it off, bestmove is two tokens.
    e.ask("setoption name Ponder value false");
    e.ask("position startpos");
    e.send("go depth 2");
    assert_eq!(e.bestmove().pop().unwrap().split(' ').count(), 2);
}

#[test]
fn example_analysis_script_runs() {
    let script = concat!(env!("CARGO_MANIFEST_DIR"), "/scripts/clients/analyse.py");
    let out = std::process::Command::new("python3")
        .args([
            script,
            "--engine",
            support::BIN,
            "--moves",
            "@c3 @d3",
            "--multipv",
            "2",
            "--seconds",
            "0.3",
        ])
        .output()
        .expect("run python3");
    let stdout = String::from_utf8_lossy(&out.stdout);
    assert!(
        out.status.success(),
        "{stdout}\n{}",
        String::from_utf8_lossy(&out.stderr)
    );
    assert!(stdout.contains("best move: "), "{stdout}");
}

// ---------------------------------------------------------------------------
// Benchmarks (ignored): `cargo test --release --test protocol -- --ignored
// --nocapture`. They print the figures quoted in docs/measurements.md.

fn millis(d: Duration) -> f64 {
    d.as_secs_f64() * 1000.0
}

#[test]
#[ignore]
fn bench_stop_and_isready_latency() {
    let mut e = started("ugi");
    e.ask("position startpos moves @c3 @d3");
    let (mut ready, mut stop) = (Vec::new(), Vec::new());
    for _ in 0..200 {
        e.send("go infinite");
        std::thread::sleep(Duration::from_millis(20));
        let sent = Instant::now();
        e.send("isready");
        let (at, _) = loop {
            let (at, line) = e.next_timed(support::PATIENCE).expect("readyok");
            if line == "readyok" {
                break (at, line);
            }
        };
        ready.push(millis(at - sent));
        let sent = Instant::now();
        e.send("stop");
        let (at, _) = loop {
            let (at, line) = e.next_timed(support::PATIENCE).expect("bestmove");
            if line.starts_with("bestmove") {
                break (at, line);
            }
        };
        stop.push(millis(at - sent));
    }
    let max = |v: &[f64]| v.iter().copied().fold(0.0, f64::max);
    println!(
        "isready during search: median {:.3} ms, max {:.3} ms (200 samples)",
        median(ready.clone()),
        max(&ready)
    );
    println!(
        "stop to bestmove: median {:.3} ms, max {:.3} ms (200 samples)",
        median(stop.clone()),
        max(&stop)
    );
    let (moves, _) = long_game(600, 7);
    let command = format!("position startpos moves {}", moves.join(" "));
    let mut rounds = Vec::new();
    for _ in 0..200 {
        let sent = Instant::now();
        e.send(&command);
        e.send("query p1turn");
        e.until(|l| l.starts_with("response"));
        rounds.push(millis(sent.elapsed()));
    }
    println!(
        "position with {} moves + query: median {:.3} ms, max {:.3} ms (200 samples)",
        moves.len(),
        median(rounds.clone()),
        max(&rounds)
    );
}

/// Two engines play 1 s + 10 ms games through the protocol, refereed by the
/// rules library, the clock kept by this harness from the pipe's timings.
#[test]
#[ignore]
fn bench_bullet_games_never_lose_on_time() {
    let games: usize = std::env::var("YOTE_BULLET_GAMES")
        .ok()
        .and_then(|s| s.parse().ok())
        .unwrap_or(200);
    let (mut losses, mut plies_total, mut min_left) = (0, 0, i64::MAX);
    for g in 0..games {
        let (flagged, plies, left) = bullet_game(g % 2 == 1);
        losses += usize::from(flagged);
        plies_total += plies;
        min_left = min_left.min(left);
    }
    println!(
        "{games} games at 1 s + 10 ms: {losses} lost on time, {plies_total} moves, least time left {min_left} ms"
    );
    assert_eq!(losses, 0);
}

/// Plays one game; returns (someone flagged, plies, least time left in ms).
fn bullet_game(swap: bool) -> (bool, usize, i64) {
    const INC: i64 = 10;
    const MAX_PLIES: usize = 200;
    let mut engines = [started("ugi"), started("ugi")];
    for e in &mut engines {
        e.ask("setoption name NoCaptureDraw value 100");
        e.ask("setoption name RepetitionDraw value 3");
        e.ask("uginewgame");
    }
    let rules = Rules::new(
        yote::rules::Variant::from_spec("no_capture_draw=100,repetition_draw=3").unwrap(),
    )
    .unwrap();
    let mut game = Game::new(rules.clone());
    let mut clock = [1000i64, 1000];
    let mut moves: Vec<String> = Vec::new();
    let mut least = i64::MAX;
    while game.status().is_none() && moves.len() < MAX_PLIES {
        let side = game.position().side_to_move().index();
        let e = &mut engines[side ^ usize::from(swap)];
        e.ask(&format!("position startpos moves {}", moves.join(" ")));
        let sent = Instant::now();
        e.send(&format!(
            "go p1time {} p2time {} p1inc {INC} p2inc {INC}",
            clock[0], clock[1]
        ));
        let lines = e.bestmove();
        let took = sent.elapsed().as_millis() as i64;
        let before = clock[side];
        clock[side] -= took;
        least = least.min(clock[side]);
        if clock[side] < 0 {
            // Tells a slow search (its own `time`) from a slow machine or pipe.
            let searched = lines.iter().rev().find_map(|l| field(l, "time"));
            println!(
                "lost on time at ply {}: had {before} ms, took {took} ms, search reported {searched:?} ms",
                moves.len()
            );
            return (true, moves.len(), least);
        }
        let best = lines.last().unwrap();
        clock[side] += INC;
        let text = best.split(' ').nth(1).unwrap().to_string();
        let mv = rules
            .parse_move(game.position(), &text)
            .expect("legal bestmove");
        game.play(&mv);
        moves.push(text);
    }
    (false, moves.len(), least)
}

#[test]
fn exec_runs_commands_given_as_arguments() {
    let out = std::process::Command::new(support::BIN)
        .args([
            "exec",
            "position startpos moves @c3",
            "query fen",
            "go depth 2",
        ])
        .output()
        .expect("run yote exec");
    assert!(out.status.success());
    let stdout = String::from_utf8_lossy(&out.stdout);
    let lines: Vec<&str> = stdout.lines().collect();
    assert_eq!(lines[0], "response 6/6/2W3/6/6 b 11 12 1 1");
    assert!(lines.last().unwrap().starts_with("bestmove "), "{stdout}");
}

/// Tournament managers resend the whole game before every `go`; the engine
/// replays only the new moves, and must still notice a changed history.
#[test]
fn position_commands_that_extend_or_rewrite_the_game() {
    let mut e = started("ugi");
    let fen = |e: &mut support::Engine| e.ask_one("query fen");
    e.ask("position startpos moves @a1 @b1");
    e.ask("position startpos moves @a1 @b1 a1c1");
    assert_eq!(fen(&mut e), "response 6/6/6/6/2W3 b 11 11 0 2");
    // Same length, different history: rebuilt from the start.
    e.ask("position startpos moves @a1 @f5 a1a2");
    assert_eq!(fen(&mut e), "response 5B/6/6/W5/6 b 11 11 3 2");
    // An illegal new move: no position until a valid one, and the next
    // valid extension still replays onto the game as it was.
    let err = e.ask("position startpos moves @a1 @f5 a1a2 @a2");
    assert!(err[0].contains("move 4"), "{err:?}");
    assert_eq!(fen(&mut e), "response none");
    e.ask("position startpos moves @a1 @f5 a1a2 @c3");
    assert_eq!(fen(&mut e), "response 5B/6/2B3/W5/6 w 11 10 4 3");
    // A different base is never taken for an extension.
    e.ask("position fen 6/6/6/6/6 w 12 12 0 1 moves @a1 @f5 a1a2 @c3 a2a3");
    assert_eq!(fen(&mut e), "response 5B/6/W1B3/6/6 b 11 10 5 3");
}

/// A GUI that plays a capture as two turns: it sets up the position after
/// the jump, owing its removal, and asks for, checks and plays the removal
/// alone (issue 9).
#[test]
fn captures_played_as_two_turns() {
    let mut e = started("ugi");
    let owing = "6/6/2W3/2B3/B4B w 11 9 0 3 x1";
    e.ask(&format!("position fen {owing}"));
    assert_eq!(e.ask_one("query fen"), format!("response {owing}"));
    assert_eq!(e.ask_one("moves"), "xa1 xf1 xc2");
    assert_eq!(e.ask_one("query gameover"), "response false");
    assert_eq!(e.ask_one("query p1turn"), "response true");
    for (mv, legal) in [
        ("xc2", true),
        ("xa1", true),
        ("xd4", false),
        ("x@", false),
        ("c3c4", false),
        ("@a5", false),
    ] {
        assert_eq!(
            e.ask_one(&format!("query islegal {mv}")),
            format!("response {legal}"),
            "{mv}"
        );
    }
    assert_eq!(e.ask("perft 1").last().unwrap(), "Nodes searched: 3");
    let d = e.ask("d");
    assert!(
        d.contains(&"Status: in progress, white owes 1 removal(s) for its jump".to_string()),
        "{d:?}"
    );
    e.send("go depth 4");
    let lines = e.bestmove();
    let best = lines.last().unwrap();
    assert!(
        ["bestmove xa1", "bestmove xf1", "bestmove xc2"].contains(&best.as_str()),
        "{lines:?}"
    );
    e.send("go depth 2 searchmoves xf1");
    assert_eq!(e.bestmove().last().unwrap(), "bestmove xf1");
    // The removal ends the turn: Black is on move, the counters as after a capture.
    e.ask(&format!("position fen {owing} moves xc2"));
    assert_eq!(e.ask_one("query p1turn"), "response false");
    assert_eq!(e.ask_one("query fen"), "response 6/6/2W3/6/B4B b 11 9 0 3");
    // Anything but a removal is refused while one is owed; a removal is
    // refused where none is owed; after either the engine answers for no
    // position until a valid one arrives.
    let out = e.ask(&format!("position fen {owing} moves c3c4"));
    assert!(out[0].contains("owes 1 removal"), "{out:?}");
    let out = e.ask("position startpos moves @c3 xa1");
    assert!(out[0].contains("no removal is owed here"), "{out:?}");
    assert_eq!(e.ask_one("query fen"), "response none");
    e.ask(&format!("position fen {owing} moves xc2"));
    assert_eq!(e.ask_one("query fen"), "response 6/6/2W3/6/B4B b 11 9 0 3");
    // Malformed owed fields get typed errors.
    for (text, reason) in [
        (
            "6/6/2W3/2B3/B4B w 11 9 0 3 x0",
            "owed removals must be written",
        ),
        ("6/6/2W3/2B3/B4B w 11 9 x1 3", "must be the last field"),
        (
            "6/6/2W3/2B3/B4B w 11 9 0 3 x2",
            "more than one move can capture",
        ),
    ] {
        let out = e.ask(&format!("position fen {text}"));
        assert!(out.len() == 1 && out[0].contains(reason), "{text}: {out:?}");
    }
    // With BonusTurn the capturer moves again after its removal; with
    // MultiJump a chain's removals come in one move.
    e.ask("setoption name Variant value all-options");
    e.ask("position fen 6/6/2W3/2B3/B4B w 11 9 0 3 x2 moves xa1xc2");
    assert_eq!(e.ask_one("query p1turn"), "response true");
    assert_eq!(e.ask_one("query fen"), "response 6/6/2W3/6/5B w 11 9 0 3");
    e.ask("position fen 6/6/2W3/2B3/B4B w 11 9 0 3 x2");
    e.send("go depth 3");
    let best = e.bestmove().last().unwrap().clone();
    assert_eq!(best.matches('x').count(), 2, "{best}");
    assert_eq!(errors(&e.sync()), 0);
}

/// Variant takes every spec the engine prints, so one option sets all the
/// rules whatever the order of the others; a Variant that resets a rule no
/// preset sets says so (issue 9).
#[test]
fn variant_carries_the_whole_rule_set() {
    let variant_line = |lines: &[String]| {
        lines
            .iter()
            .find(|l| l.starts_with("info string variant "))
            .cloned()
            .unwrap_or_else(|| panic!("no variant line in {lines:?}"))
    };
    let spec_of = |line: &str| line.split(' ').nth(3).unwrap().to_string();
    let mut e = started("uci");
    // Every preset and a custom rule set built option by option.
    let mut printed = Vec::new();
    for preset in yote::rules::Variant::PRESETS.iter().map(|p| p.name) {
        printed.push(variant_line(
            &e.ask(&format!("setoption name Variant value {preset}")),
        ));
    }
    for option in [
        "Rows value 7",
        "Removal value board-then-hand",
        "MultiJump value true",
        "NoCaptureDraw value 80",
        "NoCaptureOutcome value more-pieces",
        "RepetitionDraw value 3",
    ] {
        printed.push(variant_line(&e.ask(&format!("setoption name {option}"))));
    }
    for line in printed {
        let mut fresh = started("uci");
        let echoed =
            variant_line(&fresh.ask(&format!("setoption name Variant value {}", spec_of(&line))));
        assert_eq!(echoed, line);
    }
    // The manager's sequence: NoCaptureDraw then a preset. The rule
    // option set on its own stays on top of the preset (issue 40), and
    // the engine says so.
    let mut e = started("ugi");
    e.ask("setoption name NoCaptureDraw value 100");
    let out = e.ask("setoption name Variant value hand-removal");
    assert!(
        variant_line(&out).contains(",no_capture_draw=100,"),
        "{out:?}"
    );
    assert!(
        out.iter()
            .any(|l| l.contains("Variant hand-removal") && l.contains("NoCaptureDraw 100")),
        "{out:?}"
    );
    // A spec that set a rule is replaced whole by the next spec: that one
    // still warns.
    e.ask("setoption name Variant value standard,repetition_draw=3");
    let out = e.ask("setoption name Variant value hand-removal");
    assert!(
        out.iter().any(
            |l| l.starts_with("info string warning: Variant sets every rule")
                && l.contains("RepetitionDraw 3 -> 0")
                && l.ends_with("setoption name Variant value hand-removal,repetition_draw=3")
        ),
        "{out:?}"
    );
    // The spec form keeps it, in one option, and warns about nothing.
    let out = e.ask("setoption name Variant value hand-removal,no_capture_draw=100");
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(out[0].contains("removal=board-or-hand,") && out[0].contains(",no_capture_draw=100,"));
    // Bad values change nothing.
    for bad in [
        "setoption name Variant value",
        "setoption name Variant value chess",
        "setoption name Variant value standard,colour=blue",
        "setoption name Variant value rows=9",
        "setoption name Variant value no_capture_outcome=maybe",
    ] {
        let out = e.ask(bad);
        assert!(
            out.len() == 1 && out[0].starts_with("info string error: option Variant"),
            "{bad}: {out:?}"
        );
    }
    let out = e.ask("setoption name NoCaptureDraw value 100");
    assert!(
        variant_line(&out).contains("removal=board-or-hand,"),
        "{out:?}"
    );
}

/// NoCaptureOutcome more-pieces: the no-capture limit gives the game to the
/// side with more pieces, in the queries and in the search (issue 9).
#[test]
fn no_capture_limit_judged_on_material_through_the_protocol() {
    // White (3 pieces) against Black (2): any quiet move reaches the limit.
    let fen = "W5/W5/W5/6/4BB w 0 0 3 10";
    let search = |e: &mut Engine| {
        e.send(&format!("position fen {fen}"));
        e.send("go depth 3");
        let lines = e.bestmove();
        let last_info = lines.iter().rev().find(|l| l.starts_with("info depth"));
        (last_info.unwrap().clone(), lines)
    };
    let mut e = started("ugi");
    e.ask("setoption name Variant value no_capture_draw=4,no_capture_outcome=more-pieces");
    let (last_info, lines) = search(&mut e);
    assert!(last_info.contains("score mate 1"), "{lines:?}");
    let best = lines.last().unwrap().split(' ').nth(1).unwrap().to_string();
    e.ask(&format!("position fen {fen} moves {best}"));
    assert_eq!(e.ask_one("query gameover"), "response true");
    assert_eq!(e.ask_one("query result"), "response p1win");
    e.send("go depth 2");
    let lines = e.bestmove();
    assert_eq!(
        lines,
        [
            "info string game over: white wins: no-capture limit reached",
            "bestmove (none)"
        ]
    );
    // As a draw, the same limit scores 0.
    e.ask("setoption name NoCaptureOutcome value draw");
    let (last_info, lines) = search(&mut e);
    assert!(last_info.contains("score cp 0"), "{lines:?}");
}

/// The plies since capture and the move number are each optional, and
/// `query fen` prints them all (issue 9).
#[test]
fn trailing_position_fields_are_each_optional() {
    let mut e = started("ugi");
    for (given, printed) in [
        ("6/6/6/6/W5 b 11 12", "6/6/6/6/W5 b 11 12 0 1"),
        ("6/6/6/6/W5 b 11 12 7", "6/6/6/6/W5 b 11 12 7 1"),
        ("6/6/6/6/W5 b 11 12 7 4", "6/6/6/6/W5 b 11 12 7 4"),
    ] {
        assert!(e.ask(&format!("position fen {given}")).is_empty());
        assert_eq!(e.ask_one("query fen"), format!("response {printed}"));
        assert!(e.ask(&format!("position fen {printed}")).is_empty());
    }
    let out = e.ask("position fen 6/6/6/6/W5 b 11 12 7 4 1");
    assert!(out[0].contains("expected 4 to 6 fields"), "{out:?}");
    // A rejected position leaves no position to report until a valid one.
    assert_eq!(e.ask_one("query fen"), "response none");
}

#[test]
fn skill_level_caps_the_search_and_20_is_full_strength() {
    let mut e = started("ugi");
    assert!(e.ask("setoption name Skill Level value 14").is_empty());
    e.send("position startpos moves @c3 @d3");
    e.send("go depth 40");
    let lines = e.bestmove();
    let nodes = lines
        .iter()
        .filter_map(|l| field(l, "nodes"))
        .max()
        .unwrap();
    // Level 14's budget: 1000 nodes x 2^1.25.
    assert!(nodes <= 2378 + 64, "{lines:?}");
    assert!(lines.last().unwrap().starts_with("bestmove "), "{lines:?}");
    assert!(e.ask("setoption name Skill Level value 20").is_empty());
    e.send("go depth 7");
    let lines = e.bestmove();
    assert!(
        lines.iter().any(|l| field(l, "depth") == Some(7)),
        "{lines:?}"
    );
}

/// Issue 17: `Variant` is a combo of the presets, so managers that check a
/// combo's value (cutechess) or drop unknown ones (fastchess) could not
/// send the rule spec. `VariantSpec` is a string option that takes it;
/// `UCI_Variant` (Fairy-Stockfish's name, which its front ends send) is
/// the presets' combo under that name.
#[test]
fn the_rule_spec_has_a_string_option_and_uci_variant_is_the_combo() {
    let mut e = Engine::start();
    e.send("uci");
    let lines = e.until(|l| l == "uciok");
    let presets: String = yote::rules::Variant::PRESETS
        .iter()
        .map(|p| format!(" var {}", p.name))
        .collect();
    for expected in [
        format!("option name Variant type combo default standard{presets}"),
        "option name VariantSpec type string default standard".to_string(),
        format!("option name UCI_Variant type combo default standard{presets}"),
    ] {
        assert!(lines.contains(&expected), "missing {expected}: {lines:#?}");
    }
    let spec = "hand-removal,no_capture_draw=100,no_capture_outcome=more-pieces";
    let by_spec = e.ask(&format!("setoption name VariantSpec value {spec}"));
    assert_eq!(by_spec.len(), 1, "{by_spec:?}");
    let mut other = started("uci");
    let by_variant = other.ask(&format!("setoption name Variant value {spec}"));
    assert_eq!(by_spec, by_variant);
    assert!(by_spec[0].contains(",no_capture_draw=100,"), "{by_spec:?}");
    let out = e.ask("setoption name UCI_Variant value 6x6");
    assert!(
        out[0].starts_with("info string variant 6x6,rows=6,")
            && out[1].starts_with("info string warning: UCI_Variant sets every rule"),
        "{out:?}"
    );
    // Refusals name the option that was sent, and change nothing.
    let out = e.ask("setoption name VariantSpec value rows=2");
    assert!(
        out.len() == 1 && out[0].starts_with("info string error: option VariantSpec: "),
        "{out:?}"
    );
    assert_eq!(e.ask_one("query fen"), "response 6/6/6/6/6/6 w 12 12 0 1");
    // Its reset warning names it too.
    e.ask("setoption name VariantSpec value standard,no_capture_draw=50");
    let out = e.ask("setoption name VariantSpec value boxed");
    assert!(
        out.iter()
            .any(|l| l.ends_with("setoption name VariantSpec value boxed,no_capture_draw=50")),
        "{out:?}"
    );
}

/// The spec of the last `info string variant` line among `lines`.
fn last_variant_spec(lines: &[String]) -> Option<String> {
    lines
        .iter()
        .rev()
        .find(|l| l.starts_with("info string variant "))
        .map(|l| l.split(' ').nth(3).unwrap_or_default().to_string())
}

/// Every ordering of `items` (Heap's algorithm would do; three or four
/// items are few enough for the plain recursion).
fn permutations<T: Clone>(items: &[T]) -> Vec<Vec<T>> {
    if items.len() <= 1 {
        return vec![items.to_vec()];
    }
    let mut all = Vec::new();
    for i in 0..items.len() {
        let mut rest = items.to_vec();
        let first = rest.remove(i);
        for mut tail in permutations(&rest) {
            tail.insert(0, first.clone());
            all.push(tail);
        }
    }
    all
}

/// Issue 40, trap 1: a manager that sends options in hash order (cutegames)
/// sent `WinCondition capture-all` before `UCI_Variant standard`, which
/// reset it: the games were played at one-left with no warning. Rule
/// options set on their own now apply on top of any preset, whichever
/// arrived first: every permutation of a preset and two rule options reads
/// back the same `VariantSpec`.
#[test]
fn rule_options_compose_with_a_preset_in_any_order() {
    for (options, expected) in [
        (
            [
                "UCI_Variant value standard",
                "WinCondition value capture-all",
                "NoCaptureDraw value 100",
            ],
            "rows=5,cols=6,pieces=12,removal=board,win=capture-all,no_moves=loses,\
             mandatory_capture=false,multi_jump=false,bonus_turn=false,jump_own=false,\
             three_draw=false,no_capture_draw=100,no_capture_outcome=draw,repetition_draw=0",
        ),
        (
            [
                "Variant value all-options",
                "MultiJump value false",
                "RepetitionDraw value 3",
            ],
            "rows=5,cols=6,pieces=12,removal=board,win=one-left,no_moves=more-pieces,\
             mandatory_capture=false,multi_jump=false,bonus_turn=true,jump_own=true,\
             three_draw=true,no_capture_draw=0,no_capture_outcome=draw,repetition_draw=3",
        ),
        (
            [
                "VariantSpec value 6x6",
                "Removal value board-or-hand",
                "NoCaptureOutcome value more-pieces",
            ],
            "rows=6,cols=6,pieces=12,removal=board-or-hand,win=one-left,no_moves=loses,\
             mandatory_capture=false,multi_jump=false,bonus_turn=false,jump_own=false,\
             three_draw=false,no_capture_draw=0,no_capture_outcome=more-pieces,repetition_draw=0",
        ),
    ] {
        for order in permutations(&options) {
            let mut e = started("uci");
            let mut lines = Vec::new();
            for option in &order {
                let out = e.ask(&format!("setoption name {option}"));
                assert_eq!(errors(&out), 0, "{order:?}: {out:?}");
                lines.extend(out);
            }
            assert_eq!(
                last_variant_spec(&lines).as_deref(),
                Some(expected),
                "{order:?}: {lines:#?}"
            );
            // The rules in force are those: the start position of a 6×6
            // board, the draw rule that ends a game.
            let variant_line = lines
                .iter()
                .rev()
                .find(|l| l.starts_with("info string variant"));
            let start = variant_line.unwrap().split(" startpos ").nth(1).unwrap();
            assert_eq!(e.ask_one("query fen"), format!("response {start}"));
        }
    }
}

/// Issue 40, trap 1: a preset that arrives after a rule option says which
/// of its rules the session's own options override (no silent surprise),
/// and a spec that names the rule itself is the later word.
#[test]
fn a_preset_names_the_rule_options_kept_on_top_of_it() {
    let mut e = started("uci");
    e.ask("setoption name WinCondition value capture-all");
    let out = e.ask("setoption name UCI_Variant value classic");
    // classic already has capture-all: nothing overridden, nothing said.
    assert_eq!(out.len(), 1, "{out:?}");
    let out = e.ask("setoption name UCI_Variant value standard");
    assert!(
        out.iter().any(|l| l.starts_with("info string ")
            && l.contains("UCI_Variant standard")
            && l.contains("WinCondition capture-all")),
        "{out:?}"
    );
    assert!(
        last_variant_spec(&out)
            .unwrap()
            .contains(",win=capture-all,"),
        "{out:?}"
    );
    let out = e.ask("setoption name VariantSpec value standard,win=one-left");
    assert!(
        last_variant_spec(&out).unwrap().contains(",win=one-left,"),
        "{out:?}"
    );
    // The spec took the rule back: a later preset no longer keeps it.
    let out = e.ask("setoption name Variant value classic");
    assert!(
        last_variant_spec(&out)
            .unwrap()
            .contains(",win=capture-all,"),
        "{out:?}"
    );
    let out = e.ask("setoption name Variant value standard");
    assert!(
        last_variant_spec(&out).unwrap().contains(",win=one-left,"),
        "{out:?}"
    );
}

/// Issue 40, trap 2: a manager appending its own `moves` to an opening
/// text that already ends in `moves …` sent the keyword twice, which was
/// refused (`move 'moves' is malformed`). It continues the list.
#[test]
fn a_repeated_moves_keyword_continues_the_list() {
    let mut e = started("ugi");
    let fen = "3B2/3W2/6/2B3/B1W3 w 10 9 4 3";
    for (command, expected) in [
        (
            format!("position fen {fen} moves c1c3 moves xd5"),
            "6/3W2/2W3/6/B5 b 10 9 0 3",
        ),
        (
            "position startpos moves @c3 moves @d3 @c4".to_string(),
            "6/2W3/2WB2/6/6 b 10 11 3 2",
        ),
        (
            "position startpos moves moves @c3".to_string(),
            "6/6/2W3/6/6 b 11 12 1 1",
        ),
    ] {
        let out = e.ask(&command);
        assert_eq!(errors(&out), 0, "{command}: {out:?}");
        assert_eq!(
            e.ask_one("query fen"),
            format!("response {expected}"),
            "{command}"
        );
    }
}

/// `go` from the two-turn example of protocol.md: the engine's capture
/// c1c3xd5 (depth 6), so that its memory holds it.
fn engine_chose_c1c3xd5(e: &mut Engine) {
    e.ask("ucinewgame");
    e.ask("position fen 3B2/3W2/6/2B3/B1W3 w 10 9 4 3");
    e.send("go depth 6");
    assert_eq!(e.bestmove().last().unwrap(), "bestmove c1c3xd5");
}

/// Issue 40, trap 3: the memory of the engine's own capture recognised the
/// position after its jump only with the same counters; a GUI that left
/// the move number out (`… 0 x1`) or counted it otherwise (`… 0 4 x1`) got
/// a fresh search, which may choose another piece.
#[test]
fn the_memory_of_its_own_capture_goes_by_the_position_not_its_counters() {
    let mut e = started("ugi");
    for text in [
        "position fen 3B2/3W2/6/2B3/B1W3 w 10 9 4 3 moves c1c3",
        "position fen 3B2/3W2/2W3/6/B5 w 10 9 0 3 x1",
        "position fen 3B2/3W2/2W3/6/B5 w 10 9 0 x1",
        "position fen 3B2/3W2/2W3/6/B5 w 10 9 0 4 x1",
        "position fen 3B2/3W2/2W3/6/B5 w 10 9 0 1 x1",
    ] {
        engine_chose_c1c3xd5(&mut e);
        assert_eq!(errors(&e.ask(text)), 0, "{text}");
        e.send("go depth 6");
        let lines = e.bestmove();
        assert_eq!(
            lines[0], "info string xd5: the rest of this engine's capture c1c3xd5, as chosen then",
            "{text}: {lines:?}"
        );
        assert_eq!(lines.last().unwrap(), "bestmove xd5", "{text}");
    }
    // Another position (a different board) still searches.
    engine_chose_c1c3xd5(&mut e);
    assert_eq!(
        errors(&e.ask("position fen 3B2/3W2/2W3/6/5B w 10 9 0 3 x1")),
        0
    );
    e.send("go depth 2");
    let lines = e.bestmove();
    assert!(
        !lines
            .iter()
            .any(|l| l.contains("the rest of this engine's capture")),
        "{lines:?}"
    );
}

/// Issue 40, trap 4: a GUI that removes one piece per turn asked twice;
/// the second answer named the first answer (`xe1xf1`) as the capture
/// instead of the engine's whole move.
#[test]
fn the_memory_line_names_the_whole_capture_at_every_removal() {
    let mut e = started("ugi");
    e.ask("setoption name Variant value all-options");
    let start = "position fen 6/5B/1B4/B5/W3BB w 1 0";
    e.ask(start);
    e.send("go depth 3");
    let whole = e.bestmove().last().unwrap()[9..].to_string();
    // The chain over a2 and b3 takes two pieces of five: one-left wins.
    let (jump, removals) = whole.split_once('x').unwrap();
    assert_eq!(jump, "a1a3c3", "{whole}");
    let removals: Vec<String> = removals.split('x').map(|r| format!("x{r}")).collect();
    assert_eq!(removals.len(), 2, "{whole}");
    e.ask(&format!("{start} moves {jump}"));
    e.send("go depth 3");
    let lines = e.bestmove();
    let rest = removals.concat();
    assert_eq!(
        lines[0],
        format!("info string {rest}: the rest of this engine's capture {whole}, as chosen then"),
        "{lines:?}"
    );
    e.ask(&format!("{start} moves {jump} {}", removals[0]));
    e.send("go depth 3");
    let lines = e.bestmove();
    assert_eq!(
        lines[0],
        format!(
            "info string {}: the rest of this engine's capture {whole}, as chosen then",
            removals[1]
        ),
        "{lines:?}"
    );
    assert_eq!(lines.last().unwrap(), &format!("bestmove {}", removals[1]));
}

/// Issue 40, trap 5: a GUI whose counter resets after the removal rather
/// than at the jump writes `x<k>` with plies since capture above 0; the
/// text was refused whole and the engine then played nothing. Removals
/// owed mean the last move was a capture: the counter is read as 0, and
/// the engine says so.
#[test]
fn owed_removals_with_a_nonzero_capture_counter_read_it_as_zero() {
    let mut e = started("ugi");
    let out = e.ask("position fen 6/6/2W3/2B3/B4B w 11 9 4 3 x1");
    assert_eq!(errors(&out), 0, "{out:?}");
    assert_eq!(out.len(), 1, "{out:?}");
    assert!(
        out[0].starts_with("info string ")
            && out[0].contains("plies since capture")
            && out[0].contains(" 4 ")
            && out[0].contains(" 0"),
        "{out:?}"
    );
    assert_eq!(
        e.ask_one("query fen"),
        "response 6/6/2W3/2B3/B4B w 11 9 0 3 x1"
    );
    e.send("go depth 3");
    let best = e.bestmove().last().unwrap().clone();
    assert!(
        ["bestmove xa1", "bestmove xf1", "bestmove xc2"].contains(&best.as_str()),
        "{best}"
    );
    // Moves after it are played as usual; other errors are still errors.
    assert!(
        e.ask("position fen 6/6/2W3/2B3/B4B w 11 9 4 3 x1 moves xc2")
            .len()
            == 1
    );
    assert_eq!(e.ask_one("query fen"), "response 6/6/2W3/6/B4B b 11 9 0 3");
    let out = e.ask("position fen 6/6/2W3/2B3/B4B w 11 9 4 3 x2");
    assert!(
        errors(&out) == 1 && out[0].contains("more than one move can capture"),
        "{out:?}"
    );
}

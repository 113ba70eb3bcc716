//! The rules contract, rule by rule: each test builds a position where the
//! rule decides something and checks the exact legal moves or outcome.

use rand::rngs::StdRng;
use rand::{RngExt, SeedableRng};
use std::collections::BTreeSet;
use yote::rules::{
    EndReason, Game, GameEnd, MoveError, MoveList, Outcome, Player, Position, PositionError, Rules,
    Variant, perft,
};

fn rules(spec: &str) -> Rules {
    Rules::new(Variant::from_spec(spec).unwrap()).unwrap()
}

fn pos(rules: &Rules, text: &str) -> Position {
    rules
        .parse_position(text)
        .unwrap_or_else(|e| panic!("{text}: {e}"))
}

/// The legal moves as sorted text.
fn legal(rules: &Rules, pos: &Position) -> BTreeSet<String> {
    let mut list = MoveList::new();
    rules.legal_moves(pos, &mut list);
    list.iter().map(|m| rules.move_text(m)).collect()
}

fn set(texts: &[&str]) -> BTreeSet<String> {
    texts.iter().map(|s| s.to_string()).collect()
}

fn after(rules: &Rules, pos: &Position, mv: &str) -> Position {
    let m = rules
        .parse_move(pos, mv)
        .unwrap_or_else(|e| panic!("{mv}: {e}"));
    let mut next = *pos;
    rules.apply(&mut next, &m);
    next
}

fn win(player: Player, reason: EndReason) -> Option<GameEnd> {
    Some(GameEnd {
        outcome: Outcome::Win(player),
        reason,
    })
}

fn draw(reason: EndReason) -> Option<GameEnd> {
    Some(GameEnd {
        outcome: Outcome::Draw,
        reason,
    })
}

#[test]
fn start_position_and_first_plies() {
    let r = Rules::standard();
    let start = r.start_position();
    assert_eq!(r.position_text(&start), "6/6/6/6/6 w 12 12 0 1");
    assert_eq!(legal(&r, &start).len(), 30);
    assert!(legal(&r, &start).iter().all(|m| m.starts_with('@')));
    let counts: Vec<u64> = (1..=4).map(|d| perft(&r, &start, d).unwrap()).collect();
    assert_eq!(counts, [30, 870, 27180, 823848]);
    assert_eq!(perft(&r, &start, 0).unwrap(), 1);
}

#[test]
fn place_step_and_jump() {
    let r = Rules::standard();
    // White c3 with one piece in hand; Black d3 with an empty e3 beyond it.
    let p = pos(&r, "6/6/2WB2/6/6 w 1 3");
    let moves = legal(&r, &p);
    assert!(moves.contains("@a1"));
    assert!(moves.contains("c3c4") && moves.contains("c3b3") && moves.contains("c3c2"));
    // Black d3 is the only black piece on the board: the jump owes a second
    // piece, but the board has none left and hand pieces are safe.
    assert!(moves.contains("c3e3"));
    assert!(!moves.contains("c3d3"), "cannot step onto a piece");
    assert_eq!(moves.len(), 28 + 3 + 1);
    let q = after(&r, &p, "c3e3");
    assert_eq!(r.position_text(&q), "6/6/4W1/6/6 b 1 3 0 1");
}

#[test]
fn standard_removal_takes_a_board_piece_of_the_capturers_choice() {
    let r = Rules::standard();
    let p = pos(&r, "B5/6/2WB2/6/5B w 1 5");
    let jumps: BTreeSet<_> = legal(&r, &p)
        .into_iter()
        .filter(|m| m.starts_with("c3e3"))
        .collect();
    assert_eq!(jumps, set(&["c3e3xa5", "c3e3xf1"]));
    // Removals are accepted in any order and printed canonically.
    let q = pos(&r, "B5/6/2WB2/6/B4B w 1 5");
    let m = r.parse_move(&q, "c3e3xf1xa1").unwrap_err();
    assert!(
        matches!(m, MoveError::Illegal { .. }),
        "two removals for one jump: {m}"
    );
    assert_eq!(
        r.move_text(&r.parse_move(&q, "c3e3xa5").unwrap()),
        "c3e3xa5"
    );
    let after_jump = after(&r, &q, "c3e3xf1");
    assert_eq!(r.position_text(&after_jump), "B5/6/4W1/6/B5 b 1 5 0 1");
}

#[test]
fn removal_choices_for_each_removal_rule() {
    // White jumps d3 (black's only other board piece is a5); black has 2 in hand.
    let text = "B5/6/2WB2/6/6 w 1 2";
    let jumps = |spec: &str| -> BTreeSet<String> {
        let r = rules(spec);
        legal(&r, &pos(&r, text))
            .into_iter()
            .filter(|m| m.starts_with("c3e3"))
            .collect()
    };
    assert_eq!(jumps("removal=board"), set(&["c3e3xa5"]));
    assert_eq!(jumps("removal=board-or-hand"), set(&["c3e3xa5", "c3e3x@"]));
    assert_eq!(jumps("removal=board-then-hand"), set(&["c3e3xa5"]));
    assert_eq!(jumps("removal=none"), set(&["c3e3"]));
    // With the board bare after the jump: the hand is safe, open, or forced.
    let bare = "6/6/2WB2/6/6 w 1 2";
    let jumps = |spec: &str| -> BTreeSet<String> {
        let r = rules(spec);
        legal(&r, &pos(&r, bare))
            .into_iter()
            .filter(|m| m.starts_with("c3e3"))
            .collect()
    };
    assert_eq!(jumps("removal=board"), set(&["c3e3"]));
    assert_eq!(jumps("removal=board-or-hand"), set(&["c3e3x@"]));
    assert_eq!(jumps("removal=board-then-hand"), set(&["c3e3x@"]));
    // Removal from an empty hand: nothing is owed.
    let r = rules("removal=board-or-hand");
    let empty_hand = pos(&r, "6/6/2WB2/6/B5 w 1 0");
    let moves: BTreeSet<_> = legal(&r, &empty_hand)
        .into_iter()
        .filter(|m| m.starts_with("c3e3"))
        .collect();
    assert_eq!(moves, set(&["c3e3xa1"]));
}

#[test]
fn a_jump_without_its_forced_removal_owes_it() {
    let r = rules("removal=board-or-hand");
    let p = pos(&r, "6/6/2WB2/6/6 w 1 2");
    let jump = r.parse_move(&p, "c3e3").unwrap();
    assert_eq!(jump.owed_after(), 1);
    assert_eq!(
        r.position_text(&r.played(&p, &jump)),
        "6/6/4W1/6/6 w 1 2 0 1 x1"
    );
    let err = r.parse_move(&p, "c3e3xc3").unwrap_err().to_string();
    assert!(err.contains("c3e3x@"), "{err}");
    assert_eq!(r.parse_move(&p, "c3e3x@").unwrap().owed_after(), 0);
}

#[test]
fn multi_jump_chains_every_prefix_is_a_move() {
    let r = rules("multi_jump=true,removal=none");
    // White a1; black a2 and b3; landing cells a3 and c3 are empty.
    let p = pos(&r, "6/6/1B4/B5/W5 w 1 4");
    let jumps: BTreeSet<_> = legal(&r, &p)
        .into_iter()
        .filter(|m| m.starts_with("a1a3"))
        .collect();
    assert_eq!(jumps, set(&["a1a3", "a1a3c3"]));
    let q = after(&r, &p, "a1a3c3");
    assert_eq!(r.position_text(&q), "6/6/2W3/6/6 b 1 4 0 1");
}

#[test]
fn multi_jump_owes_one_removal_per_jumped_piece() {
    let r = rules("multi_jump=true");
    // Two jumps take a2 and b3, then two of black's three other pieces go.
    let p = pos(&r, "6/5B/1B4/B5/W3BB w 1 0");
    let chains: BTreeSet<_> = legal(&r, &p)
        .into_iter()
        .filter(|m| m.starts_with("a1a3c3"))
        .collect();
    assert_eq!(
        chains,
        set(&["a1a3c3xe1xf1", "a1a3c3xe1xf4", "a1a3c3xf1xf4"])
    );
    // A chain that owes more removals than the enemy has left takes them all.
    let q = pos(&r, "6/6/1B4/B5/W4B w 1 0");
    let chains: BTreeSet<_> = legal(&r, &q)
        .into_iter()
        .filter(|m| m.starts_with("a1a3c3"))
        .collect();
    assert_eq!(chains, set(&["a1a3c3xf1"]));
}

#[test]
fn multi_jump_never_lands_twice_on_a_cell() {
    let r = rules("multi_jump=true,jump_own=true,removal=none");
    // White a1 ringed by own pieces a2, b3, c2, b1: jumping round the ring
    // would come back to a1 (the start cell) and is cut there.
    let p = pos(&r, "6/6/1W4/W1W3/WW4 w 0 2");
    for m in legal(&r, &p) {
        let cells: Vec<&str> = (0..m.len() / 2).map(|i| &m[2 * i..2 * i + 2]).collect();
        let unique: BTreeSet<_> = cells.iter().collect();
        assert_eq!(unique.len(), cells.len(), "{m} revisits a cell");
    }
    assert!(legal(&r, &p).contains("a1a3c3c1"));
    assert!(r.parse_move(&p, "a1a3c3c1a1").is_err());
    assert!(r.parse_move(&p, "a1c1c3a3a1").is_err());
    assert!(legal(&r, &p).contains("a1c1c3a3"));
}

#[test]
fn jump_own_is_a_move_but_not_a_capture() {
    let r = rules("jump_own=true");
    let p = pos(&r, "6/6/WW4/6/B5 w 0 3");
    assert!(legal(&r, &p).contains("a3c3"));
    let q = after(&r, &p, "a3c3");
    assert_eq!(r.position_text(&q), "6/6/1WW3/6/B5 b 0 3 1 1");
    // Under MandatoryCapture an own jump is no capture, so it does not force.
    let r = rules("jump_own=true,mandatory_capture=true");
    let p = pos(&r, "6/6/WW4/6/B5 w 1 3");
    assert!(legal(&r, &p).contains("@f5"));
    let without = rules("standard");
    assert!(!legal(&without, &pos(&without, "6/6/WW4/6/B5 w 0 3")).contains("a3c3"));
}

#[test]
fn mandatory_capture_leaves_only_captures() {
    let r = rules("mandatory_capture=true");
    let p = pos(&r, "6/6/2WB2/6/B5 w 3 3");
    assert_eq!(legal(&r, &p), set(&["c3e3xa1"]));
    let err = r.parse_move(&p, "@a5").unwrap_err().to_string();
    assert!(err.contains("mandatory"), "{err}");
    // With no capture on the board, everything is open again.
    let q = pos(&r, "6/6/2W3/6/B5 w 3 3");
    assert!(legal(&r, &q).len() > 20);
    // With MultiJump and JumpOwn: a chain that jumps own then enemy is a
    // capture; its own-only prefix is not, so it is not legal here.
    let spec = "multi_jump=true,jump_own=true,removal=none";
    let chain = "6/B5/6/W5/W5 w 0 3";
    let open = rules(spec);
    assert!(legal(&open, &pos(&open, chain)).contains("a1a3"));
    let r = rules(&format!("{spec},mandatory_capture=true"));
    assert_eq!(legal(&r, &pos(&r, chain)), set(&["a1a3a5"]));
}

#[test]
fn bonus_turns_keep_the_capturer_on_move_and_chain() {
    let r = rules("bonus_turn=true,removal=none");
    let p = pos(&r, "6/6/WB1B2/6/6 w 2 5");
    let q = after(&r, &p, "a3c3");
    assert_eq!(
        q.side_to_move(),
        Player::White,
        "a capture earns a bonus turn"
    );
    let s = after(&r, &q, "c3e3");
    assert_eq!(
        s.side_to_move(),
        Player::White,
        "bonus turns chain while capturing"
    );
    let t = after(&r, &s, "@a1");
    assert_eq!(
        t.side_to_move(),
        Player::Black,
        "a quiet move passes the turn"
    );
    // Own jumps earn nothing.
    let r = rules("bonus_turn=true,jump_own=true");
    let p = pos(&r, "6/6/WW4/6/B5 w 0 3");
    assert_eq!(after(&r, &p, "a3c3").side_to_move(), Player::Black);
    // Black's moves advance the move number, bonus moves included.
    let r = rules("bonus_turn=true,removal=none");
    let p = pos(&r, "6/6/BW1W2/6/6 b 2 5 0 7");
    let q = after(&r, &p, "a3c3");
    assert_eq!(q.move_number(), 8);
    assert_eq!(after(&r, &q, "c3e3").move_number(), 9);
}

#[test]
fn game_end_rules_in_order() {
    // (a) one-left: a player with one piece or none has lost.
    let r = Rules::standard();
    assert_eq!(
        r.status(&pos(&r, "6/6/2WW2/6/B5 w 0 0")),
        win(Player::White, EndReason::FewPieces)
    );
    assert_eq!(
        r.status(&pos(&r, "6/6/2W3/6/B5 w 1 0")),
        win(Player::White, EndReason::FewPieces)
    );
    assert_eq!(r.status(&pos(&r, "6/6/2W3/6/B5 w 1 1")), None);
    // Both at the limit in a set-up position: a draw.
    assert_eq!(
        r.status(&pos(&r, "6/6/2W3/6/B5 w 0 0")),
        draw(EndReason::FewPieces)
    );
    // capture-all: one piece is still alive.
    let c = rules("win=capture-all");
    assert_eq!(c.status(&pos(&c, "6/6/2W3/6/B5 w 0 0")), None);
    assert_eq!(
        c.status(&pos(&c, "6/6/2W3/6/6 b 0 0")),
        win(Player::White, EndReason::FewPieces)
    );
    // (a) before (b): with ThreeDraw, a player with no piece has still lost.
    let k = rules("classic");
    assert_eq!(
        k.status(&pos(&k, "6/6/2WW2/6/6 b 0 0")),
        win(Player::White, EndReason::FewPieces)
    );
    assert_eq!(
        k.status(&pos(&k, "6/6/2WW2/6/B5 b 0 0")),
        draw(EndReason::ThreeDraw)
    );
    assert_eq!(k.status(&pos(&k, "6/6/2WWW1/6/B5 b 1 0")), None);
    // (b) holds whatever moves are left.
    assert_eq!(
        k.status(&pos(&k, "WBB3/B5/6/6/6 w 0 0")),
        draw(EndReason::ThreeDraw)
    );
    // (c) no legal move: white's two pieces are boxed in.
    let stuck = "WBB3/B5/B4B/5B/3BBW w 0 0";
    assert_eq!(
        r.status(&pos(&r, stuck)),
        win(Player::Black, EndReason::NoMoves)
    );
    let m = rules("no_moves=more-pieces");
    assert_eq!(
        m.status(&pos(&m, stuck)),
        win(Player::Black, EndReason::NoMoves)
    );
    // A full board: nobody can move; more pieces wins, equal totals draw.
    let full = rules("rows=3,cols=3,pieces=9,no_moves=more-pieces");
    assert_eq!(
        full.status(&pos(&full, "WBW/BWB/WBW b 0 0")),
        win(Player::White, EndReason::NoMoves)
    );
    assert_eq!(
        full.status(&pos(&full, "WBW/BWB/WBB w 1 0")),
        draw(EndReason::NoMoves)
    );
    let loses = rules("rows=3,cols=3,pieces=9");
    assert_eq!(
        loses.status(&pos(&loses, "WBW/BWB/WBW w 0 0")),
        win(Player::Black, EndReason::NoMoves)
    );
    // A finished position has perft 0 at every depth but 0.
    assert_eq!(perft(&r, &pos(&r, stuck), 1).unwrap(), 0);
    assert_eq!(perft(&r, &pos(&r, "6/6/2WW2/6/B5 w 0 0"), 2).unwrap(), 0);
    assert_eq!(perft(&r, &pos(&r, "6/6/2WW2/6/B5 w 0 0"), 0).unwrap(), 1);
}

#[test]
fn history_rules_end_games_when_on() {
    let r = rules("no_capture_draw=4,pieces=2");
    let mut g = Game::from_position(r.clone(), pos(&r, "6/6/6/6/WW2BB w 0 0"));
    for mv in ["a1a2", "f1f2", "a2a1"] {
        g.play_text(mv).unwrap();
        assert_eq!(g.status(), None);
    }
    g.play_text("f2f1").unwrap();
    assert_eq!(g.status(), draw(EndReason::NoCaptureLimit));
    assert!(g.play_text("a1a2").is_err(), "no move after the end");

    let r = rules("repetition_draw=3,pieces=2");
    let mut g = Game::from_position(r.clone(), pos(&r, "6/6/6/6/WW2BB w 0 0"));
    let cycle = ["a1a2", "f1f2", "a2a1", "f2f1"];
    for mv in cycle.iter().chain(cycle[..3].iter()) {
        g.play_text(mv).unwrap();
        assert_eq!(g.status(), None, "after {mv}");
    }
    g.play_text("f2f1").unwrap();
    assert_eq!(g.repetitions(), 3);
    assert_eq!(g.status(), draw(EndReason::Repetition));
    // Off by default: the same cycle goes on.
    let r = rules("pieces=2");
    let mut g = Game::from_position(r.clone(), pos(&r, "6/6/6/6/WW2BB w 0 0"));
    for _ in 0..5 {
        for mv in cycle {
            g.play_text(mv).unwrap();
        }
    }
    assert_eq!(g.status(), None);
}

#[test]
fn counters_follow_captures_and_black_moves() {
    let r = Rules::standard();
    let p = pos(&r, "6/6/2WB2/6/B5 w 3 3 7 12");
    let q = after(&r, &p, "@a5");
    assert_eq!((q.plies_since_capture(), q.move_number()), (8, 12));
    let s = after(&r, &q, "@f5");
    assert_eq!((s.plies_since_capture(), s.move_number()), (9, 13));
    let t = after(&r, &s, "c3e3xa1");
    assert_eq!((t.plies_since_capture(), t.move_number()), (0, 13));
}

#[test]
fn position_text_rejects_bad_input_with_a_reason() {
    let r = Rules::standard();
    let cases: &[(&str, PositionError)] = &[
        ("", PositionError::FieldCount(0)),
        ("6/6/6/6/6 w 12", PositionError::FieldCount(3)),
        ("6/6/6/6/6 w 12 12 0 1 2", PositionError::FieldCount(7)),
        ("6/6/6/6/6 w 12 12 0 1 2 x1", PositionError::FieldCount(7)),
        ("6/6/6/6/6 w 12 12 x", PositionError::BadOwed("x".into())),
        ("6/6/6/6/6 w 12 12 x0", PositionError::BadOwed("x0".into())),
        (
            "6/6/6/6/6 w 12 12 x+1",
            PositionError::BadOwed("x+1".into()),
        ),
        (
            "6/6/6/6/6 w 12 12 xd4",
            PositionError::BadOwed("xd4".into()),
        ),
        ("6/6/6/6/6 w 12 12 x1 0", PositionError::OwedNotLast),
        ("6/6/6/6/6 w 12 12 0 x1 1", PositionError::OwedNotLast),
        (
            "6/6/6/6/B5 w 11 11 x2",
            PositionError::OwedOutOfRange { owed: 2, max: 1 },
        ),
        (
            "6/6/6/6/W5 b 11 12 5 x1",
            PositionError::OwedWithoutCapture { plies: 5 },
        ),
        (
            "6/6/6/6 w 12 12",
            PositionError::RankCount {
                expected: 5,
                found: 4,
            },
        ),
        (
            "6/6/6/6/6/6 w 12 12",
            PositionError::RankCount {
                expected: 5,
                found: 6,
            },
        ),
        (
            "7/6/6/6/6 w 12 12",
            PositionError::RankLength {
                rank: 5,
                expected: 6,
                found: 7,
            },
        ),
        (
            "6/5/6/6/6 w 12 12",
            PositionError::RankLength {
                rank: 4,
                expected: 6,
                found: 5,
            },
        ),
        (
            "6/6/6/6/WWWWWWW w 5 12",
            PositionError::RankLength {
                rank: 1,
                expected: 6,
                found: 7,
            },
        ),
        (
            "6/6/6/6/12 w 12 12",
            PositionError::RankLength {
                rank: 1,
                expected: 6,
                found: 12,
            },
        ),
        (
            "6/6/6/6/5X w 12 12",
            PositionError::BadCharacter {
                rank: 1,
                character: 'X',
            },
        ),
        (
            "6/6/6/6/5w w 12 12",
            PositionError::BadCharacter {
                rank: 1,
                character: 'w',
            },
        ),
        ("6/6/6/6/0W5 w 11 12", PositionError::ZeroRun { rank: 1 }),
        ("6/6/6/6/6 x 12 12", PositionError::BadSide("x".into())),
        (
            "6/6/6/6/6 w -1 12",
            PositionError::BadNumber {
                field: "white's hand",
                text: "-1".into(),
            },
        ),
        (
            "6/6/6/6/6 w 12 1x",
            PositionError::BadNumber {
                field: "black's hand",
                text: "1x".into(),
            },
        ),
        (
            "6/6/6/6/6 w 13 12",
            PositionError::TooManyPieces {
                player: Player::White,
                count: 13,
                max: 12,
            },
        ),
        (
            "6/6/6/6/B5 w 12 12",
            PositionError::TooManyPieces {
                player: Player::Black,
                count: 13,
                max: 12,
            },
        ),
        ("6/6/6/6/6 w 12 12 0 0", PositionError::ZeroMoveNumber),
        (
            "6/6/6/6/6 w 12 12 a 1",
            PositionError::BadNumber {
                field: "plies since capture",
                text: "a".into(),
            },
        ),
        (
            "6/6/6/6/6 w 99999999999 12",
            PositionError::BadNumber {
                field: "white's hand",
                text: "99999999999".into(),
            },
        ),
    ];
    for (text, expected) in cases {
        assert_eq!(r.parse_position(text).as_ref(), Err(expected), "{text:?}");
        assert!(!expected.to_string().is_empty());
    }
    // The owed removals in other variants: up to a chain's worth with
    // MultiJump, hand pieces where the hand may be hit.
    assert_eq!(
        rules("multi_jump=true").parse_position("6/6/6/6/B5 w 11 11 x16"),
        Err(PositionError::OwedOutOfRange { owed: 16, max: 15 })
    );
    assert!(
        rules("multi_jump=true")
            .parse_position("6/6/6/6/B5 w 11 11 x3")
            .is_ok()
    );
    assert!(
        rules("hand-removal")
            .parse_position("6/6/6/6/6 w 12 5 x1")
            .is_ok()
    );
    assert!(rules("boxed").parse_position("6/6/6/6/6 w 12 5 x1").is_ok());
    // Where the hand may not be hit, nothing can be removed: the removal
    // is forfeited and the text is the position after the capture.
    assert_eq!(
        r.parse_position("6/6/6/6/6 w 12 5 x1"),
        r.parse_position("6/6/6/6/6 b 12 5 0 1")
    );
    // The trailing counters are each optional, and print in full.
    for (text, full) in [
        ("6/6/6/6/6 w 12 12", "6/6/6/6/6 w 12 12 0 1"),
        ("6/6/6/6/6 b 12 12 7", "6/6/6/6/6 b 12 12 7 1"),
        ("6/6/6/6/6 w 12 12 7 9", "6/6/6/6/6 w 12 12 7 9"),
        ("6/6/6/6/B5 w 11 11 x1", "6/6/6/6/B5 w 11 11 0 1 x1"),
        ("6/6/6/6/W5 b 11 11 0 4 x1", "6/6/6/6/W5 b 11 11 0 4 x1"),
    ] {
        let p = pos(&r, text);
        assert_eq!(r.position_text(&p), full, "{text}");
        assert_eq!(pos(&r, full), p, "{full}");
    }
    // The 6x6 start does not fit the standard board, and vice versa.
    assert!(r.parse_position("6/6/6/6/6/6 w 12 12").is_err());
    assert!(rules("6x6").parse_position("6/6/6/6/6 w 12 12").is_err());
    // Runs of digits are one number, so a wide board needs no special case.
    let wide = rules("rows=3,cols=8");
    assert_eq!(
        wide.position_text(&pos(&wide, "8/W7/8 b 3 4")),
        "8/W7/8 b 3 4 0 1"
    );
}

#[test]
fn move_text_rejects_bad_input_with_a_reason() {
    let r = Rules::standard();
    let p = pos(&r, "6/6/2WB2/6/B5 w 3 3");
    let cases = [
        ("", "empty move"),
        ("@", "malformed"),
        ("c3", "malformed"),
        ("z9z8", "'z9' is not a cell"),
        ("c3c6", "'c6' is not a cell"),
        ("@c3", "not empty"),
        ("d3d4", "no white piece on d3"),
        ("c3c5", "no such step or jump"),
        ("c3e3e5", "multiple jumps are off"),
        ("c3e3xa1xa1", "malformed"),
        ("c3e3xb1", "wrong removals"),
        ("c3d3", "no such step or jump"),
    ];
    for (text, reason) in cases {
        let err = r.parse_move(&p, text).unwrap_err().to_string();
        assert!(err.contains(reason), "{text:?}: {err}");
    }
    let none_in_hand = pos(&r, "6/6/2WB2/6/B4W w 0 3");
    assert!(
        r.parse_move(&none_in_hand, "@a5")
            .unwrap_err()
            .to_string()
            .contains("no piece in hand")
    );
    // Removal-only moves: well formed or not, and legal only where owed.
    for (text, reason) in [
        ("x", "malformed"),
        ("xx@", "malformed"),
        ("@xd4", "malformed"),
        ("xd4xd4", "malformed"),
        ("xz9", "'z9' is not a cell"),
        ("xa1", "no removal is owed here"),
        ("x@", "no removal is owed here"),
    ] {
        let err = r.parse_move(&p, text).unwrap_err().to_string();
        assert!(err.contains(reason), "{text:?}: {err}");
    }
    let owing = pos(&r, "6/6/2WB2/6/B5 w 3 3 x1");
    for (text, reason) in [
        ("c3c4", "owes 1 removal"),
        ("@a5", "owes 1 removal"),
        ("c3e3xa1", "owes 1 removal"),
        ("xc3", "wrong removals"),
        ("xa1xd3", "wrong removals"),
        ("x@", "wrong removals"),
    ] {
        let err = r.parse_move(&owing, text).unwrap_err().to_string();
        assert!(err.contains(reason), "{text:?}: {err}");
    }
    let over = pos(&r, "6/6/2WW2/6/B5 b 0 0");
    assert!(
        r.parse_move(&over, "a1a2")
            .unwrap_err()
            .to_string()
            .contains("game is over")
    );
}

/// Random games in many variants: moves and positions survive a trip
/// through their text, and the move counter agrees with the move list.
#[test]
fn notation_round_trips_and_counts_agree_in_random_games() {
    let specs = [
        "standard",
        "hand-removal",
        "6x6",
        "classic",
        "5x5",
        "boxed",
        "all-options",
        "removal=none,win=all",
        "mandatory_capture=true",
        "multi_jump=true,removal=board-or-hand",
        "multi_jump=true,jump_own=true,mandatory_capture=true,bonus_turn=true",
        "rows=3,cols=3,pieces=4",
        "rows=8,cols=8,pieces=20,multi_jump=true,jump_own=true",
        "rows=7,cols=4,pieces=9,removal=board-then-hand,jump_own=true",
    ];
    let mut rng = StdRng::seed_from_u64(7);
    let mut list = MoveList::new();
    for spec in specs {
        let r = rules(spec);
        for _game in 0..20 {
            let mut p = r.start_position();
            for _ply in 0..120 {
                let text = r.position_text(&p);
                assert_eq!(r.parse_position(&text), Ok(p), "{spec}: {text}");
                if r.status(&p).is_some() {
                    break;
                }
                r.legal_moves(&p, &mut list);
                assert_eq!(list.len() as u64, r.count_legal_moves(&p), "{spec}: {text}");
                let texts: BTreeSet<String> = list.iter().map(|m| r.move_text(m)).collect();
                assert_eq!(texts.len(), list.len(), "{spec}: duplicate moves in {text}");
                for m in list.iter() {
                    assert_eq!(r.parse_move(&p, &r.move_text(m)), Ok(*m), "{spec}: {text}");
                }
                let m = list.as_slice()[rng.random_range(0..list.len())];
                r.apply(&mut p, &m);
            }
        }
    }
}

/// perft's shortcuts (bulk counts, placement sums) agree with plain
/// make-every-move counting, in random middle-game positions of every kind.
#[test]
fn fast_perft_agrees_with_naive_perft() {
    fn naive(r: &Rules, p: &Position, depth: u32) -> u64 {
        if depth == 0 {
            return 1;
        }
        if r.status(p).is_some() {
            return 0;
        }
        let mut list = MoveList::new();
        r.legal_moves(p, &mut list);
        list.iter()
            .map(|m| {
                let mut c = *p;
                r.apply(&mut c, m);
                naive(r, &c, depth - 1)
            })
            .sum()
    }
    let specs = [
        "standard",
        "hand-removal",
        "boxed",
        "classic",
        "removal=none",
        "jump_own=true",
        "mandatory_capture=true",
        "bonus_turn=true",
        "bonus_turn=true,jump_own=true,removal=board-or-hand",
        "multi_jump=true,jump_own=true",
        "no_moves=more-pieces,rows=4,cols=4,pieces=5",
    ];
    let mut rng = StdRng::seed_from_u64(11);
    let mut list = MoveList::new();
    for spec in specs {
        let r = rules(spec);
        for _ in 0..12 {
            let mut p = r.start_position();
            for _ in 0..rng.random_range(4..40) {
                if r.status(&p).is_some() {
                    break;
                }
                r.legal_moves(&p, &mut list);
                let m = list.as_slice()[rng.random_range(0..list.len())];
                r.apply(&mut p, &m);
            }
            for depth in 1..=3 {
                assert_eq!(
                    perft(&r, &p, depth).unwrap(),
                    naive(&r, &p, depth),
                    "{spec} {} depth {depth}",
                    r.position_text(&p)
                );
            }
        }
    }
}

/// A capture played as two turns: the jump alone leaves a position that owes
/// the removals, where only removal-only moves are legal, and which one is
/// played decides the same position as the one-turn move would.
#[test]
fn owed_removals_finish_a_capture_played_as_two_turns() {
    let r = Rules::standard();
    let owing = pos(&r, "6/6/2W3/2B3/B4B w 11 9 0 3 x1");
    assert_eq!(r.position_text(&owing), "6/6/2W3/2B3/B4B w 11 9 0 3 x1");
    assert_eq!(legal(&r, &owing), set(&["xa1", "xc2", "xf1"]));
    assert_eq!(r.count_legal_moves(&owing), 3);
    assert_eq!(perft(&r, &owing, 1).unwrap(), 3);
    assert!(r.has_capture(&owing) && r.status(&owing).is_none());
    // The removal ends the turn and the capture: Black to move, counter 0.
    let done = after(&r, &owing, "xc2");
    assert_eq!(r.position_text(&done), "6/6/2W3/6/B4B b 11 9 0 3");
    // Black's removal also moves the move number on, as Black's jump would.
    let black = pos(&r, "6/6/2B3/2W3/W4W b 9 11 0 3 x1");
    assert_eq!(
        r.position_text(&after(&r, &black, "xc2")),
        "6/6/2B3/6/W4W w 9 11 0 4"
    );
    // Bonus turn: the capturer moves again after its removals.
    let bonus = rules("bonus_turn=true");
    let p = pos(&bonus, "6/6/2W3/2B3/B4B w 11 9 0 3 x1");
    assert_eq!(after(&bonus, &p, "xa1").side_to_move(), Player::White);
    // Board or hand: a hand piece is one more choice; board then hand: the
    // hand only when the board is bare.
    let hand = rules("hand-removal");
    let p = pos(&hand, "6/6/2W3/2B3/B5 w 11 9 x1");
    assert_eq!(legal(&hand, &p), set(&["xa1", "xc2", "x@"]));
    let boxed = rules("boxed");
    assert_eq!(
        legal(&boxed, &pos(&boxed, "6/6/2W3/2B3/B5 w 11 9 x1")),
        set(&["xa1", "xc2"])
    );
    assert_eq!(
        legal(&boxed, &pos(&boxed, "6/6/2W3/6/6 w 11 9 x1")),
        set(&["x@"])
    );
    // A chain owes one removal per piece jumped, all in one move; fewer
    // left than owed means all of them go.
    let chain = rules("multi_jump=true");
    let p = pos(&chain, "6/6/2W3/2B3/B4B w 11 9 x2");
    assert_eq!(legal(&chain, &p), set(&["xa1xc2", "xa1xf1", "xf1xc2"]));
    let p = pos(&chain, "6/6/2W3/2B3/6 w 11 9 x2");
    assert_eq!(legal(&chain, &p), set(&["xc2"]));
    // The capture is one move: the game ends once its removals are made,
    // not after the jump. Classic: Black is down to one piece, White has
    // three, so the jump alone would be a three-piece draw, but the removal
    // takes Black's last piece and wins.
    let classic = rules("classic");
    let p = pos(&classic, "6/6/2W3/2B3/WW4 w 0 0 x1");
    assert_eq!(classic.status(&p), None);
    assert!(!classic.ended_by_pieces(&p));
    assert_eq!(
        Game::from_position(classic.clone(), p).status(),
        None,
        "history rules wait too"
    );
    assert_eq!(
        classic.status(&after(&classic, &p, "xc2")),
        win(Player::White, EndReason::FewPieces)
    );
    // The position that owes is not the one that does not: they never repeat.
    assert_ne!(owing.key(), done.key());
    assert_ne!(owing.key(), pos(&r, "6/6/2W3/2B3/B4B w 11 9 0 3").key());
}

/// For every capture that removes something, in random games of many
/// variants: the jump alone owes the removals, its removal-only moves are
/// exactly the one-turn move's removal choices, and finishing gives the
/// same position. The text of the owing position round-trips, and perft
/// there agrees with counting the one-turn moves' children. Issue 17: the
/// capture played one part per turn (the jump as its text, then each
/// removal) reaches the same position.
#[test]
fn two_turn_captures_match_one_turn_captures() {
    let specs = [
        "standard",
        "hand-removal",
        "boxed",
        "classic",
        "6x6",
        "5x5",
        "multi_jump=true,removal=none",
        "bonus_turn=true",
        "mandatory_capture=true,jump_own=true",
        "all-options",
        "multi_jump=true,removal=board-or-hand",
        "multi_jump=true,removal=board-then-hand,bonus_turn=true,mandatory_capture=true",
        "rows=4,cols=4,pieces=5",
    ];
    let mut rng = StdRng::seed_from_u64(23);
    let mut list = MoveList::new();
    let (mut checked, mut parts) = (0, 0);
    for spec in specs {
        let r = rules(spec);
        for _game in 0..15 {
            let mut p = r.start_position();
            for _ply in 0..100 {
                if r.status(&p).is_some() {
                    break;
                }
                r.legal_moves(&p, &mut list);
                for m in list.iter() {
                    let Some((mid, finish)) = r.split_capture(&p, m) else {
                        assert!(m.removed().is_empty() && m.hand_removed() == 0);
                        continue;
                    };
                    checked += 1;
                    parts += play_in_parts(&r, &p, m);
                    let text = r.position_text(&mid);
                    assert_eq!(r.parse_position(&text), Ok(mid), "{spec}: {text}");
                    assert_eq!(mid.side_to_move(), p.side_to_move());
                    let finishes = legal(&r, &mid);
                    let same_jump: BTreeSet<String> = list
                        .iter()
                        .filter(|o| {
                            o.from() == m.from() && o.to() == m.to() && o.captured() == m.captured()
                        })
                        .filter_map(|o| r.split_capture(&p, o))
                        .map(|(_, f)| r.move_text(&f))
                        .collect();
                    assert_eq!(finishes, same_jump, "{spec}: {text}");
                    let finish_text = r.move_text(&finish);
                    assert_eq!(
                        r.parse_move(&mid, &finish_text),
                        Ok(finish),
                        "{spec}: {text}"
                    );
                    let mut one = p;
                    r.apply(&mut one, m);
                    assert_eq!(
                        after(&r, &mid, &finish_text),
                        one,
                        "{spec}: {text} {finish_text}"
                    );
                    assert_eq!(r.count_legal_moves(&mid), finishes.len() as u64);
                }
                let m = list.as_slice()[rng.random_range(0..list.len())];
                if let Some((mid, _)) = r.split_capture(&p, &m) {
                    let direct: u64 = {
                        let mut moves = MoveList::new();
                        r.legal_moves(&mid, &mut moves);
                        moves
                            .iter()
                            .map(|f| {
                                let mut c = mid;
                                r.apply(&mut c, f);
                                perft(&r, &c, 2).unwrap()
                            })
                            .sum()
                    };
                    assert_eq!(
                        perft(&r, &mid, 3).unwrap(),
                        direct,
                        "{spec}: {}",
                        r.position_text(&mid)
                    );
                }
                r.apply(&mut p, &m);
            }
        }
    }
    assert!(checked > 1000, "only {checked} captures checked");
    assert!(parts > 2 * checked, "{parts} parts for {checked} captures");
}

/// NoCaptureOutcome more-pieces: the limit gives the game to the side with
/// more pieces (board and hand), equal totals draw; `draw` keeps the old rule.
#[test]
fn no_capture_limit_judged_on_material() {
    let more = rules("no_capture_draw=2,no_capture_outcome=more-pieces");
    let plain = rules("no_capture_draw=2");
    for (text, judged) in [
        (
            "6/W5/W5/6/4BB w 1 0",
            win(Player::White, EndReason::NoCaptureLimit),
        ),
        ("6/W5/W5/6/4BB w 0 0", draw(EndReason::NoCaptureLimit)),
        (
            "6/W5/W5/6/3BBB w 0 0",
            win(Player::Black, EndReason::NoCaptureLimit),
        ),
    ] {
        for (r, expected) in [(&more, judged), (&plain, draw(EndReason::NoCaptureLimit))] {
            let mut g = Game::from_position(r.clone(), pos(r, text));
            g.play_text("a4b4").unwrap();
            assert_eq!(g.status(), None, "{text}");
            let black = if text.contains("3BBB") {
                "d1d2"
            } else {
                "e1e2"
            };
            g.play_text(black).unwrap();
            assert_eq!(g.status(), expected, "{text}");
        }
    }
    assert_eq!(
        win(Player::White, EndReason::NoCaptureLimit)
            .unwrap()
            .to_string(),
        "white wins: no-capture limit reached"
    );
    // The rule rides in the spec, and only the known values are accepted.
    assert_eq!(
        Variant::from_spec(&more.variant().spec()).unwrap(),
        *more.variant()
    );
    assert!(Variant::from_spec("no_capture_outcome=loses").is_err());
}

/// With JumpOwn and MultiJump a capture can open with a jump over an own
/// piece: `has_capture` must see it (it once looked for enemy jumps only).
#[test]
fn a_capture_that_opens_with_an_own_jump_is_a_capture() {
    let chains = rules("standard,multi_jump=true,jump_own=true");
    let p = pos(&chains, "6/6/6/6/WW1B2 w 10 11");
    assert!(legal(&chains, &p).contains("a1c1e1"));
    assert!(chains.has_capture(&p));
    let single = rules("standard,jump_own=true");
    assert!(!single.has_capture(&pos(&single, "6/6/6/6/WW1B2 w 10 11")));
    let mandatory = rules("standard,multi_jump=true,jump_own=true,mandatory_capture=true");
    let only = legal(&mandatory, &pos(&mandatory, "6/6/6/6/WW1B2 w 10 11"));
    assert!(only.iter().all(|m| m.starts_with("a1c1e1")), "{only:?}");
}

/// Issue 17: a front end may give a capture in parts, the jump without its
/// removals and then the removals one at a time; every part is a legal
/// move, the position between them owes the rest, and the last part ends
/// the capture exactly as the one-turn move does.
#[test]
fn a_capture_may_be_given_in_parts() {
    let r = Rules::standard();
    let p = pos(&r, "6/6/2WB2/6/B5 w 3 3");
    let jumped = after(&r, &p, "c3e3");
    assert_eq!(r.position_text(&jumped), "6/6/4W1/6/B5 w 3 3 0 1 x1");
    assert_eq!(legal(&r, &jumped), set(&["xa1"]));
    assert_eq!(after(&r, &jumped, "xa1"), after(&r, &p, "c3e3xa1"));
    // The jump is a capture for the rules that look at captures.
    let forced = rules("mandatory_capture=true");
    assert!(forced.parse_move(&p, "c3e3").is_ok());
    assert!(forced.parse_move(&p, "@f5").is_err());
    // A chain's two removals, one per turn, and both orders of them.
    let chain = rules("multi_jump=true");
    let p = pos(&chain, "6/5B/1B4/B5/W3BB w 1 0");
    let whole = after(&chain, &p, "a1a3c3xe1xf4");
    let jumped = after(&chain, &p, "a1a3c3");
    assert_eq!(r_text(&chain, &jumped), "6/5B/2W3/6/4BB w 1 0 0 1 x2");
    assert_eq!(legal(&chain, &jumped), set(&["xe1xf1", "xe1xf4", "xf1xf4"]));
    for first in ["xe1", "xf4"] {
        let one = after(&chain, &jumped, first);
        assert_eq!(one.owed_removals(), 1, "{first}");
        assert_eq!(one.side_to_move(), Player::White);
        let second = if first == "xe1" { "xf4" } else { "xe1" };
        assert_eq!(after(&chain, &one, second), whole, "{first} {second}");
    }
    // A jump with some of its removals is a part too.
    assert_eq!(after(&chain, &p, "a1a3c3xf4").owed_removals(), 1);
    assert!(chain.parse_move(&jumped, "xe1xf1xf4").is_err());
}

/// Issue 17: removals the Removal rule cannot make are forfeited. A text
/// that owes more than can be removed owes what can; one that owes
/// removals where nothing can be removed is the position after the
/// capture (the turn passes as the removals would have passed it).
#[test]
fn owed_removals_beyond_what_can_be_removed_are_forfeited() {
    let all = rules("all-options");
    let p = pos(&all, "2W3/6/6/5B/6 w 11 9 0 5 x2");
    assert_eq!(all.position_text(&p), "2W3/6/6/5B/6 w 11 9 0 5 x1");
    assert_eq!(legal(&all, &p), set(&["xf2"]));
    // The old recipe: the first removal, then the rest with x1.
    let done = after(&all, &p, "xf2");
    assert_eq!(all.position_text(&done), "2W3/6/6/6/6 w 11 9 0 5");
    assert_eq!(pos(&all, "2W3/6/6/6/6 w 11 9 0 5 x1"), done);
    // Without BonusTurn the turn passes, after Black the move number goes on.
    let r = Rules::standard();
    assert_eq!(
        r_text(&r, &pos(&r, "6/6/6/6/6 w 12 12 x1")),
        "6/6/6/6/6 b 12 12 0 1"
    );
    assert_eq!(
        r_text(&r, &pos(&r, "6/6/6/6/6 b 11 12 0 4 x1")),
        "6/6/6/6/6 w 11 12 0 5"
    );
    // Removal none takes nothing, so nothing is ever owed.
    let none = rules("removal=none");
    assert_eq!(
        r_text(&none, &pos(&none, "6/6/6/6/B5 w 11 11 x1")),
        "6/6/6/6/B5 b 11 11 0 1"
    );
    // A chain that jumped more pieces than are left owes only those.
    let chain = rules("multi_jump=true");
    let q = pos(&chain, "6/6/1B4/B5/W4B w 1 0");
    assert_eq!(
        r_text(&chain, &after(&chain, &q, "a1a3c3")),
        "6/6/2W3/6/5B w 1 0 0 1 x1"
    );
    // Board then hand: the hand only once the board is bare.
    let boxed = rules("boxed,multi_jump=true");
    let b = pos(&boxed, "6/6/2W3/6/B5 w 11 9 0 3 x2");
    assert!(boxed.parse_move(&b, "x@").is_err());
    let bare = after(&boxed, &b, "xa1");
    assert_eq!(legal(&boxed, &bare), set(&["x@"]));
}

fn r_text(rules: &Rules, pos: &Position) -> String {
    rules.position_text(pos)
}

/// Plays `whole` from `p` as its jump, then one removal per turn; returns
/// how many parts that took.
fn play_in_parts(r: &Rules, p: &Position, whole: &yote::rules::Move) -> usize {
    let text = r.move_text(whole);
    let mut pieces = text.split('x');
    let jump = pieces.next().unwrap();
    let removals: Vec<String> = pieces.map(|x| format!("x{x}")).collect();
    let end = r.after(p, whole);
    let mut now = after(r, p, jump);
    for (i, removal) in removals.iter().enumerate() {
        assert!(now.owed_removals() > 0, "{text} after {i} parts");
        let t = r.position_text(&now);
        assert_eq!(r.parse_position(&t), Ok(now), "{t}");
        let rest = r.rest_of_capture(p, whole, &now).expect("the rest");
        assert_eq!(r.move_text(&rest), removals[i..].concat(), "{text}");
        now = after(r, &now, removal);
    }
    assert_eq!(now, end, "{text}");
    assert_eq!(r.rest_of_capture(p, whole, &now), None);
    removals.len() + 1
}

//! Endgame tablebases: the reference statistics, forward verification on
//! small boards, an independent brute-force solve of the smallest, probe
//! against move generation, and refusal of wrong or damaged files.

use std::path::PathBuf;
use std::process::Command;
use yote::rules::{MoveList, Rules, Variant};
use yote::tablebase::file::{self, TableFileError};
use yote::tablebase::format::TableBytesError;
use yote::tablebase::generate::Silent;
use yote::tablebase::verify::verify;
use yote::tablebase::{
    Class, Metric, Request, Shard, Tablebase, Value, generate, load_dir, read_dir,
};

#[path = "support/brute_force.rs"]
mod brute_force;
#[path = "support/families.rs"]
mod families;
mod support;
use brute_force::assert_tables_agree;
use families::FAMILIES;

const BIN: &str = env!("CARGO_BIN_EXE_yote");

fn rules(spec: &str) -> Rules {
    Rules::new(Variant::from_spec(spec).unwrap()).unwrap()
}

fn solve(rules: &Rules, pieces: u32, dir: Option<PathBuf>) -> Tablebase {
    solve_in(rules, pieces, dir, Metric::Dtm)
}

fn solve_in(rules: &Rules, pieces: u32, dir: Option<PathBuf>, metric: Metric) -> Tablebase {
    let request = Request {
        pieces,
        dir,
        shard: Shard::ALL,
        threads: 2,
        metric,
    };
    generate(rules, &request, &Silent).unwrap().0
}

fn temp_dir(name: &str) -> PathBuf {
    let dir = std::env::temp_dir().join(format!("yote-tb-{name}-{}", std::process::id()));
    let _ = std::fs::remove_dir_all(&dir);
    dir
}

/// The reference lines of standard-classes.txt for classes of at most
/// `pieces` pieces.
fn reference_lines(pieces: u32) -> Vec<String> {
    let text = std::fs::read_to_string("../shared/tablebase/standard-classes.txt")
        .or_else(|_| std::fs::read_to_string("tests/data/standard-classes.txt"))
        .expect("the reference statistics");
    text.lines()
        .filter(|l| l.starts_with("class "))
        .filter(|l| {
            let counts: u32 = l[6..l.find(':').unwrap()]
                .split(' ')
                .map(|n| n.parse::<u32>().unwrap())
                .sum();
            counts <= pieces
        })
        .map(str::to_string)
        .collect()
}

fn stats_lines(tables: &Tablebase) -> Vec<String> {
    tables
        .tables()
        .iter()
        .map(|t| {
            format!(
                "class {}: {}",
                t.class(),
                yote::tablebase::ClassStats::of(&t.codes().unwrap())
            )
        })
        .collect()
}

#[test]
fn standard_classes_up_to_five_pieces_match_the_independent_solver() {
    let tables = solve(&Rules::standard(), 5, None);
    let expected = reference_lines(5);
    assert_eq!(expected.len(), 33);
    assert_eq!(stats_lines(&tables), expected);
}

/// About 30 s in release on this machine: run with `--ignored`.
#[test]
#[ignore]
fn standard_classes_up_to_six_pieces_match_the_independent_solver() {
    let tables = solve(&Rules::standard(), 6, None);
    assert_eq!(stats_lines(&tables), reference_lines(6));
}

#[test]
fn every_stored_value_agrees_with_its_children_on_small_boards() {
    for family in FAMILIES {
        // With ThreeDraw every class of 6 pieces or fewer but 4 against 2 is
        // drawn by the counts: those families need a piece or two more.
        let extra = u32::from(Variant::from_spec(family).unwrap().three_draw);
        for (size, pieces) in [
            ("rows=3,cols=3", 5 + 2 * extra),
            ("rows=4,cols=4", 5 + extra),
        ] {
            let spec = format!("{family},{size}");
            let rules = rules(&spec);
            let tables = solve(&rules, pieces, None);
            let checked = verify(&tables, 2).unwrap_or_else(|m| panic!("{spec}: {m}"));
            assert!(checked > 1000, "{spec}: only {checked} positions");
        }
    }
}

#[test]
fn brute_force_agrees_with_the_tables_on_the_smallest_boards() {
    for family in FAMILIES {
        // ThreeDraw ends every game of three pieces a side at once.
        // The 3x4 board with four pieces a side is where a capture that
        // starts with an own jump first showed (MandatoryCapture).
        let sizes: &[&str] = if Variant::from_spec(family).unwrap().three_draw {
            &["rows=3,cols=4,pieces=4"]
        } else {
            &[
                "rows=3,cols=3,pieces=2",
                "rows=3,cols=3,pieces=3",
                "rows=3,cols=4,pieces=2",
            ]
        };
        for size in sizes {
            let spec = format!("{family},{size}");
            let rules = rules(&spec);
            let tables = solve(&rules, 2 * u32::from(rules.variant().pieces), None);
            assert!(assert_tables_agree(&rules, &tables, &spec) > 30, "{spec}");
        }
    }
}

fn run(args: &[&str]) -> (bool, String, String) {
    let out = Command::new(BIN).args(args).output().unwrap();
    (
        out.status.success(),
        String::from_utf8_lossy(&out.stdout).into_owned(),
        String::from_utf8_lossy(&out.stderr).into_owned(),
    )
}

#[test]
fn probe_lists_exactly_the_legal_moves_with_their_values() {
    let dir = temp_dir("probe");
    let d = dir.to_str().unwrap();
    let variant = "rows=4,cols=4,removal=board-or-hand";
    let (ok, _, err) = run(&[
        "tb",
        "generate",
        "--pieces",
        "5",
        "--dir",
        d,
        "--variant",
        variant,
    ]);
    assert!(ok, "{err}");
    let rules = rules(variant);
    let tables = load_dir(&rules, &dir, 5).unwrap();
    for fen in [
        "4/1W2/1B2/4 w 1 2",
        "WB2/4/2B1/W3 b 0 1",
        "4/4/4/4 w 2 3",
        "W3/1B2/2W1/3B w 0 1",
    ] {
        let (ok, out, err) = run(&[
            "tb",
            "probe",
            "--dir",
            d,
            "--variant",
            variant,
            "--fen",
            fen,
        ]);
        assert!(ok, "{fen}: {err}");
        let (_, perft, _) = run(&["perft", "1", "--variant", variant, "--fen", fen]);
        let mut legal: Vec<&str> = perft
            .lines()
            .filter_map(|l| l.strip_suffix(": 1"))
            .collect();
        let mut probed: Vec<&str> = out
            .lines()
            .filter_map(|l| l.strip_prefix("move "))
            .map(|l| l.split(' ').next().unwrap())
            .collect();
        legal.sort();
        probed.sort();
        assert_eq!(probed, legal, "{fen}");
        let pos = rules.parse_position(fen).unwrap();
        let value = tables.probe(&pos).unwrap();
        assert_eq!(
            out.lines().next().unwrap(),
            format!("value {}", yote::tablebase::cli::value_text(value))
        );
        // The position's value is its best move's.
        if let Some(best) = out.lines().nth(1) {
            assert!(
                best.ends_with(&yote::tablebase::cli::value_text(value)),
                "{fen}: {out}"
            );
        }
    }
    let _ = std::fs::remove_dir_all(&dir);
}

#[test]
fn files_for_other_rules_or_damaged_are_refused_and_regenerated_on_resume() {
    let dir = temp_dir("refuse");
    let board = rules("rows=4,cols=4");
    solve(&board, 4, Some(dir.clone()));
    // Other rules: refused by name.
    let other = rules("rows=4,cols=4,removal=none");
    match load_dir(&other, &dir, 4) {
        Err(TableFileError::WrongRules { .. }) => {}
        other => panic!("expected WrongRules, got {other:?}"),
    }
    let (ok, _, err) = run(&[
        "tb",
        "probe",
        "--dir",
        dir.to_str().unwrap(),
        "--variant",
        "rows=4,cols=4,removal=none",
        "--fen",
        "4/1W2/1B2/4 w 1 1",
    ]);
    assert!(!ok && err.contains("made for other rules"), "{err}");
    // Damaged: one bit of the last block flipped. Probing in place reads
    // only the header at load; the block is refused when it is read, and
    // reading the whole file (generation, `tb verify`) refuses the file.
    let class = Class::new(2, 2, 0, 0);
    let path = file::path(&dir, class);
    let mut bytes = std::fs::read(&path).unwrap();
    let last = bytes.len() - 1;
    bytes[last] ^= 0x40;
    std::fs::write(&path, &bytes).unwrap();
    let mapped = load_dir(&board, &dir, 4).unwrap();
    let table = mapped.table(class).unwrap();
    assert_eq!(table.value(table.index.size() - 1), None);
    match read_dir(&board, &dir, 4) {
        Err(e @ TableFileError::Format(_, TableBytesError::Block(_))) => {
            assert!(e.to_string().contains("damaged"), "{e}")
        }
        other => panic!("expected a block checksum error, got {other:?}"),
    }
    let (ok, _, err) = run(&["tb", "verify", "--dir", dir.to_str().unwrap()]);
    assert!(!ok && err.contains("block 0 fails its checksum"), "{err}");
    // Cut short, or longer than its header says: refused before any read.
    std::fs::write(&path, &bytes[..bytes.len() - 10]).unwrap();
    assert!(matches!(
        load_dir(&board, &dir, 4),
        Err(TableFileError::Format(_, TableBytesError::Malformed(_)))
    ));
    std::fs::write(&path, b"hello\n\n").unwrap();
    assert!(matches!(
        load_dir(&board, &dir, 4),
        Err(TableFileError::Format(_, TableBytesError::NotATable))
    ));
    // Resume: every sound class is kept, the damaged one solved again.
    let request = Request {
        pieces: 4,
        dir: Some(dir.clone()),
        shard: Shard::ALL,
        threads: 2,
        metric: Metric::Dtm,
    };
    let (_, report) = generate(&board, &request, &Silent).unwrap();
    assert_eq!(report.solved, vec![class]);
    // 2 against 2 pieces, each side's split between board and hand: 9 classes.
    assert_eq!(report.kept.len(), 8);
    assert!(verify(&load_dir(&board, &dir, 4).unwrap(), 2).is_ok());
    assert!(verify(&read_dir(&board, &dir, 4).unwrap(), 2).is_ok());
    // A directory of other rules is refused, not overwritten.
    let request = Request {
        pieces: 4,
        dir: Some(dir.clone()),
        shard: Shard::ALL,
        threads: 1,
        metric: Metric::Dtm,
    };
    let err = generate(&other, &request, &Silent).unwrap_err().to_string();
    assert!(err.contains("made for other rules"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 19: the distance files store the wins only; every loss read
/// back through the files (one ply of search over stored wins) is the
/// solver's value, in both metrics and under bonus turns (where a capture
/// keeps the loser on move, so a loss's child can be a derived loss too).
#[test]
fn losses_derived_from_stored_wins_read_back_exactly() {
    for (spec, metric) in [
        ("rows=4,cols=4", Metric::Dtz),
        ("rows=4,cols=4", Metric::Dtm),
        ("rows=3,cols=4,bonus_turn=true,multi_jump=true", Metric::Dtz),
    ] {
        let rules = rules(spec);
        let dir = temp_dir("derived");
        let solved = solve_in(&rules, 5, Some(dir.clone()), metric);
        let mapped = load_dir(&rules, &dir, 5).unwrap();
        let mut losses = 0;
        for table in solved.tables() {
            let files = mapped.table(table.class()).unwrap();
            assert!(files.losses_derived, "{spec}: {}", table.class());
            for i in 0..table.index.size() {
                let pos = table.position(i);
                let value = table.value(i);
                losses += usize::from(matches!(value, Some(Value::Loss(_))));
                assert_eq!(
                    mapped.probe(&pos),
                    value,
                    "{spec} {metric}: {}",
                    rules.position_text(&pos)
                );
            }
        }
        assert!(losses > 1000, "{spec}: {losses} losses");
        let _ = std::fs::remove_dir_all(&dir);
    }
}

#[test]
fn shards_running_at_once_produce_the_same_tables() {
    let dir = temp_dir("shards");
    let rules = rules("rows=4,cols=4");
    let whole = solve(&rules, 5, None);
    std::thread::scope(|scope| {
        for index in 1..=3 {
            let (rules, dir) = (&rules, dir.clone());
            scope.spawn(move || {
                let request = Request {
                    pieces: 5,
                    dir: Some(dir),
                    shard: Shard { index, count: 3 },
                    threads: 1,
                    metric: Metric::Dtm,
                };
                generate(rules, &request, &Silent).unwrap()
            });
        }
    });
    let sharded = read_dir(&rules, &dir, 5).unwrap();
    assert_eq!(stats_lines(&sharded), stats_lines(&whole));
    assert_eq!(Shard::parse("2/3"), Ok(Shard { index: 2, count: 3 }));
    for bad in ["0/3", "4/3", "3", "a/b"] {
        assert!(Shard::parse(bad).is_err(), "{bad}");
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Standard tables of up to 5 pieces on disk, made once for the tests that
/// load them the way the engine does.
fn standard_five() -> &'static PathBuf {
    static DIR: std::sync::OnceLock<PathBuf> = std::sync::OnceLock::new();
    DIR.get_or_init(|| {
        let dir = temp_dir("standard5");
        solve(&Rules::standard(), 5, Some(dir.clone()));
        dir
    })
}

fn engine_tables(rules: &Rules) -> yote::search::tables::Tables {
    let (tables, summary, errors) =
        yote::search::tables::Tables::load(standard_five().to_str().unwrap(), 5, rules);
    assert!(errors.is_empty(), "{errors:?}");
    assert!(summary.contains("33 classes"), "{summary}");
    tables
}

fn best_move_with_one_node(
    engine: &mut yote::search::Engine,
    game: &yote::rules::Game,
) -> yote::rules::Move {
    use yote::search::{Limits, SearchRequest};
    let request = SearchRequest {
        limits: Limits {
            nodes: Some(1),
            ..Limits::default()
        },
        ..SearchRequest::default()
    };
    engine.search(game, request).best.expect("a legal move")
}

#[test]
fn with_one_node_the_engine_wins_fastest_loses_slowest_and_holds_draws() {
    use yote::rules::Game;
    let rules = Rules::standard();
    let mut engine = yote::search::Engine::new(yote::search::SearchOptions {
        tables: engine_tables(&rules),
        hash_mb: 1,
        ..yote::search::SearchOptions::default()
    });
    let reference = load_dir(&rules, standard_five(), 5).unwrap();
    let mut played = [0; 3];
    for class in [
        Class::new(2, 2, 0, 1),
        Class::new(3, 2, 0, 0),
        Class::new(2, 1, 1, 1),
        Class::new(1, 2, 2, 0),
    ] {
        let table = reference.table(class).unwrap();
        for index in (0..table.index.size()).step_by(2999) {
            let start = table.position(index);
            if rules.status(&start).is_some() {
                continue;
            }
            let value = table.value(index).unwrap();
            let mut game = Game::from_position(rules.clone(), start);
            // Both sides play with one node; the game must end exactly as the
            // table says (draws: stay drawn for 30 plies).
            let plies = match value {
                Value::Draw => 30,
                v => v.distance(),
            };
            for _ in 0..plies {
                if game.status().is_some() {
                    break;
                }
                let before = reference.probe(game.position()).unwrap();
                let mv = best_move_with_one_node(&mut engine, &game);
                let mut child = *game.position();
                rules.apply(&mut child, &mv);
                let same = child.side_to_move() == game.position().side_to_move();
                assert_eq!(
                    reference.probe(&child).unwrap().before_move(same),
                    before,
                    "{} played {}",
                    rules.position_text(game.position()),
                    rules.move_text(&mv)
                );
                game.play(&mv);
            }
            let end = game.status();
            match value {
                Value::Draw => {
                    assert!(end.is_none(), "{}", rules.position_text(&start));
                    played[1] += 1;
                }
                Value::Win(_) | Value::Loss(_) => {
                    let winner = end.and_then(|e| e.winner());
                    let mover_won = winner == Some(start.side_to_move());
                    assert_eq!(
                        mover_won,
                        matches!(value, Value::Win(_)),
                        "{}",
                        rules.position_text(&start)
                    );
                    assert_eq!(game.moves().len(), usize::from(value.distance()));
                    played[if mover_won { 0 } else { 2 }] += 1;
                }
            }
        }
    }
    assert!(
        played.iter().all(|&n| n > 3),
        "wins, draws, losses played: {played:?}"
    );
}

#[test]
fn tables_are_trusted_only_where_the_history_rules_cannot_change_the_result() {
    use yote::search::tables::Tables;
    let with = |spec: &str| rules(&format!("standard,{spec}"));
    // White wins in 5 plies here (class 3 2 0 0), 40 plies after the last capture.
    let fen = "6/6/2W3/1BWB2/W5 w 0 0 40 60";
    let base = Rules::standard();
    let pos = base.parse_position(fen).unwrap();
    let reference = load_dir(&base, standard_five(), 5).unwrap();
    let Value::Win(d) = reference.probe(&pos).unwrap() else {
        panic!("expected a win")
    };
    let d = u32::from(d);
    let keys = [pos.key()];
    let value = |rules: &Rules, keys: &[u64]| {
        let tables: Tables = engine_tables(rules);
        tables.prober(rules).unwrap().value(&pos, keys)
    };
    assert!(value(&base, &keys).is_some());
    // NoCaptureDraw: the win needs d more plies; 40 + d must fit in the limit.
    assert!(value(&with(&format!("no_capture_draw={}", 40 + d)), &keys).is_some());
    assert!(value(&with(&format!("no_capture_draw={}", 40 + d - 1)), &keys).is_none());
    // RepetitionDraw: positions since the last capture could come back.
    let history = [11, 12, 13, 12, pos.key()];
    assert!(
        value(&with("repetition_draw=2"), &keys).is_some(),
        "nothing before it"
    );
    assert!(value(&with("repetition_draw=2"), &history).is_none());
    assert!(
        value(&with("repetition_draw=3"), &history).is_none(),
        "12 occurred twice"
    );
    assert!(value(&with("repetition_draw=4"), &history).is_some());
    assert!(value(&with("repetition_draw=3"), &[11, 12, 13, pos.key()]).is_some());
    // A draw stays a draw whatever the history rules add.
    let drawn = base.parse_position("6/6/2W3/2B3/6 w 1 2 90 60").unwrap();
    assert_eq!(reference.probe(&drawn), Some(Value::Draw));
    let strict = with("no_capture_draw=91,repetition_draw=2");
    let tables = engine_tables(&strict);
    assert_eq!(
        tables
            .prober(&strict)
            .unwrap()
            .value(&drawn, &[1, 2, drawn.key()]),
        Some(Value::Draw)
    );
    // Unless the no-capture limit is judged on material: then it can turn
    // the draw into a win, and the table's draw is not used. A win that
    // fits in the limit still is, from the same tables.
    let judged = with("no_capture_draw=91,no_capture_outcome=more-pieces");
    let judged_tables = engine_tables(&judged);
    let prober = judged_tables.prober(&judged).unwrap();
    assert_eq!(prober.value(&drawn, &[drawn.key()]), None);
    let judged_win = with(&format!(
        "no_capture_draw={},no_capture_outcome=more-pieces",
        40 + d
    ));
    assert!(value(&judged_win, &keys).is_some());
    // Tables of other rules are never probed.
    let other = with("removal=none");
    assert!(engine_tables(&base).prober(&other).is_none());
}

/// Issue 19: with distances to the end a win was used only when the
/// whole game fitted in the no-capture limit. With distances to the next
/// capture every stretch between captures must fit, and no more: wins cut
/// by the limit under DTM are won under DTZ, exactly up to the limit.
#[test]
fn under_no_capture_draw_dtz_tables_win_every_win_that_fits_and_only_those() {
    use yote::rules::Game;
    use yote::search::tables::Tables;
    let base = rules("standard,rows=4,cols=4");
    let (dtz_dir, dtm_dir) = (temp_dir("nocap-dtz"), temp_dir("nocap-dtm"));
    let dtz = solve_in(&base, 6, Some(dtz_dir.clone()), Metric::Dtz);
    let dtm = solve_in(&base, 6, Some(dtm_dir.clone()), Metric::Dtm);
    // The longest stretch between captures in any class of 5 pieces or
    // fewer: a limit of at least that lets every later stretch fit.
    let longest_below = dtz
        .tables()
        .iter()
        .filter(|t| t.class().pieces() <= 5)
        .flat_map(|t| (0..t.index.size()).map(|i| t.value(i).unwrap().distance()))
        .max()
        .unwrap();
    let limit = u32::from(longest_below) + 10;
    let limited = rules(&format!("standard,rows=4,cols=4,no_capture_draw={limit}"));
    let load = |dir: &PathBuf, rules: &Rules| {
        let (tables, _, errors) = Tables::load(dir.to_str().unwrap(), 6, rules);
        assert!(errors.is_empty(), "{errors:?}");
        tables
    };
    let (dtz_tables, dtm_tables) = (load(&dtz_dir, &limited), load(&dtm_dir, &limited));
    let mut engine = yote::search::Engine::new(yote::search::SearchOptions {
        tables: dtz_tables.clone(),
        hash_mb: 1,
        ..yote::search::SearchOptions::default()
    });
    let mut won = 0;
    for table in dtz.tables().into_iter().filter(|t| t.class().pieces() == 6) {
        let by_dtm = dtm.table(table.class()).unwrap();
        for i in (0..table.index.size()).step_by(97) {
            let (Some(Value::Win(z)), Some(Value::Win(m))) = (table.value(i), by_dtm.value(i))
            else {
                continue;
            };
            let cells = table.position(i);
            if z >= m || base.status(&cells).is_some() || won == 12 {
                continue;
            }
            // The capture due exactly at the limit: usable by DTZ, not by
            // DTM (the end is m > z plies away); one ply later, by neither.
            let at = |plies: u32| {
                let text = base.position_text(&cells);
                let mut fields: Vec<String> = text.split(' ').map(str::to_string).collect();
                fields[4] = plies.to_string();
                limited.parse_position(&fields.join(" ")).unwrap()
            };
            let pos = at(limit - u32::from(z));
            let keys = [pos.key()];
            let dtz_prober = dtz_tables.prober(&limited).unwrap();
            assert_eq!(dtz_prober.value(&pos, &keys), Some(Value::Win(z)));
            assert_eq!(
                dtm_tables.prober(&limited).unwrap().value(&pos, &keys),
                None
            );
            let late = at(limit - u32::from(z) + 1);
            assert_eq!(dtz_prober.value(&late, &[late.key()]), None);
            // Played out with one node a move on both sides, under the
            // limit: the side to move wins.
            let mut game = Game::from_position(limited.clone(), pos);
            while game.status().is_none() && game.moves().len() < 400 {
                let mv = best_move_with_one_node(&mut engine, &game);
                game.play(&mv);
            }
            let winner = game.status().and_then(|e| e.winner());
            assert_eq!(
                winner,
                Some(pos.side_to_move()),
                "{}",
                limited.position_text(&pos)
            );
            won += 1;
        }
    }
    assert_eq!(won, 12, "positions where DTZ is shorter than DTM");
    // A limit shorter than a later stretch can be: the tables cannot say
    // whether that stretch will fit, and are not used.
    let tight = rules("standard,rows=4,cols=4,no_capture_draw=1");
    let tight_tables = load(&dtz_dir, &tight);
    let prober = tight_tables.prober(&tight).unwrap();
    assert!(longest_below > 1);
    let decisive = dtz
        .tables()
        .into_iter()
        .filter(|t| t.class().pieces() == 6)
        .flat_map(|t| (0..t.index.size()).map(|i| t.position(i)))
        .find(|p| matches!(dtz.probe(p), Some(Value::Win(1))) && base.status(p).is_none())
        .unwrap();
    assert_eq!(prober.value(&decisive, &[decisive.key()]), None);
    let loose = limited
        .parse_position(&base.position_text(&decisive))
        .unwrap();
    assert!(
        dtz_tables
            .prober(&limited)
            .unwrap()
            .value(&loose, &[loose.key()])
            .is_some()
    );
}

#[test]
fn the_protocol_reports_the_table_value_and_refuses_other_rules() {
    let rules = Rules::standard();
    let reference = load_dir(&rules, standard_five(), 5).unwrap();
    // A position of class 3 2 0 0 won in 7 plies.
    let table = reference.table(Class::new(3, 2, 0, 0)).unwrap();
    let index = (0..table.index.size())
        .find(|&i| table.value(i) == Some(Value::Win(7)))
        .unwrap();
    let board = rules.position_text(&table.position(index));
    let board = board.split(' ').next().unwrap();
    let dir = standard_five().to_str().unwrap().to_string();
    let set_path = format!("setoption name TablebasePath value {dir}");
    let position = format!("position fen {board} w 0 0 40 60");
    let (ok, out, err) = run(&["exec", &set_path, &position, "d", "go nodes 1"]);
    assert!(ok, "{err}");
    assert!(
        out.contains("info string tablebases: 33 classes of up to 5 pieces loaded"),
        "{out}"
    );
    assert!(out.contains("Tablebase: win in 7 plies for white"), "{out}");
    let info = out.lines().find(|l| l.starts_with("info depth")).unwrap();
    assert!(
        info.contains("score mate 4") && info.contains("tbhits 1"),
        "{info}"
    );
    // MultiPV at a table position: as many lines as asked, ranked by the
    // tables (issue 38: three lines asked, one shown), the first the move.
    let (ok, out, err) = run(&[
        "exec",
        &set_path,
        "setoption name MultiPV value 3",
        &position,
        "go nodes 1",
    ]);
    assert!(ok, "{err}");
    // (The protocol repeats the best line last, as the search's final word.)
    let lines: Vec<&str> = out
        .lines()
        .filter(|l| l.starts_with("info depth"))
        .take(3)
        .collect();
    assert_eq!(lines.len(), 3, "{out}");
    for (rank, line) in lines.iter().enumerate() {
        assert!(line.contains(&format!(" multipv {} ", rank + 1)), "{line}");
    }
    assert!(lines[0].contains("score mate 4"), "{}", lines[0]);
    let first_move = |line: &str| {
        line.split(" pv ")
            .nth(1)
            .unwrap()
            .split(' ')
            .next()
            .unwrap()
            .to_string()
    };
    let best = out
        .lines()
        .find_map(|l| l.strip_prefix("bestmove "))
        .unwrap();
    assert_eq!(best.split(' ').next().unwrap(), first_move(lines[0]));
    assert_ne!(first_move(lines[0]), first_move(lines[1]));
    // Under a no-capture limit too close for the win, the table is not used.
    let (_, out, _) = run(&[
        "exec",
        "setoption name NoCaptureDraw value 46",
        &set_path,
        &position,
        "d",
        "go depth 1",
    ]);
    assert!(
        !out.contains("Tablebase:") && !out.contains("score mate 4"),
        "{out}"
    );
    let (_, out, _) = run(&[
        "exec",
        "setoption name NoCaptureDraw value 47",
        &set_path,
        &position,
        "d",
    ]);
    assert!(out.contains("Tablebase: win in 7 plies"), "{out}");
    // Tables change neither what is legal nor when a game is over.
    let (_, out, _) = run(&[
        "exec",
        &set_path,
        "position fen 6/6/2W3/6/B5 w 0 3",
        "go nodes 1",
    ]);
    assert!(
        out.contains("game over: black wins") && out.contains("bestmove (none)"),
        "{out}"
    );
    let (_, out, _) = run(&["exec", &set_path, &position, "moves"]);
    let (_, perft, _) = run(&["perft", "1", "--fen", &format!("{board} w 0 0 40 60")]);
    assert_eq!(
        out.lines().last().unwrap().split(' ').count(),
        perft.lines().filter(|l| l.ends_with(": 1")).count()
    );
    // Other rules: every file refused, none probed.
    let (_, out, _) = run(&["exec", "setoption name Removal value none", &set_path]);
    assert!(
        out.contains("33 tablebase files refused") && out.contains("0 classes"),
        "{out}"
    );
}

/// Issue 19: with removals owed (a capture played as two turns, its jump
/// made) the tables gave the value of the position as if nothing were
/// owed: "win in 1" where every removal draws or loses.
#[test]
fn a_capture_owing_its_removals_takes_the_value_of_its_best_removal() {
    let dir = standard_five().to_str().unwrap().to_string();
    let fen = "W5/6/1WB2W/4B1/6 b 0 0 0 5 x1";
    let (ok, out, err) = run(&["tb", "probe", "--dir", &dir, "--fen", fen]);
    assert!(ok, "{err}");
    assert_eq!(
        out.lines().collect::<Vec<_>>(),
        [
            "value draw",
            "move xb3 draw",
            "move xf3 loss 2",
            "move xa5 loss 2",
            "distances dtm (plies to the end of the game)"
        ]
    );
    let set_path = format!("setoption name TablebasePath value {dir}");
    let position = format!("position fen {fen}");
    let (ok, out, err) = run(&["exec", &set_path, &position, "d", "go nodes 1"]);
    assert!(ok, "{err}");
    assert!(out.contains("Tablebase: draw for black"), "{out}");
    assert!(out.contains("bestmove xb3"), "{out}");
    // Every jump of a capture, from positions of the tables: the value
    // owing the removals is the best of the whole captures with that jump,
    // one ply later (the removal is a ply of its own).
    let rules = Rules::standard();
    let tables = load_dir(&rules, standard_five(), 5).unwrap();
    let mut checked = 0;
    let mut list = MoveList::new();
    for table in tables.tables() {
        for index in (0..table.index.size()).step_by(1009) {
            let pos = table.position(index);
            if rules.status(&pos).is_some() {
                continue;
            }
            rules.legal_moves(&pos, &mut list);
            let moves: Vec<_> = list.iter().copied().collect();
            for mv in &moves {
                let Some((jumped, _)) = rules.split_capture(&pos, mv) else {
                    continue;
                };
                let best = moves
                    .iter()
                    .filter(|m| {
                        rules
                            .split_capture(&pos, m)
                            .is_some_and(|(j, _)| j == jumped)
                    })
                    .map(|m| {
                        let mut child = pos;
                        rules.apply(&mut child, m);
                        let same = child.side_to_move() == jumped.side_to_move();
                        tables.probe(&child).unwrap().before_move(same)
                    })
                    .max();
                assert_eq!(
                    tables.probe(&jumped),
                    best,
                    "{}",
                    rules.position_text(&jumped)
                );
                checked += 1;
            }
        }
    }
    assert!(checked > 300, "{checked}");
}

/// Runs the engine on `input` through a pipe, as a GUI would; None when it
/// has not exited within `seconds` (it is then killed).
fn engine_session(input: &str, seconds: u64) -> Option<String> {
    engine_with_args(&[], input, seconds)
}

/// `engine_session` with command-line arguments (`exec …`).
fn engine_with_args(args: &[&str], input: &str, seconds: u64) -> Option<String> {
    use std::io::Write;
    let mut child = Command::new(BIN)
        .args(args)
        .stdin(std::process::Stdio::piped())
        .stdout(std::process::Stdio::piped())
        .stderr(std::process::Stdio::null())
        .spawn()
        .unwrap();
    let mut stdin = child.stdin.take().unwrap();
    let input = input.to_string();
    let writer = std::thread::spawn(move || {
        let _ = stdin.write_all(input.as_bytes());
    });
    let deadline = std::time::Instant::now() + std::time::Duration::from_secs(seconds);
    while child.try_wait().unwrap().is_none() {
        if std::time::Instant::now() > deadline {
            let _ = child.kill();
            let _ = child.wait();
            return None;
        }
        std::thread::sleep(std::time::Duration::from_millis(20));
    }
    writer.join().unwrap();
    let mut out = String::new();
    std::io::Read::read_to_string(&mut child.stdout.take().unwrap(), &mut out).unwrap();
    Some(out)
}

/// Issue 19: a FIFO named like a table file blocked loading for ever (and
/// `tb generate` on that directory); loading now opens regular files only.
#[test]
fn a_fifo_named_like_a_table_is_skipped_not_opened() {
    let dir = temp_dir("fifo");
    std::fs::create_dir_all(&dir).unwrap();
    for name in ["2-2-0-0.ytw", "2-2-0-0.ytb", "3-2-0-0.ytw"] {
        let status = Command::new("mkfifo").arg(dir.join(name)).status().unwrap();
        assert!(status.success());
    }
    let d = dir.to_str().unwrap();
    let out = engine_session(
        &format!("setoption name TablebasePath value {d}\nisready\nquit\n"),
        20,
    )
    .expect("the engine answers and quits");
    assert!(out.contains("readyok"), "{out}");
    // Given up front (`exec`, no quit to race), the loading finishes and
    // names what it skipped.
    let set_path = format!("setoption name TablebasePath value {d}");
    let out = engine_with_args(&["exec", &set_path, "isready"], "", 20).expect("no hang");
    assert!(out.contains("not a regular file"), "{out}");
    // Generation solves the classes again over what is no table.
    let (ok, _, err) = run(&[
        "tb",
        "generate",
        "--pieces",
        "4",
        "--variant",
        "rows=3,cols=3",
        "--dir",
        d,
    ]);
    assert!(ok, "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 19: a path list of 500,000 entries took ~35 minutes to load with
/// `quit` ignored; the directories searched are now bounded.
#[test]
fn a_path_list_of_half_a_million_entries_loads_at_once() {
    let same = "x:".repeat(500_000);
    let distinct: Vec<String> = (0..150_000).map(|i| format!("{i:x}")).collect();
    for list in [same, distinct.join(":")] {
        let out = engine_session(
            &format!("setoption name TablebasePath value {list}\nisready\nquit\n"),
            30,
        )
        .expect("the engine answers and quits");
        assert!(out.contains("readyok"), "{out}");
    }
    let out = engine_session(
        &format!(
            "setoption name TablebasePath value {}\nisready\nquit\n",
            distinct.join(":")
        ),
        30,
    )
    .unwrap();
    assert!(
        out.contains("150000 directories, only the first 32 are searched"),
        "{out}"
    );
}

/// Issue 19: a file with a sound header and a long tail was read whole
/// (1 GB resident) before its refusal; the size is now compared with the
/// header first, in both formats.
#[test]
fn a_long_tail_is_refused_before_it_is_read() {
    let dir = temp_dir("tail");
    let rules = rules("rows=3,cols=3");
    solve(&rules, 4, Some(dir.clone()));
    let class = Class::new(2, 2, 0, 0);
    let path = file::path(&dir, class);
    let sound = std::fs::metadata(&path).unwrap().len();
    // Sparse: a gigabyte of tail without a gigabyte of disk.
    let grow = |path: &std::path::Path| {
        let f = std::fs::OpenOptions::new().write(true).open(path).unwrap();
        f.set_len(sound + (1 << 30)).unwrap();
    };
    grow(&path);
    let start = std::time::Instant::now();
    match load_dir(&rules, &dir, 4) {
        Err(TableFileError::Format(_, TableBytesError::Malformed(what))) => {
            assert!(what.contains("size"), "{what}")
        }
        other => panic!("expected a size error, got {other:?}"),
    }
    assert!(start.elapsed().as_secs() < 5);
    // Version 1: `tb pack` refuses it the same way.
    let old = temp_dir("tail-v1");
    std::fs::create_dir_all(&old).unwrap();
    let v1 = old.join("2-2-0-0.ytb");
    let header = format!(
        "yote-tablebase\nformat 1\nrules {}\nclass 2 2 0 0\npositions {}\nwidth 1\ncrc32 00000000\n\n",
        file::table_rules(rules.variant()),
        class.size(9)
    );
    std::fs::write(&v1, header).unwrap();
    let f = std::fs::OpenOptions::new().write(true).open(&v1).unwrap();
    f.set_len(1 << 30).unwrap();
    let packed = old.join("packed");
    let (ok, _, err) = run(&[
        "tb",
        "pack",
        "--from",
        old.to_str().unwrap(),
        "--to",
        packed.to_str().unwrap(),
    ]);
    assert!(!ok && err.contains("data length"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
    let _ = std::fs::remove_dir_all(&old);
}

/// Issue 19: any rule option, NoCaptureDraw included, reloaded every
/// table; only the rules the tables depend on do now.
#[test]
fn only_rules_the_tables_depend_on_reload_them() {
    let dir = standard_five().to_str().unwrap().to_string();
    let set_path = format!("setoption name TablebasePath value {dir}");
    let (ok, out, err) = run(&[
        "exec",
        &set_path,
        "setoption name NoCaptureDraw value 50",
        "setoption name RepetitionDraw value 3",
        "setoption name NoCaptureOutcome value more-pieces",
        "setoption name Removal value none",
    ]);
    assert!(ok, "{err}");
    let loads: Vec<&str> = out
        .lines()
        .filter(|l| l.contains("tablebases:") || l.contains("refused"))
        .collect();
    // The first load, then the one for Removal none (whose files are
    // refused: other rules).
    assert_eq!(loads.len(), 3, "{out}");
    assert!(loads[0].contains("33 classes"), "{out}");
    assert!(loads[1].contains("made for other rules"), "{out}");
}

/// Version-1 files are refused with how to convert them, and `tb pack`
/// converts them into tables that probe the same.
#[test]
fn old_format_tables_are_refused_with_how_to_convert_them_and_packed() {
    let dir = temp_dir("pack");
    let rules = rules("rows=3,cols=3");
    let tables = solve(&rules, 4, None);
    let old = dir.join("old");
    std::fs::create_dir_all(&old).unwrap();
    let spec = file::table_rules(rules.variant());
    for table in tables.tables() {
        file::write_legacy(&old, &spec, table).unwrap();
    }
    let o = old.to_str().unwrap();
    let (ok, out, _) = run(&[
        "exec",
        "setoption name Variant value standard,rows=3,cols=3",
        &format!("setoption name TablebasePath value {o}"),
    ]);
    assert!(ok);
    assert!(
        out.contains("format version 1") && out.contains(&format!("yote tb pack --from {o}")),
        "{out}"
    );
    let new = dir.join("new");
    let n = new.to_str().unwrap();
    let (ok, out, err) = run(&["tb", "pack", "--from", o, "--to", n]);
    assert!(ok && out.starts_with("packed 9 classes"), "{out}{err}");
    let packed = read_dir(&rules, &new, 4).unwrap();
    assert_eq!(stats_lines(&packed), stats_lines(&tables));
    let (ok, _, err) = run(&["tb", "stats", "--dir", o]);
    assert!(!ok && err.contains("yote tb pack"), "{err}");
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 19: as Stockfish's SyzygyProbeDepth, the search probes positions
/// of the largest piece count in use only with TablebaseProbeDepth plies
/// left, smaller ones wherever it has depth left, and nothing in the
/// quiescence search (depth 0) — except with TablebaseProbeDepth 0 (the
/// default), where every node probes, the quiescence search included.
#[test]
fn the_search_probes_the_largest_classes_only_from_the_probe_depth() {
    let rules = Rules::standard();
    let tables = engine_tables(&rules);
    let reference = load_dir(&rules, standard_five(), 5).unwrap();
    let first_decisive = |class: Class| {
        let table = reference.table(class).unwrap();
        (0..table.index.size())
            .map(|i| table.position(i))
            .find(|p| rules.status(p).is_none() && reference.probe(p) != Some(Value::Draw))
            .expect("a decisive position")
    };
    let five = first_decisive(Class::new(3, 2, 0, 0));
    let four = first_decisive(Class::new(2, 2, 0, 0));
    let prober = tables.prober(&rules).unwrap().with_probe_depth(3);
    let probed = |pos: &yote::rules::Position, depth| {
        prober.leaf_score(pos, &[pos.key()], 1, depth).is_some()
    };
    assert!(!probed(&five, 2) && probed(&five, 3) && probed(&five, 9));
    assert!(!probed(&four, 0) && probed(&four, 1) && probed(&four, 2));
    let prober = prober.with_probe_depth(0);
    let probed = |pos: &yote::rules::Position, depth| {
        prober.leaf_score(pos, &[pos.key()], 1, depth).is_some()
    };
    assert!(probed(&five, 0) && probed(&five, 1) && probed(&four, 0));
    // The option reaches the search: with the depth above the search's,
    // fewer positions are probed.
    let tbhits = |probe_depth: u32| -> u64 {
        let dir = standard_five().to_str().unwrap();
        let (ok, out, err) = run(&[
            "exec",
            &format!("setoption name TablebasePath value {dir}"),
            "setoption name TablebasePieces value 5",
            &format!("setoption name TablebaseProbeDepth value {probe_depth}"),
            "position fen 6/1WB1B1/6/1W2B1/6 w 1 1 0 20",
            // Deep enough that quiescence reaches table positions the main
            // search does not (at depth 6 it no longer did after 2a7253f).
            "go depth 8",
        ]);
        assert!(ok, "{err}");
        let last = out.lines().rfind(|l| l.starts_with("info depth 8 "));
        let last = last.unwrap_or_else(|| panic!("{out}"));
        let at = last.split(' ').position(|w| w == "tbhits").expect(last);
        last.split(' ').nth(at + 1).unwrap().parse().unwrap()
    };
    let (quiescence_too, main_only, deep_only) = (tbhits(0), tbhits(1), tbhits(100));
    assert!(deep_only < main_only, "{deep_only} against {main_only}");
    assert!(
        main_only < quiescence_too,
        "{main_only} against {quiescence_too}"
    );
}

/// Issue 19: TablebaseCache sizes the decoded blocks a process keeps; it
/// changes only the speed, never a value: a 1 MiB cache (128 blocks, most
/// probes evicting another) searches exactly as the default does.
#[test]
fn the_block_cache_size_changes_no_search_result() {
    let dir = standard_five().to_str().unwrap().to_string();
    let search = |cache: &str| -> Vec<String> {
        let (ok, out, err) = run(&[
            "exec",
            &format!("setoption name TablebasePath value {dir}"),
            "setoption name TablebasePieces value 5",
            &format!("setoption name TablebaseCache value {cache}"),
            "position fen 6/1WB1B1/6/1W2B1/6 w 1 1 0 20",
            "go depth 7",
        ]);
        assert!(ok, "{err}");
        out.lines()
            .filter(|l| l.starts_with("info depth") || l.starts_with("bestmove"))
            .map(|l| {
                // What the clock decides (`time`, `nps` and their values) is
                // not compared.
                let mut kept = Vec::new();
                let mut words = l.split(' ');
                while let Some(word) = words.next() {
                    if word == "time" || word == "nps" {
                        words.next();
                    } else {
                        kept.push(word);
                    }
                }
                kept.join(" ")
            })
            .collect()
    };
    let (small, default) = (search("1"), search("256"));
    assert!(small.iter().any(|l| l.contains("tbhits")), "{small:?}");
    assert_eq!(small, default);
    let (ok, out, _) = run(&["exec", "setoption name TablebaseCache value 0"]);
    assert!(
        ok && out.contains("TablebaseCache must be between 1 and"),
        "{out}"
    );
}

/// Files of the first format 2 (deflate, blocks of 16 384 positions) are
/// still read: a probe past their first block found the wrong block (the
/// block size of the files written now) and panicked the search.
#[test]
fn files_of_the_first_format_2_probe_every_block() {
    let rules = Rules::standard();
    let dir = temp_dir("deflate");
    std::fs::create_dir_all(&dir).unwrap();
    for ext in ["ytw", "ytd"] {
        let name = format!("1-3-1-0.{ext}");
        std::fs::copy(
            format!("tests/data/format2-deflate/{name}"),
            dir.join(&name),
        )
        .unwrap();
    }
    let old = load_dir(&rules, &dir, 5).unwrap();
    let reference = load_dir(&rules, standard_five(), 5).unwrap();
    let class = Class::new(1, 3, 1, 0);
    let table = reference.table(class).unwrap();
    let size = table.index.size();
    assert!(size > 3 * 16_384, "{size} positions");
    let mut decisive = 0;
    for i in 0..size {
        let pos = table.position(i);
        let value = old.probe(&pos);
        assert_eq!(
            value,
            reference.probe(&pos),
            "{}",
            rules.position_text(&pos)
        );
        decisive += usize::from(value != Some(Value::Draw));
    }
    assert!(decisive > 1000, "{decisive} decisive positions");
    let _ = std::fs::remove_dir_all(&dir);
}

/// A probe that may not decode answers only from blocks already in the
/// process's cache: nothing before the block is decoded, the exact value
/// (for every position of that block) after, and still nothing from a block
/// that was never read.
#[test]
fn a_probe_without_decoding_answers_only_from_decoded_blocks() {
    use yote::tablebase::{Decode, Wdl};
    let rules = Rules::standard();
    // A fresh load: its files have new cache keys, whatever other tests read.
    let tables = load_dir(&rules, standard_five(), 5).unwrap();
    let table = tables.table(Class::new(1, 3, 1, 0)).unwrap();
    assert!(table.index.size() > 40_100, "{}", table.index.size());
    let wdl = |i: u64| -> Wdl { tables.probe(&table.position(i)).unwrap().into() };
    let (first, neighbour, far) = (40_000, 40_050, 100);
    assert_eq!(
        tables.probe_wdl(&table.position(first), Decode::CachedOnly),
        None
    );
    assert_eq!(
        tables.probe_wdl(&table.position(first), Decode::Always),
        Some(wdl(first))
    );
    assert_eq!(
        tables.probe_wdl(&table.position(neighbour), Decode::CachedOnly),
        Some(wdl(neighbour))
    );
    assert_eq!(
        tables.probe_wdl(&table.position(far), Decode::CachedOnly),
        None
    );
}

/// A 3×3 set of up to 4 pieces (DTZ, what the engine loads by default) in
/// a fresh directory, and its rules.
fn small_set(name: &str) -> (PathBuf, Rules) {
    let dir = temp_dir(name);
    let rules = rules("rows=3,cols=3");
    solve_in(&rules, 4, Some(dir.clone()), Metric::Dtz);
    (dir, rules)
}

/// A position of `class` whose game goes on and that the tables decide.
fn decided_position(dir: &std::path::Path, rules: &Rules, class: Class) -> String {
    let set = load_dir(rules, dir, 4).unwrap();
    let table = set.table(class).unwrap();
    let index = (0..table.index.size())
        .find(|&i| {
            let pos = table.position(i);
            matches!(table.value(i), Some(Value::Win(d)) if d > 2) && rules.status(&pos).is_none()
        })
        .expect("a won position");
    rules.position_text(&table.position(index))
}

/// Issue 39, item 9: `cp other.ytw tables/3-2-0-0.ytw` while the engine had
/// the set mapped made the next probe panic in the search thread (a block
/// offset read from the new bytes, trusted since the one check at mapping)
/// and that `go` never answered. What a probe reads from a mapped file is
/// checked where it is used: the file is then dropped ("no table") with
/// one `info string`, and the search answers.
#[test]
fn a_table_overwritten_in_place_while_mapped_is_dropped_and_the_search_answers() {
    let (dir, rules) = small_set("overwritten");
    // A class of the middle size: others' files are larger and smaller.
    let class = Class::new(1, 2, 1, 0);
    let target = file::path(&dir, class);
    let position = decided_position(&dir, &rules, class);
    let size = |p: &std::path::Path| std::fs::metadata(p).unwrap().len();
    // Another class's win/draw/loss file, larger and then smaller.
    let mut others: Vec<PathBuf> = std::fs::read_dir(&dir)
        .unwrap()
        .map(|e| e.unwrap().path())
        .filter(|p| p.extension().is_some_and(|e| e == "ytw") && *p != target)
        .collect();
    others.sort_by_key(|p| size(p));
    let sound = std::fs::read(&target).unwrap();
    let larger = others.last().unwrap().clone();
    let smaller = others.first().unwrap().clone();
    assert!(size(&larger) > size(&target) && size(&smaller) < size(&target));
    for other in [larger, smaller] {
        std::fs::write(&target, &sound).unwrap();
        let mut e = support::Engine::start();
        e.send("uci");
        e.until(|l| l == "uciok");
        e.ask("setoption name VariantSpec value rows=3,cols=3");
        let out = e.ask(&format!(
            "setoption name TablebasePath value {}",
            dir.display()
        ));
        assert!(out.iter().any(|l| l.contains("tablebases: ")), "{out:?}");
        e.ask(&format!("position fen {position}"));
        // The first search maps the file and decodes its block.
        e.send("go depth 3");
        let first = e.bestmove();
        assert!(first.iter().any(|l| l.contains("tbhits")), "{first:?}");
        // Overwritten in place (same inode, as `cp` does), and the block
        // cache emptied so that the next probe reads the mapping again.
        std::fs::write(&target, std::fs::read(&other).unwrap()).unwrap();
        e.ask("setoption name TablebaseCache value 7");
        e.send("go depth 3");
        let lines = e.bestmove();
        assert!(
            lines.last().unwrap().starts_with("bestmove ")
                && lines.last().unwrap() != "bestmove (none)",
            "{other:?}: {lines:?}"
        );
        let notes: Vec<&String> = lines
            .iter()
            .filter(|l| l.starts_with("info string") && l.contains("1-2-1-0.ytw"))
            .collect();
        assert_eq!(notes.len(), 1, "{other:?}: {lines:?}");
        // Dropped for good: the next search neither probes it nor says so
        // again, and the engine still answers.
        e.send("go depth 3");
        let again = e.bestmove();
        assert!(
            !again.iter().any(|l| l.contains("1-2-1-0.ytw")),
            "{again:?}"
        );
        assert_eq!(e.ask("isready"), Vec::<String>::new());
        assert!(e.alive());
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// Issue 39, item 10: a table that is a symbolic link loop, or whose
/// distance file (`.ytz`) is missing, was skipped without a word; loading
/// now names each.
#[test]
fn a_symlink_loop_or_a_missing_partner_file_is_named_at_loading() {
    let (dir, _) = small_set("partners");
    let looped = file::path(&dir, Class::new(2, 2, 0, 0));
    std::fs::remove_file(&looped).unwrap();
    std::os::unix::fs::symlink(&looped, &looped).unwrap();
    let dangling = file::path(&dir, Class::new(2, 1, 0, 1));
    std::fs::remove_file(&dangling).unwrap();
    std::os::unix::fs::symlink(dir.join("nosuch.ytw"), &dangling).unwrap();
    let partnerless = Class::new(1, 1, 1, 1);
    let partner = yote::tablebase::format::path(
        &dir,
        partnerless,
        yote::tablebase::format::Kind::Distance(Metric::Dtz),
    );
    std::fs::remove_file(&partner).unwrap();
    let set_path = format!("setoption name TablebasePath value {}", dir.display());
    let (ok, out, err) = run(&[
        "exec",
        "setoption name VariantSpec value rows=3,cols=3",
        &set_path,
    ]);
    assert!(ok, "{err}");
    for (name, why) in [
        ("2-2-0-0.ytw", "symbolic link"),
        ("2-1-0-1.ytw", "symbolic link"),
        ("1-1-1-1.ytz", "missing"),
    ] {
        assert!(
            out.lines().any(|l| l.starts_with("info string error: ")
                && l.contains(name)
                && l.contains(why)),
            "{name}: {out}"
        );
    }
    let _ = std::fs::remove_dir_all(&dir);
}

/// The checked classes of a `tb verify` run, from its lines on stderr.
fn verified_classes(stderr: &str) -> Vec<String> {
    let mut classes: Vec<String> = stderr
        .lines()
        .filter_map(|l| l.strip_prefix("class "))
        .filter_map(|l| l.split_once(':').map(|(c, _)| c.to_string()))
        .collect();
    classes.sort();
    classes
}

#[test]
fn verify_splits_by_pieces_and_shares_and_resumes_from_its_journal() {
    let spec = "rows=4,cols=4,removal=none";
    let dir = temp_dir("verify-split");
    solve_in(&rules(spec), 5, Some(dir.clone()), Metric::Dtz);
    let d = dir.to_str().unwrap();
    let (ok, _, all) = run(&["tb", "verify", "--dir", d, "--threads", "1"]);
    assert!(ok, "{all}");
    let every = verified_classes(&all);
    assert!(every.len() > 20, "{all}");
    // Three shares check every class once between them.
    let mut shared = Vec::new();
    for k in 1..=3 {
        let share = format!("{k}/3");
        let (ok, _, err) = run(&["tb", "verify", "--dir", d, "--classes", &share]);
        assert!(ok, "{err}");
        let mine = verified_classes(&err);
        assert!(
            !mine.is_empty() && mine.len() < every.len(),
            "{share}: {err}"
        );
        shared.extend(mine);
    }
    shared.sort();
    assert_eq!(shared, every);
    // --pieces 5: only the classes of five pieces.
    let (ok, _, five) = run(&["tb", "verify", "--dir", d, "--pieces", "5"]);
    assert!(ok, "{five}");
    let fives = verified_classes(&five);
    assert!(!fives.is_empty() && fives.len() < every.len(), "{five}");
    let pieces = |c: &String| c.split(' ').map(|n| n.parse::<u32>().unwrap()).sum::<u32>();
    assert!(fives.iter().all(|c| pieces(c) == 5), "{five}");
    // A journal from a run stopped after its first classes (a last line
    // cut short by the kill): the rerun checks the rest, and only them.
    let journal = dir.join("verify.journal");
    let stems: Vec<String> = every.iter().map(|c| c.replace(' ', "-")).collect();
    std::fs::write(
        &journal,
        format!("{} 1\n{} 1\n{}", stems[0], stems[1], stems[2]),
    )
    .unwrap();
    let j = journal.to_str().unwrap();
    let (ok, out, rest) = run(&["tb", "verify", "--dir", d, "--journal", j]);
    assert!(ok, "{rest}");
    assert_eq!(verified_classes(&rest), every[2..].to_vec(), "{rest}");
    assert!(
        out.contains(&format!("in {} classes", every.len() - 2)),
        "{out}"
    );
    let recorded = std::fs::read_to_string(&journal).unwrap();
    assert_eq!(recorded.lines().count(), every.len(), "{recorded}");
    // Done: a rerun checks nothing.
    let (ok, out, err) = run(&["tb", "verify", "--dir", d, "--journal", j]);
    assert!(
        ok && out.starts_with("verified 0 positions in 0 classes"),
        "{out}{err}"
    );
    // A journal that is not one: refused, naming the line.
    std::fs::write(&journal, "hello world\n").unwrap();
    let (ok, _, err) = run(&["tb", "verify", "--dir", d, "--journal", j]);
    assert!(!ok && err.contains("line 1: 'hello world'"), "{err}");
    let (ok, _, err) = run(&["tb", "verify", "--dir", d, "--classes", "4/3"]);
    assert!(!ok && err.contains("--classes wants K/N"), "{err}");
}

/// `tb stats --pieces` reads one class at a time from the files: the same
/// counts as the whole set read into memory, the longest loss `-` where the
/// file stores wins only, and a sum line that adds the classes up.
#[test]
fn stats_of_one_piece_count_agree_with_the_whole_set() {
    let dir = temp_dir("stats-pieces");
    solve_in(
        &rules("rows=4,cols=4,removal=none"),
        5,
        Some(dir.clone()),
        Metric::Dtz,
    );
    let d = dir.to_str().unwrap();
    let (ok, whole, err) = run(&["tb", "stats", "--dir", d]);
    assert!(ok, "{err}");
    let (ok, five, err) = run(&["tb", "stats", "--dir", d, "--pieces", "5"]);
    assert!(ok, "{err}");
    assert!(
        err.contains("CPU s") && err.contains("peak memory"),
        "{err}"
    );
    let fields =
        |line: &str| -> Vec<String> { line.split_whitespace().map(str::to_string).collect() };
    let whole_five: Vec<&str> = whole
        .lines()
        .filter(|l| {
            l.strip_prefix("class ").is_some_and(|c| {
                let class = c.split(':').next().unwrap();
                class
                    .split(' ')
                    .map(|n| n.parse::<u32>().unwrap())
                    .sum::<u32>()
                    == 5
            })
        })
        .collect();
    let mine: Vec<&str> = five.lines().filter(|l| l.starts_with("class ")).collect();
    assert!(!mine.is_empty(), "{five}");
    assert_eq!(mine.len(), whole_five.len(), "{five}\n{whole}");
    let mut sum = [0u64; 4];
    let mut some_derived = false;
    for (a, b) in mine.iter().zip(&whole_five) {
        let (a, b) = (fields(a), fields(b));
        // Class, positions, wins, draws, losses, longest win agree.
        assert_eq!(a[..a.len() - 1], b[..b.len() - 1], "{a:?} {b:?}");
        let last = a.last().unwrap();
        some_derived |= last == "-";
        assert!(last == "-" || last == b.last().unwrap(), "{a:?} {b:?}");
        let n = a.len();
        for (i, s) in sum.iter_mut().enumerate() {
            *s += a[n - 6 + i].parse::<u64>().unwrap();
        }
    }
    assert!(some_derived, "these files store their wins only: {five}");
    let total = five
        .lines()
        .find(|l| l.starts_with("5 pieces: "))
        .expect("a sum line");
    let t = fields(total);
    let got: Vec<u64> = t[2..6].iter().map(|x| x.parse().unwrap()).collect();
    assert_eq!(got, sum, "{total}");
    let (ok, _, err) = run(&["tb", "stats", "--dir", d, "--pieces", "9"]);
    assert!(!ok && err.contains("no classes of 9 pieces"), "{err}");
}

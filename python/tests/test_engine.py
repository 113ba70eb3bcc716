"""Tests of yote.engine, the engine client: run by pytest with the native
part built (.ci/run) and by `cargo test --release` without it
(tests/scripts.rs sets YOTE_TEST_PURE=1, which hides the native part).

The engine under test is $YOTE_ENGINE (default target/release/yote). The
regression tests of issue 17 feed the inputs that put the old client out of
step with the engine.
"""

import io
import os
import re
import subprocess
import sys
import tempfile
import textwrap
import time
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))
import client_fuzz  # noqa: E402

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
SCRIPTS = os.path.join(REPO, "scripts")
if os.environ.get("YOTE_TEST_PURE"):
    # The pure-Python client, as where the native part is not built.
    sys.modules["yote._yote"] = None
try:
    import yote  # noqa: E402
except ImportError:  # not installed: the source tree
    sys.path.insert(0, os.path.join(REPO, "python"))
    import yote  # noqa: E402

HAS_NATIVE = yote.HAS_NATIVE

from yote.engine import (  # noqa: E402
    BLACK,
    WHITE,
    AnalysisComplete,
    BestMove,
    Cp,
    Engine,
    EngineError,
    EngineTerminatedError,
    Limit,
    Mate,
    MateGiven,
    Position,
    PovScore,
    Record,
    parse_info,
    parse_option,
    play_against_person,
    play_game,
    read_records,
    write_records,
)

ENGINE = os.environ.get("YOTE_ENGINE", os.path.join(REPO, "target", "release", "yote"))

# 8x8 MultiJump, a White piece in a lattice of Black ones: 1.5e12 legal
# moves, more than the engine lists (tests/hostile.rs has the same).
HUGE_SPEC = "standard,rows=8,cols=8,pieces=64,multi_jump=true"
HUGE_FEN = "BBBBBBBB/1B1B1B1B/BBBBBBBB/1B1B1B1B/BBBBBBBB/1B1B1B1B/BBBBBBBB/WB1B1B1B w 10 0 0 1"


def assert_in_step(test, engine):
    """Nothing is owed and nothing unread: the engine answers the next
    command and nothing else."""
    engine.ping()
    time.sleep(0.05)
    test.assertFalse(engine._reader.has_unread(), "unread engine output")
    test.assertFalse(engine._out_of_step)
    test.assertFalse(engine._search_may_run)


def unchecked(variant="standard", fen=None, moves=()):
    """A game whose moves skip the client's own check (appended to the
    plain list), so that the engine's refusal is what is tested."""
    position = Position(variant, fen)
    position.moves.extend(moves)
    return position


class ParsingTest(unittest.TestCase):
    def test_info_line_with_every_field(self):
        info = parse_info(
            "info depth 7 seldepth 11 multipv 2 score cp -35 nodes 1234 nps 99 "
            "time 12 hashfull 3 tbhits 5 pv @c3 c3c4 d4d2xa1",
            BLACK,
        )
        self.assertEqual(info["depth"], 7)
        self.assertEqual(info["seldepth"], 11)
        self.assertEqual(info["multipv"], 2)
        self.assertEqual(info["score"], PovScore(Cp(-35), BLACK))
        self.assertEqual(info["score"].white(), Cp(35))
        self.assertEqual(info["nodes"], 1234)
        self.assertEqual(info["nps"], 99)
        self.assertEqual(info["time"], 0.012)
        self.assertEqual(info["hashfull"], 3)
        self.assertEqual(info["tbhits"], 5)
        self.assertEqual(info["pv"], ["@c3", "c3c4", "d4d2xa1"])

    def test_strings_bounds_and_malformed_fields(self):
        self.assertEqual(parse_info("info string variant standard startpos x"),
                         {"string": "variant standard startpos x"})
        self.assertEqual(parse_info("info depth 3 nodes 10"), {"depth": 3, "nodes": 10})
        bound = parse_info("info depth 4 score cp 20 lowerbound pv a1a2")
        self.assertTrue(bound["lowerbound"])
        self.assertEqual(bound["pv"], ["a1a2"])
        with self.assertLogs("yote.engine", "WARNING"):
            self.assertEqual(parse_info("info depth x nodes 5"), {"nodes": 5})
        self.assertIsNone(parse_info("bestmove a1a2"))

    def test_option_lines(self):
        spin = parse_option("option name Hash type spin default 16 min 1 max 4096")
        self.assertEqual((spin.name, spin.type, spin.default, spin.min, spin.max), ("Hash", "spin", "16", 1, 4096))
        combo = parse_option("option name Style type combo default search var search var random var greedy")
        self.assertEqual(combo.vars, ("search", "random", "greedy"))
        button = parse_option("option name Clear Hash type button")
        self.assertEqual(button.name, "Clear Hash")
        self.assertIsNone(parse_option("id name Yote"))

    def test_limit_in_seconds(self):
        self.assertEqual(Limit(time=0.25).go_arguments(), ["movetime", "250"])
        self.assertEqual(Limit(nodes=5, depth=2).go_arguments(), ["depth", "2", "nodes", "5"])
        clocks = Limit(white_clock=60, black_clock=59.5, white_inc=1, black_inc=0.5, remaining_moves=20)
        self.assertEqual(" ".join(clocks.go_arguments()),
                         "p1time 60000 p2time 59500 p1inc 1000 p2inc 500 movestogo 20")
        self.assertEqual(clocks.seconds(BLACK), 60.0)
        self.assertIsNone(Limit(depth=3).seconds(WHITE))
        self.assertEqual(Limit().go_arguments(), [])
        for bad in (Limit(time=-1), Limit(depth=2.5), Limit(nodes=-3)):
            with self.assertRaises(ValueError):
                bad.go_arguments()

    def test_scores_from_either_side(self):
        self.assertEqual(PovScore(Cp(50), BLACK).white(), Cp(-50))
        self.assertEqual(PovScore(Cp(50), BLACK).black(), Cp(50))
        self.assertEqual(PovScore(Mate(3), WHITE).pov(BLACK), Mate(-3))
        self.assertEqual(PovScore(Mate(3), WHITE), PovScore(Mate(-3), BLACK))
        self.assertEqual(-Mate(0), MateGiven)
        self.assertEqual(-MateGiven, Mate(0))
        # Best first, as the side the score belongs to ranks them.
        ranked = [MateGiven, Mate(1), Mate(5), Cp(900), Cp(0), Cp(-900), Mate(-5), Mate(-1), Mate(0)]
        self.assertEqual(sorted(reversed(ranked), reverse=True), ranked)
        self.assertEqual(Mate(3).score(mate_score=10000), 9997)
        self.assertEqual(Mate(-3).score(mate_score=10000), -9997)
        self.assertIsNone(Mate(2).score())
        self.assertEqual(Cp(7).score(), 7)
        self.assertEqual((str(Cp(150)), str(Mate(-2)), str(Mate(4))), ("+150", "#-2", "#+4"))

    def test_position_text_cannot_inject_a_line(self):
        self.assertEqual(Position(moves=["@c3", "@d3"]).command(), "position startpos moves @c3 @d3")
        self.assertEqual(Position("5x5", "5/5/5/5/5 w 12 12 0 1").command(), "position fen 5/5/5/5/5 w 12 12 0 1")
        bad = (dict(moves=["@c3 @d3"]), dict(moves=[""]), dict(moves=["@c3\nquit"]),
               dict(fen="6/6/6/6/6 w 12 12 0 1\ngo infinite"))
        for fields in bad:
            with self.assertRaises(ValueError):
                Position(**fields).command()
            with self.assertRaises(ValueError):
                unchecked(**fields).command()


class RecordsTest(unittest.TestCase):
    def test_round_trip_with_comments_escapes_and_black_first(self):
        record = Record(
            {"Event": 'a "quoted" \\ event', "FEN": "6/6/6/6/6 b 12 12 0 1"},
            ["@c3", "@d3", "@a1"],
            "0-1",
            [None, "+0.25/7 0.1s", None],
        )
        sink = io.StringIO()
        write_records([record, record], sink)
        text = sink.getvalue()
        self.assertIn("1... @c3 2. @d3 {+0.25/7 0.1s} @a1 0-1", text)
        self.assertTrue(text.index('[Result "0-1"]') > text.index("[FEN"))
        games = read_records(io.StringIO(text))
        self.assertEqual(len(games), 2)
        for game in games:
            self.assertEqual(game.moves, record.moves)
            self.assertEqual(game.comments, record.comments)
            self.assertEqual(game.result, "0-1")
            self.assertEqual(game.tags["Event"], 'a "quoted" \\ event')

    def test_plain_move_lists(self):
        games = read_records(io.StringIO("@c3 @d3 c3c4\n\n1. @a1 @b1 *\n"))
        self.assertEqual([g.moves for g in games], [["@c3", "@d3", "c3c4"], ["@a1", "@b1"]])

    def test_reads_what_the_match_runner_writes(self):
        with tempfile.TemporaryDirectory() as tmp:
            path = os.path.join(tmp, "games.pgn")
            subprocess.run(
                [ENGINE, "match", "--depth", "1", "--games", "2", "--seed", "7", "--pgn", path,
                 "--engine", "name=a,cmd=" + ENGINE, "--engine", "name=b,cmd=" + ENGINE],
                check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=300,
            )
            games = read_records(path)
            self.assertEqual(len(games), 2)
            with Engine(ENGINE) as engine:
                for game in games:
                    self.assertIn(game.result, ("1-0", "0-1", "1/2-1/2"))
                    self.assertEqual(game.tags["Result"], game.result)
                    # Every recorded move replays under the engine's rules.
                    position = Position.from_record(game)
                    self.assertTrue(engine.fen(position))
                    if game.tags.get("Termination") not in ("max plies",):
                        self.assertTrue(engine.game_over(position), game.tags)
            # The scripts built on this module read the same file.
            script = os.path.join(SCRIPTS, "match", "endgame_openings.py")
            openings = subprocess.run([sys.executable, script, path, "--engine", ENGINE, "--min", "2",
                                       "--max", "24", "--count", "5"],
                                      capture_output=True, text=True, timeout=120, check=True)
            lines = openings.stdout.splitlines()
            self.assertEqual(len(lines), 5, openings.stderr)
            with Engine(ENGINE) as engine:
                for fen in lines:
                    self.assertFalse(engine.game_over(Position(games[0].tags["Variant"], fen)), fen)
            # And what this module writes, the runner reads back.
            copy = os.path.join(tmp, "copy.pgn")
            write_records(games, copy)
            rescore = subprocess.run([ENGINE, "match", "--rescore", copy], capture_output=True, text=True, timeout=60)
            self.assertEqual(rescore.returncode, 0, rescore.stderr)


class EngineTest(unittest.TestCase):
    def setUp(self):
        self.engine = Engine(ENGINE)

    def tearDown(self):
        self.engine.close()

    def test_handshake_and_options(self):
        self.assertTrue(self.engine.name.startswith("Yote"))
        self.assertEqual(self.engine.id["author"], "the Yote engine developers")
        self.assertEqual(self.engine.options["hash"].type, "spin")
        self.assertEqual(self.engine.options["Move Overhead"].name, "MoveOverhead")
        self.assertIn("hand-removal", self.engine.options["Variant"].vars)
        self.engine.configure({"Hash": 8, "Ponder": True, "Clear Hash": None})
        with self.assertRaises(EngineError) as refused:
            self.engine.configure({"Style": "randm"})
        self.assertIn("randm", str(refused.exception))
        with self.assertRaises(EngineError):
            self.engine.configure({"NoSuchOption": 1})
        for managed in ("Variant", "multi pv", "Rows"):
            with self.assertRaises(ValueError):
                self.engine.configure({managed: 1})
        with self.assertRaises(ValueError):
            self.engine.configure({"Hash": "8\nsetoption name Style value random"})
        assert_in_step(self, self.engine)

    def test_variant_goes_with_the_position(self):
        five = Position("5x5")
        self.assertEqual(self.engine.fen(five).split()[0], "5/5/5/5/5")
        self.assertIn("rows=5", self.engine.variant_spec)
        self.assertEqual(self.engine.start_fen.split()[0], "5/5/5/5/5")
        five_spec = self.engine.variant_spec
        self.assertEqual(self.engine.fen(Position()).split()[0], "6/6/6/6/6")
        # The spec the engine printed sets the same rules back.
        self.assertEqual(self.engine.fen(Position(five_spec)).split()[0], "5/5/5/5/5")
        self.assertEqual(self.engine.variant_spec, five_spec)
        with self.assertRaises(ValueError):
            self.engine.fen(Position(None))
        if HAS_NATIVE:  # issue 40 item 9: refused at the line that made it
            with self.assertRaises(ValueError) as refused:
                Position("no-such-variant")
        else:
            with self.assertRaises(EngineError) as refused:
                self.engine.fen(Position("no-such-variant"))
        self.assertIn("no-such-variant", str(refused.exception))
        behind_its_back = Position()
        behind_its_back.variant = "no-such-variant"
        with self.assertRaises(EngineError) as refused:
            self.engine.fen(behind_its_back)
        self.assertIn("no-such-variant", str(refused.exception))
        # A refused variant changes nothing: the 5x5 rules are still loaded
        # and a game of them is still understood.
        self.assertEqual(self.engine.fen(Position("5x5", moves=["@e5"])).split()[0], "4W/5/5/5/5")

    def test_position_errors_name_the_move(self):
        with self.assertRaises(EngineError) as refused:
            self.engine.fen(unchecked(moves=["@c3", "@c3"]))
        self.assertIn("@c3", str(refused.exception))
        self.assertEqual(self.engine.fen(Position(moves=["@c3", "@d3"])).split()[0], "6/6/2WB2/6/6")
        assert_in_step(self, self.engine)

    def test_analyse_multipv_is_typed_and_deterministic(self):
        position = Position(moves=["@c3", "@d3"])
        first = self.engine.analyse(position, Limit(nodes=20000), multipv=2)
        self.assertEqual([info["multipv"] for info in first], [1, 2])
        self.assertNotEqual(first[0]["pv"][0], first[1]["pv"][0])
        self.assertGreaterEqual(first[0]["score"].white(), first[1]["score"].white())
        self.assertTrue(self.engine.is_legal(position, first[0]["pv"][0]))
        self.engine.new_game()
        again = self.engine.analyse(position, Limit(nodes=20000), multipv=2)
        self.assertEqual(again[0]["pv"], first[0]["pv"])
        self.assertEqual(again[0]["nodes"], first[0]["nodes"])
        single = self.engine.analyse(position, Limit(depth=3))
        self.assertEqual(single["multipv"], 1)
        self.assertEqual(single["depth"], 3)
        assert_in_step(self, self.engine)

    def test_play_returns_move_and_score(self):
        position = Position(moves=["@c3"])
        played = self.engine.play(position, Limit(depth=4))
        self.assertTrue(self.engine.is_legal(position, played.move))
        self.assertEqual(played.info["pv"][0], played.move)
        self.assertIsInstance(played.score, PovScore)
        self.assertEqual(played.score.turn, BLACK)
        self.assertEqual(played.score.black(), played.score.relative)
        timed = self.engine.play(position, Limit(time=0.1))
        self.assertTrue(self.engine.is_legal(position, timed.move))
        self.assertIsNone(timed.ponder)
        self.engine.configure({"Ponder": True})
        pondering = self.engine.play(position, Limit(depth=4))
        after = position.copy()
        after.push(pondering.move)
        self.assertTrue(self.engine.is_legal(after, pondering.ponder))
        self.assertEqual(position.moves, ["@c3"])
        # A finished game: no move, the engine's reason.
        over = self.engine.play(Position(fen="W5/6/6/6/B5 w 0 0 0 1"), Limit(depth=3))
        self.assertIsNone(over.move)
        self.assertTrue(any(text.startswith("game over") for text in over.strings), over.strings)
        assert_in_step(self, self.engine)

    def test_mate_scores_from_either_side(self):
        # Black to move captures and wins at once: mate 1 for Black.
        black_wins = Position(fen="6/6/6/BW4/B4W b 0 0 0 1")
        info = self.engine.analyse(black_wins, Limit(depth=3))
        self.assertEqual(info["score"].relative, Mate(1))
        self.assertEqual(info["score"].black(), Mate(1))
        self.assertEqual(info["score"].white(), Mate(-1))
        self.assertTrue(info["score"].is_mate())

    def test_tablebase_wins_are_mate_scores(self):
        """Tables of distances to the end give mates; tables of distances to
        the next capture (the default) give a table win, cp 30744 - d."""
        with tempfile.TemporaryDirectory() as dtz:
            subprocess.run([ENGINE, "tb", "generate", "--pieces", "4", "--dir", dtz, "--threads", "1"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
            self.engine.configure({"TablebasePath": dtz})
            info = self.engine.analyse(Position(fen="6/6/B5/W4B/W5 w 0 0 0 1"), Limit(nodes=1))
            self.assertEqual(info["score"].white(), Cp(30744 - 1))
            self.assertEqual(info["score"].black(), Cp(-30744 + 1))
        with tempfile.TemporaryDirectory() as tables:
            subprocess.run([ENGINE, "tb", "generate", "--pieces", "4", "--dir", tables, "--threads", "1",
                            "--metric", "dtm"],
                           check=True, stdout=subprocess.DEVNULL, stderr=subprocess.DEVNULL, timeout=120)
            self.engine.configure({"TablebasePath": tables})
            info = self.engine.analyse(Position(fen="6/6/B5/W4B/W5 w 0 0 0 1"), Limit(nodes=1))
            self.assertEqual(info["tbhits"], 1)
            self.assertEqual(info["score"].white(), Mate(1))
            self.assertEqual(info["score"].black(), Mate(-1))
            self.assertEqual(info["score"].black().score(mate_score=1000), -999)
            drawn = self.engine.analyse(Position(fen="6/6/B5/W4B/W5 b 0 0 0 1"), Limit(nodes=1))
            self.assertEqual(drawn["score"].white(), Cp(0))
            # An empty string switches the tables off again.
            self.engine.configure({"TablebasePath": ""})
            searched = self.engine.analyse(Position(fen="6/6/B5/W4B/W5 b 0 0 0 1"), Limit(nodes=1))
            self.assertNotIn("tbhits", searched)

    def test_analysis_streams_and_stops(self):
        position = Position(moves=["@c3", "@d3"])
        seen = []
        with self.engine.analysis(position, multipv=2) as analysis:
            for info in analysis:
                seen.append(info)
                if info.get("depth", 0) >= 4:
                    break
        best = analysis.wait()
        self.assertTrue(self.engine.is_legal(position, best.move))
        self.assertGreaterEqual(len(seen), 2)
        self.assertEqual(len(analysis.multipv), 2)
        self.assertGreaterEqual(analysis.info["depth"], 4)
        with self.assertRaises(AnalysisComplete):
            analysis.get()
        # stop() and wait() without the with block.
        running = self.engine.analysis(position)
        self.assertIn("depth", running.get())
        running.stop()
        self.assertIsInstance(running.wait(), BestMove)
        assert_in_step(self, self.engine)

    def test_a_new_call_ends_an_unfinished_analysis(self):
        position = Position(moves=["@c3"])
        left = self.engine.analysis(position)
        left.get()
        self.assertEqual(len(self.engine.legal_moves(position)), 29)
        self.assertIsNotNone(left.wait().move)
        assert_in_step(self, self.engine)

    def test_queries(self):
        position = Position(moves=["@c3"])
        self.assertEqual(self.engine.turn(position), BLACK)
        self.assertFalse(self.engine.game_over(position))
        self.assertEqual(self.engine.result(position), "*")
        self.assertEqual(len(self.engine.legal_moves(position)), 29)
        self.assertEqual(self.engine.fen(position), "6/6/2W3/6/6 b 11 12 1 1")
        self.assertIn("Side to move: black", self.engine.board_text(position))
        self.assertEqual(self.engine.query(position, "islegal @c3"), "false")
        over = Position(fen="W5/6/6/6/B5 w 0 0 0 1")
        self.assertTrue(self.engine.game_over(over))
        self.assertEqual(self.engine.result(over), "1/2-1/2")
        self.assertEqual(self.engine.legal_moves(over), [])
        assert_in_step(self, self.engine)


class OutOfStepTest(unittest.TestCase):
    """Issue 17: the old client read another call's answer after an error.
    Each test feeds the original input."""

    def setUp(self):
        self.engine = Engine(ENGINE)

    def tearDown(self):
        self.engine.close()

    def test_rejected_position_then_moves_then_valid_position(self):
        # Old client: analyse() raised and left "bestmove (none)" unread;
        # legal_moves() then returned ['bestmove', '(none)'] and the next
        # valid position raised the stale error.
        with self.assertRaises(EngineError) as refused:
            self.engine.analyse(unchecked(moves=["@c3", "@c3"]), Limit(nodes=1000))
        self.assertIn("@c3", str(refused.exception))
        moves = self.engine.legal_moves(Position(moves=["@c3"]))
        self.assertEqual(len(moves), 29)
        self.assertNotIn("bestmove", moves)
        played = self.engine.play(Position(moves=["@c3", "@d3"]), Limit(nodes=1000))
        self.assertTrue(self.engine.is_legal(Position(moves=["@c3", "@d3"]), played.move))
        assert_in_step(self, self.engine)

    def test_too_many_moves_to_list_raises(self):
        # Old client: "too many to list" was an info string, read as [].
        huge = Position(HUGE_SPEC, HUGE_FEN)
        with self.assertRaises(EngineError) as refused:
            self.engine.legal_moves(huge)
        self.assertIn("too many", str(refused.exception))
        self.assertTrue(self.engine.is_legal(huge, self.engine.play(huge, Limit(depth=1)).move))
        assert_in_step(self, self.engine)

    def test_every_malformed_query_raises(self):
        # Today the engine answers these with an error line only (no
        # response); once every query gets a response line, with its error
        # form. Either way the client raises and stays in step.
        position = Position(moves=["@c3"])
        for question in ("", "banana", "islegal", "islegal @c3 extra", "fen extra"):
            with self.assertRaises(EngineError, msg=question):
                self.engine.query(position, question)
        with self.assertRaises(ValueError):
            self.engine.is_legal(position, "@c3 extra")
        self.assertEqual(self.engine.turn(position), BLACK)
        assert_in_step(self, self.engine)

    def test_refused_go_raises_and_starts_nothing(self):
        position = Position(moves=["@c3"])
        for moves in (["zz9"], ["@c3"]):
            with self.assertRaises(EngineError) as refused:
                self.engine.analyse(position, Limit(depth=2), root_moves=moves)
            self.assertIn(moves[0], str(refused.exception))
        self.assertIn(self.engine.play(position, Limit(depth=2), root_moves=["@a1"]).move, ["@a1"])
        assert_in_step(self, self.engine)

    def interrupt_after(self, prefix):
        """Make the next read after sending ``prefix…`` raise KeyboardInterrupt,
        as Ctrl-C would in the middle of a call."""
        engine = self.engine
        real_write, real_next = engine._write, engine._next_line
        armed = []

        def write(lines, raw=b""):
            real_write(lines, raw)
            if any(line.startswith(prefix) for line in lines):
                armed.append(True)

        def next_line(deadline):
            if armed:
                armed.clear()
                engine._write, engine._next_line = real_write, real_next
                raise KeyboardInterrupt
            return real_next(deadline)

        engine._write, engine._next_line = write, next_line

    def test_an_interrupted_search_is_stopped_and_read_by_the_next_call(self):
        self.interrupt_after("go")
        with self.assertRaises(KeyboardInterrupt):
            self.engine.analysis(Position(moves=["@c3"]))
        self.assertEqual(self.engine.fen(Position(moves=["@c3", "@d3"])), "6/6/2WB2/6/6 w 11 11 2 2")
        assert_in_step(self, self.engine)

    def test_ctrl_c_just_after_go_leaves_no_stale_bestmove(self):
        # Issue 39 item 11: the next play() returned the other game's move.
        steps = Position(fen=client_fuzz.STEPS_FEN)
        legal = set(self.engine.legal_moves(steps))
        for _ in range(5):
            self.interrupt_after("go")
            with self.assertRaises(KeyboardInterrupt):
                self.engine.play(Position(), Limit(nodes=50))
            self.assertIn(self.engine.play(steps, Limit(nodes=50)).move, legal)
        assert_in_step(self, self.engine)

    def test_an_interrupted_query_leaves_no_stale_answer(self):
        self.interrupt_after("query")
        with self.assertRaises(KeyboardInterrupt):
            self.engine.fen(Position(moves=["@c3"]))
        self.assertEqual(self.engine.turn(Position()), WHITE)
        self.assertEqual(self.engine.fen(Position(moves=["@c3", "@d3"])), "6/6/2WB2/6/6 w 11 11 2 2")
        assert_in_step(self, self.engine)

    def test_an_interrupted_refused_go_is_settled(self):
        self.interrupt_after("go")
        with self.assertRaises(KeyboardInterrupt):
            self.engine.analysis(Position(moves=["@c3"]), root_moves=["zz9"])
        self.assertEqual(self.engine.turn(Position(moves=["@c3"])), BLACK)
        assert_in_step(self, self.engine)

    def test_an_engine_that_stops_answering_is_killed(self):
        fake = textwrap.dedent("""
            import sys
            answered = 0
            for line in sys.stdin:
                words = line.split()
                if words == ["ugi"]:
                    print("id name Silent", flush=True)
                    print("ugiok", flush=True)
                elif words[:1] == ["query"] and answered < 2:
                    # The handshake's two queries (moves, then its fence);
                    # nothing after.
                    answered += 1
                    print('response error query: unexpected token "%s"' % words[-1], flush=True)
        """)
        with Engine([sys.executable, "-c", fake], timeout=0.5) as silent:
            self.assertEqual(silent.name, "Silent")
            began = time.monotonic()
            with self.assertRaises(EngineTerminatedError):
                silent.fen(Position())
            self.assertLess(time.monotonic() - began, 5)
            self.assertIsNotNone(silent.proc.poll())
            with self.assertRaises(EngineTerminatedError):
                silent.turn(Position())

    def test_framed_query_answers_once_the_engine_gives_them(self):
        # The engine of issue 17's protocol change: every query gets one
        # response line (its error form included) and `query moves` lists
        # the moves. Played here by a stand-in speaking that form.
        fake = textwrap.dedent("""
            import sys
            for line in sys.stdin:
                words = line.split()
                if words == ["ugi"]:
                    print("id name Framed\\nugiok", flush=True)
                elif words == ["isready"]:
                    print("readyok", flush=True)
                elif words == ["query", "moves"]:
                    print("response @a1 @b1", flush=True)
                elif words == ["query", "p1turn"]:
                    print("response true", flush=True)
                elif words[:1] == ["query"]:
                    print("response error query: unexpected token " + repr(words[1:]), flush=True)
                elif words == ["quit"]:
                    break
        """)
        with Engine([sys.executable, "-c", fake], timeout=5) as framed:
            self.assertTrue(framed.answers_query_moves)
            self.assertEqual(framed.legal_moves(Position()), ["@a1", "@b1"])
            with self.assertRaises(EngineError) as refused:
                framed.query(Position(), "banana")
            self.assertIn("banana", str(refused.exception))
            self.assertEqual(framed.turn(Position()), WHITE)
            assert_in_step(self, framed)
        # The real engine's list, whichever way it is asked for.
        self.assertEqual(len(self.engine.legal_moves(Position())), 30)

    def test_a_dead_engine_raises(self):
        self.engine.proc.kill()
        self.engine.proc.wait()
        with self.assertRaises(EngineTerminatedError):
            self.engine.legal_moves(Position())


class HostileEngineTest(unittest.TestCase):
    """Issue 39 item 12: an engine that sends stray lines, a huge line, or
    an illegal bestmove. Each call returns its own answer or raises."""

    def hostile(self, *args):
        return Engine([sys.executable, client_fuzz.HOSTILE] + list(args), timeout=5)

    def test_stray_line_fuzz_gives_no_wrong_answer(self):
        tally = client_fuzz.stray_line_fuzz(yote.engine, calls=150, seed=3, boards=HAS_NATIVE)
        self.assertEqual(tally["wrong"], 0, tally["examples"])
        self.assertGreater(tally["right"], 75, tally)

    def test_a_stray_readyok_and_bestmove_after_every_answer(self):
        # Every answer followed or preceded by a stray line: each call still
        # gets its own answer or raises, and never the one before it.
        with self.hostile("--stray", "0.5", "--seed", "4") as engine:
            right = 0
            for moves in client_fuzz.STRAY_GAMES * 10:
                try:
                    fen = engine.fen(Position(moves=moves))
                except EngineError:
                    continue
                self.assertEqual(fen, client_fuzz.answers_for(moves)["fen"])
                right += 1
            self.assertGreater(right, 0)

    def test_an_illegal_bestmove_raises(self):
        for position in [Position(moves=["@c3"])] + ([Position(moves=["@c3"]).board()] if HAS_NATIVE else []):
            with self.hostile("--stray", "0", "--best", "@c3") as engine:
                with self.assertRaises(EngineError) as refused:
                    engine.play(position, Limit(nodes=1))
                self.assertIn("not legal", str(refused.exception))
                self.assertEqual(engine.fen(Position()), client_fuzz.answers_for([])["fen"])

    def test_a_huge_line_is_capped_and_refused(self):
        with self.hostile("--stray", "0", "--long-line", str(5 << 20)) as engine:
            with self.assertRaises(EngineError) as refused:
                engine.fen(Position())
            self.assertIn("longer than", str(refused.exception))
            self.assertLessEqual(len(engine._reader._buffer), yote.engine.LINE_CAP + (1 << 16))
            self.assertEqual(engine.fen(Position(moves=["@c3"])), client_fuzz.answers_for(["@c3"])["fen"])


class CtrlCFuzzTest(unittest.TestCase):
    def test_a_thousand_interrupts_give_no_wrong_answer(self):
        interrupts = int(os.environ.get("YOTE_FUZZ_INTERRUPTS", "1000"))
        tally = client_fuzz.ctrl_c_fuzz(yote.engine, ENGINE, interrupts=interrupts, seed=5, nodes=50)
        self.assertEqual(tally["interrupted"], interrupts, tally)
        self.assertEqual(tally["wrong"], 0, tally["examples"])
        self.assertEqual(tally["raised"], 0, tally["examples"])


class PositionCheckTest(unittest.TestCase):
    """Issue 40 item 9: a bad variant or move fails at the line that made
    it, where the native part is built."""

    @unittest.skipUnless(HAS_NATIVE, "the native part checks the rules")
    def test_bad_variant_and_move_fail_at_once(self):
        with self.assertRaises(ValueError) as refused:
            Position("nosuch")
        self.assertIn("nosuch", str(refused.exception))
        position = Position()
        with self.assertRaises(ValueError) as refused:
            position.push("@z9")
        self.assertIn("z9", str(refused.exception))
        self.assertEqual(position.moves, [])
        with self.assertRaises(ValueError) as refused:
            Position(moves=["@c3", "@c3"])
        self.assertIn("move 2", str(refused.exception))
        position.push("@c3")
        self.assertEqual(position.pop(), "@c3")
        position.push("@d3")
        self.assertEqual(position.board().fen(), "6/6/3W2/6/6 b 11 12 1 1")

    def test_without_the_rules_the_form_is_checked_and_the_engine_names_the_rest(self):
        with self.assertRaises(ValueError):
            Position().push("@z 9")
        with self.assertRaises(ValueError):
            Position("")
        with Engine(ENGINE) as engine:
            with self.assertRaises(EngineError) as refused:
                engine.fen(unchecked(moves=["@z9"]))
            self.assertIn("z9", str(refused.exception))

    @unittest.skipUnless(HAS_NATIVE, "a Board needs the native part")
    def test_a_board_goes_wherever_a_position_goes(self):
        board = yote.Board("5x5")
        board.push_text("@c3")
        with Engine(ENGINE) as engine:
            self.assertEqual(engine.fen(board), board.fen())
            self.assertEqual(engine.legal_moves(board), [m.text for m in board.legal_moves])
            self.assertEqual(engine.turn(board), board.turn)
            self.assertFalse(engine.game_over(board))
            played = engine.play(board, Limit(depth=2))
            self.assertTrue(board.is_legal(played.move))
            self.assertEqual(played.score.turn, board.turn)
            info = engine.analyse(board, Limit(nodes=2000), multipv=2)
            self.assertEqual(len(info), 2)
            self.assertIn("rows=5", engine.variant_spec)
            self.assertEqual(Position.from_board(board).board(), board)


class ScriptsTest(unittest.TestCase):
    def test_bench_client_reports_every_figure(self):
        script = os.path.join(SCRIPTS, "bench", "bench_client.py")
        out = subprocess.run([sys.executable, script, "--engine", ENGINE, "--calls", "8"],
                             capture_output=True, text=True, timeout=120, check=True).stdout
        for figure in ("turn():", "legal_moves():", "play(depth 1):", "plies:"):
            self.assertRegex(out, r"%s +\d+\.\d{3} ms" % re.escape(figure))


class PlayTest(unittest.TestCase):
    def test_engine_against_engine(self):
        with Engine(ENGINE) as white, Engine(ENGINE) as black:
            black.configure({"Style": "random"})
            seen = []
            record = play_game(white, black, Limit(depth=2), variant="5x5", max_plies=80,
                               on_move=lambda ply, move, played: seen.append(move))
            self.assertEqual(record.moves, seen)
            if record.tags["Termination"] == "max plies":
                self.assertEqual(record.result, "*")
            else:
                self.assertIn(record.result, ("1-0", "0-1", "1/2-1/2"))
            self.assertIn("rows=5", record.tags["Variant"])
            # The record replays, and ends where the referee said.
            position = Position.from_record(record)
            self.assertEqual(white.game_over(position), record.tags["Termination"] == "rules")

    def test_a_game_cut_off_is_unfinished(self):
        # Issue 40 item 9: max_plies=10 was recorded as 1/2-1/2.
        with Engine(ENGINE) as white, Engine(ENGINE) as black:
            record = play_game(white, black, Limit(depth=1), max_plies=10)
        self.assertEqual(len(record.moves), 10)
        self.assertEqual(record.result, "*")
        self.assertEqual(record.tags["Result"], "*")
        self.assertEqual(record.tags["Termination"], "max plies")
        sink = io.StringIO()
        write_records([record], sink)
        self.assertEqual(read_records(io.StringIO(sink.getvalue()))[0].result, "*")

    def test_person_at_the_terminal(self):
        typed = iter(["nonsense", "moves", "@a1", "@b1", "quit"])
        shown = []
        with Engine(ENGINE) as engine:
            record = play_against_person(engine, True, Limit(depth=1), read=lambda prompt: next(typed),
                                         write=shown.append)
        self.assertEqual(record.result, "0-1")
        self.assertEqual(record.moves[0], "@a1")
        self.assertEqual(record.moves[2], "@b1")
        self.assertEqual(len(record.moves), 4)
        self.assertTrue(any("not a legal move" in text for text in shown))
        self.assertTrue(any("@f5" in text for text in shown))


if __name__ == "__main__":
    unittest.main()

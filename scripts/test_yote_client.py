"""Tests of yote_client, run by `cargo test --release` (tests/scripts.rs).

The engine under test is $YOTE_ENGINE (default target/release/yote).
"""

import io
import os
import subprocess
import sys
import tempfile
import unittest

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from yote_client import (  # noqa: E402
    Engine,
    EngineError,
    Limit,
    Record,
    Score,
    parse_info,
    parse_option,
    play_against_person,
    play_game,
    read_records,
    write_records,
)

ENGINE = os.environ.get("YOTE_ENGINE", "target/release/yote")


class ParsingTest(unittest.TestCase):
    def test_info_line_with_every_field(self):
        line = parse_info(
            "info depth 7 seldepth 11 multipv 2 score cp -35 nodes 1234 nps 99 "
            "time 12 hashfull 3 tbhits 5 pv @c3 c3c4 d4d2xa1"
        )
        self.assertEqual(line.depth, 7)
        self.assertEqual(line.seldepth, 11)
        self.assertEqual(line.multipv, 2)
        self.assertEqual(line.score, Score("cp", -35))
        self.assertEqual(line.nodes, 1234)
        self.assertEqual(line.time_ms, 12)
        self.assertEqual(line.tbhits, 5)
        self.assertEqual(line.pv, ["@c3", "c3c4", "d4d2xa1"])

    def test_mate_score_and_strings(self):
        line = parse_info("info depth 3 score mate -2 pv a1a2")
        self.assertTrue(line.score.is_mate())
        self.assertEqual(str(line.score), "mate -2")
        self.assertIsNone(parse_info("info string variant standard startpos x"))
        self.assertIsNone(parse_info("info depth 3 nodes 10"))
        self.assertEqual(str(Score("cp", 150)), "+1.50")

    def test_option_lines(self):
        spin = parse_option("option name Hash type spin default 16 min 1 max 4096")
        self.assertEqual((spin.name, spin.type, spin.default, spin.min, spin.max), ("Hash", "spin", "16", 1, 4096))
        combo = parse_option("option name Style type combo default search var search var random var greedy")
        self.assertEqual(combo.vars, ("search", "random", "greedy"))
        button = parse_option("option name Clear Hash type button")
        self.assertEqual(button.name, "Clear Hash")
        self.assertIsNone(parse_option("id name Yote"))

    def test_limit_needs_a_field(self):
        self.assertEqual(Limit(nodes=5, depth=2).go_arguments(), "nodes 5 depth 2")
        with self.assertRaises(ValueError):
            Limit().go_arguments()


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
                    engine.set_position(game.tags["FEN"], game.moves)
                    if game.tags.get("Termination") not in ("max plies",):
                        self.assertTrue(engine.game_over(), game.tags)
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
        self.assertEqual(self.engine.options["hash"].type, "spin")
        self.assertIn("hand-removal", self.engine.options["variant"].vars)
        with self.assertRaises(EngineError) as refused:
            self.engine.set_option("Style", "randm")
        self.assertIn("randm", str(refused.exception))

    def test_variant_preset_and_spec(self):
        spec = self.engine.set_variant("5x5")
        self.assertIn("rows=5", spec)
        self.assertIn("cols=5", spec)
        self.assertEqual(self.engine.start_fen.split()[0], "5/5/5/5/5")
        # The spec the engine printed sets the same rules back in one option.
        self.engine.set_variant("standard")
        self.assertEqual(self.engine.set_variant(spec), spec)

    def test_position_errors_name_the_move(self):
        self.engine.set_position(moves=["@c3", "@d3"])
        with self.assertRaises(EngineError) as refused:
            self.engine.set_position(moves=["@c3", "@c3"])
        self.assertIn("@c3", str(refused.exception))

    def test_analysis_is_typed_and_deterministic(self):
        self.engine.set_position(moves=["@c3", "@d3"])
        first = self.engine.analyse(Limit(nodes=20000), multipv=2)
        self.assertEqual([line.multipv for line in first.lines], [1, 2])
        self.assertEqual(first.lines[0].pv[0], first.bestmove)
        self.assertTrue(self.engine.is_legal(first.bestmove))
        self.assertNotEqual(first.lines[0].pv[0], first.lines[1].pv[0])
        self.engine.new_game()
        self.engine.set_position(moves=["@c3", "@d3"])
        again = self.engine.analyse(Limit(nodes=20000), multipv=2)
        self.assertEqual(again.bestmove, first.bestmove)
        self.assertEqual(again.lines[0].nodes, first.lines[0].nodes)

    def test_queries(self):
        self.engine.set_position(moves=["@c3"])
        self.assertFalse(self.engine.p1_to_move())
        self.assertFalse(self.engine.game_over())
        self.assertEqual(self.engine.result(), "none")
        self.assertEqual(len(self.engine.legal_moves()), 29)
        self.assertIn("@c3", self.engine.fen().replace(" ", "") + "@c3")
        self.assertIn("Side to move", self.engine.board())


class PlayTest(unittest.TestCase):
    def test_engine_against_engine(self):
        with Engine(ENGINE) as white, Engine(ENGINE) as black:
            black.set_option("Style", "random")
            seen = []
            record = play_game(white, black, Limit(depth=2), variant="5x5", max_plies=80,
                               on_move=lambda ply, move, analysis: seen.append(move))
            self.assertEqual(record.moves, seen)
            self.assertIn(record.result, ("1-0", "0-1", "1/2-1/2"))
            self.assertIn("rows=5", record.tags["Variant"])
            # The record replays, and ends where the referee said.
            white.set_position(record.tags["FEN"], record.moves)
            self.assertEqual(white.game_over(), record.tags["Termination"] == "rules")

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

"""Tests of yote.Board, the native part: the Rust rules library in the
process. Run by pytest in .ci/run with the package built; skipped where the
native part is not built.

The engine under test is $YOTE_ENGINE (default target/release/yote): Board
must agree with it on every count, position text, legal move list and game
end, since both are the same rules library.
"""

import copy
import os
import random
import subprocess
import sys
import xml.etree.ElementTree as ElementTree

import pytest

REPO = os.path.dirname(os.path.dirname(os.path.dirname(os.path.abspath(__file__))))
try:
    import yote
except ImportError:  # not installed: the source tree
    sys.path.insert(0, os.path.join(REPO, "python"))
    import yote

if not yote.HAS_NATIVE or os.environ.get("YOTE_TEST_PURE"):
    pytest.skip("the native part of yote is not built", allow_module_level=True)

from yote import BLACK, WHITE, Board, IllegalMoveError, Move, Outcome  # noqa: E402

ENGINE = os.environ.get("YOTE_ENGINE", os.path.join(REPO, "target", "release", "yote"))
PRESETS = [name for name, _ in yote.presets()]


def engine_perft(depth, variant, fen=None):
    args = [ENGINE, "perft", str(depth), "--variant", variant, "--total"]
    if fen:
        args += ["--fen", fen]
    out = subprocess.run(args, capture_output=True, text=True, timeout=120, check=True).stdout
    return int(out.split("Nodes searched:")[1].split()[0])


# -- perft ------------------------------------------------------------------


def test_presets_are_the_engines():
    assert PRESETS[:2] == ["standard", "hand-removal"]
    assert "all-options" in PRESETS


@pytest.mark.parametrize("preset", PRESETS)
def test_perft_equals_the_engines_on_every_preset(preset):
    board = Board(preset)
    for depth in (1, 2, 3, 4):
        assert board.perft(depth) == engine_perft(depth, preset), (preset, depth)


def test_perft_equals_the_engines_in_the_middle_of_games():
    # Positions of the shared perft vectors: a capture owed, Black to move.
    for variant, fen in (("standard", "B4W/B5/1BBWW1/6/1WB3 w 0 3"),
                         ("standard", "1W1WW1/W4B/3B2/1W3W/3W2 b 5 4"),
                         ("all-options", "3B2/3W2/6/2B3/B1W3 w 10 9 0 3")):
        board = Board(variant, fen)
        for depth in (1, 2, 3):
            assert board.perft(depth) == engine_perft(depth, variant, fen), (variant, fen, depth)


def test_perft_matches_the_reference_vectors():
    path = os.path.join(REPO, "tests", "data", "perft_vectors.txt")
    checked = 0
    with open(path, encoding="utf-8") as vectors:
        for line in vectors:
            if not line.strip() or line.startswith("#"):
                continue
            rules, fen, *counts = line.strip().split(";")
            board = Board(rules, fen)
            for depth, nodes in zip(counts[0::2], counts[1::2]):
                if int(nodes) <= 2_000_000:
                    assert board.perft(int(depth)) == int(nodes), line
                    checked += 1
    assert checked > 50


# -- the board --------------------------------------------------------------


def test_start_position_and_moves():
    board = Board()
    assert board.fen() == "6/6/6/6/6 w 12 12 0 1"
    assert board.turn == WHITE
    assert board.hands == (12, 12)
    assert board.owed_removals == 0
    moves = board.legal_moves
    assert len(moves) == 30
    assert all(isinstance(m, Move) and m.kind == "place" for m in moves)
    assert "@c3" in moves and Move not in moves
    played = board.push_text("@c3")
    assert (played.text, played.from_square, played.to_square) == ("@c3", None, "c3")
    board.push("@d3")
    assert board.fen() == "6/6/2WB2/6/6 w 11 11 2 2"
    assert board.piece_at("c3") is WHITE and board.piece_at("d3") is BLACK and board.piece_at("a1") is None
    assert board.pieces(WHITE) == ["c3"]
    assert [m.text for m in board.move_stack] == ["@c3", "@d3"]
    assert board.peek() == "@d3"
    assert board.pop() == "@d3"
    assert board.fen() == "6/6/2W3/6/6 b 11 12 1 1"
    assert board.turn == BLACK
    board.pop()
    assert board == Board()
    with pytest.raises(IndexError):
        board.pop()


def test_bad_input_fails_at_once_and_changes_nothing():
    with pytest.raises(ValueError, match="nosuch"):
        Board("nosuch")
    with pytest.raises(ValueError, match="rows 9"):
        Board("rows=9")
    with pytest.raises(ValueError):
        Board("")
    with pytest.raises(ValueError, match="Board\\(fen="):
        Board("6/6/6/6/6 w 12 12 0 1")
    with pytest.raises(ValueError, match="rank"):
        Board(fen="6/6/6/6/6/6 w 12 12 0 1")
    board = Board()
    board.push("@c3")
    for bad in ("@z9", "@c3", "c3c4 extra", "", "xa1"):
        with pytest.raises(IllegalMoveError):
            board.push(bad)
        with pytest.raises(ValueError):
            board.push_text(bad)
        assert not board.is_legal(bad)
    with pytest.raises(TypeError):
        board.push(3)
    with pytest.raises(ValueError, match="not a cell"):
        board.piece_at("z9")
    assert board.fen() == "6/6/2W3/6/6 b 11 12 1 1"


def test_a_capture_whole_and_in_two_turns():
    # White jumps c1 over c2 to c3 and removes one more black piece.
    board = Board("standard", "3B2/3W2/6/2B3/B1W3 w 10 9 4 3")
    captures = [m for m in board.legal_moves if m.kind == "jump"]
    assert captures
    whole = board.parse_move("c1c3xd5")
    assert (whole.kind, whole.from_square, whole.to_square) == ("jump", "c1", "c3")
    assert whole.captured == ["c2"] and whole.removals == ["d5"] and whole.landings == ["c3"]
    assert whole.is_capture and whole.owed_after == 0
    after_whole = board.copy()
    after_whole.push(whole)
    # The jump alone: the same side owes the removal, then plays it.
    board.push_text("c1c3")
    assert board.owed_removals == 1 and board.turn == WHITE
    assert board.fen().endswith(" x1")
    removals = board.legal_moves
    assert all(m.kind == "removal" for m in removals) and "xd5" in removals
    board.push("xd5")
    assert board.fen() == after_whole.fen()
    assert board == after_whole
    assert board.ply() == 2 and after_whole.ply() == 1


def test_the_end_and_the_rule_that_ended_it():
    few = Board("standard", "W5/6/6/6/BB4 w 0 0 0 1")
    outcome = few.outcome()
    assert isinstance(outcome, Outcome)
    assert (outcome.winner, outcome.termination, outcome.result()) == (BLACK, "few_pieces", "0-1")
    assert outcome.reason == "too few pieces left"
    assert few.is_game_over() and few.result() == "0-1" and few.legal_moves == []
    with pytest.raises(IllegalMoveError, match="game is over"):
        few.push("a5a4")
    # The history rules too: drawn after four plies without a capture.
    board = Board("standard,no_capture_draw=4")
    for move in ("@a1", "@f5", "@a2", "@f4"):
        assert board.outcome() is None and board.result() == "*"
        board.push(move)
    assert board.outcome().termination == "no_capture_limit"
    assert board.result() == "1/2-1/2"
    repeat = Board("standard,repetition_draw=2", "W4W/6/6/6/B4B w 0 0 0 1")
    for move in ("a5a4", "a1a2", "a4a5", "a2a1"):
        repeat.push(move)
    assert repeat.outcome().termination == "repetition"
    assert repeat.repetitions() == 2


def test_copy_equality_hash_and_variant_spec():
    board = Board("hand-removal")
    board.push("@c3")
    twin = board.copy()
    assert twin == board and hash(twin) == hash(board)
    twin.push("@d3")
    assert twin != board and board.ply() == 1
    assert copy.deepcopy(board) == board and copy.copy(board) == board
    assert Board("standard") != Board("hand-removal")
    assert board.variant_name == "hand-removal"
    assert board.variant_spec.startswith("hand-removal,rows=5,cols=6,")
    assert Board(board.variant_spec) == Board("hand-removal")
    custom = Board("5x5,pieces=4")
    assert custom.variant_name is None and "pieces=4" in custom.variant_spec
    assert (custom.rows, custom.cols) == (5, 5)
    assert len({Board(), Board(), board}) == 2
    assert Move not in {board.parse_move("@d3"): 1}
    assert board.parse_move("@d3") == "@d3" and hash(board.parse_move("@d3")) == hash("@d3")


def test_text_and_picture():
    board = Board()
    board.push("@c3")
    text = str(board)
    assert text.splitlines()[0] == "  a b c d e f"
    assert text.splitlines()[3] == "3 . . W . . ."
    assert text.splitlines()[-1] == "black to move; in hand: white 11, black 12"
    assert repr(board) == "Board(variant='standard', fen='6/6/2W3/6/6 b 11 12 1 1')"
    svg = ElementTree.fromstring(board._repr_svg_())
    assert svg.tag.endswith("svg")
    circles = [e for e in svg.iter() if e.tag.endswith("circle")]
    assert len(circles) == 1
    assert len([e for e in svg.iter() if e.tag.endswith("rect")]) == 1 + 30
    texts = [e.text for e in svg.iter() if e.tag.endswith("text")]
    assert texts[-2:] == ["black to move", "in hand: white 11, black 12"]
    assert texts[:6] == list("abcdef")


def test_perft_rejects_too_many_moves_to_list():
    huge = Board("standard,rows=8,cols=8,pieces=64,multi_jump=true",
                 "BBBBBBBB/1B1B1B1B/BBBBBBBB/1B1B1B1B/BBBBBBBB/1B1B1B1B/BBBBBBBB/WB1B1B1B w 10 0 0 1")
    with pytest.raises(OverflowError, match="too many"):
        huge.legal_moves
    with pytest.raises(ValueError, match="too many"):
        huge.perft(2)


# -- random games against the engine -----------------------------------------


class EngineSession:
    """One engine process answering batches of lines; the replies are
    read back by count, a whole game at a time."""

    def __init__(self):
        self.proc = subprocess.Popen([ENGINE], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     stderr=subprocess.DEVNULL, text=True, bufsize=1)

    def ask(self, lines, responses):
        self.proc.stdin.write("".join(line + "\n" for line in lines))
        self.proc.stdin.flush()
        answers, other = [], []
        while len(answers) < responses:
            line = self.proc.stdout.readline()
            assert line, "the engine exited"
            if line.startswith("response "):
                answers.append(line[len("response "):].rstrip("\n"))
            else:
                other.append(line)
        return answers, other

    def close(self):
        self.proc.stdin.close()
        self.proc.wait(timeout=10)


def random_game(rng, preset, max_plies):
    """A random game through Board: each ply a random legal move, and now
    and then a capture played in two turns (its jump alone, then its
    removals), as front ends do."""
    board = Board(preset)
    texts = []
    while not board.is_game_over() and len(texts) < max_plies:
        move = rng.choice(board.legal_moves)
        if move.kind == "jump" and move.removals and rng.random() < 0.3:
            jump = move.text.split("x")[0]
            board.push_text(jump)
            texts.append(jump)
            rest = "".join("x" + cell for cell in move.removals)
            if board.is_legal(rest) and rng.random() < 0.5:
                board.push_text(rest)
                texts.append(rest)
            continue
        board.push(move)
        texts.append(move.text)
    return board, texts


def test_random_games_agree_with_the_engine_after_every_move():
    games = int(os.environ.get("YOTE_BOARD_GAMES", "1000"))
    rng = random.Random(40)
    engine = EngineSession()
    try:
        compared = 0
        for game in range(games):
            preset = PRESETS[game % len(PRESETS)]
            board, texts = random_game(rng, preset, max_plies=60)
            replay = Board(preset)
            lines = ["setoption name Variant value " + preset]
            expected = []
            for ply in range(len(texts) + 1):
                lines.append("position startpos moves " + " ".join(texts[:ply]) if ply else "position startpos")
                lines.append("query fen")
                expected.append(replay.fen())
                if ply % 7 == 0 or ply == len(texts):
                    lines.append("query moves")
                    moves = [m.text for m in replay.legal_moves]
                    expected.append(" ".join(moves) if moves else "none")
                if ply < len(texts):
                    replay.push(texts[ply])
            lines += ["query gameover", "query result"]
            expected += [str(board.is_game_over()).lower(),
                         {"1-0": "p1win", "0-1": "p2win", "1/2-1/2": "draw", "*": "none"}[board.result()]]
            answers, other = engine.ask(lines, len(expected))
            assert not [line for line in other if "error" in line], (preset, texts, other)
            assert answers == expected, (preset, texts)
            assert replay == board
            compared += len(texts)
        assert compared > games * 10
    finally:
        engine.close()

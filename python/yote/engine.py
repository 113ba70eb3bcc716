"""A client for the yote engine, for scripts: Python's standard library only
(on POSIX systems: the engine's output is read with ``select``).

It is shaped after python-chess's ``chess.engine``: a position goes with
every call (the engine holds nothing between calls), a :class:`Limit` in
seconds, ``analyse``/``analysis``/``play``/``configure``, info dictionaries
and scores viewable from either side::

    from yote import Board
    from yote.engine import Engine, Limit

    with Engine("target/release/yote") as engine:
        board = Board("hand-removal")
        board.push_text("@c3"); board.push_text("@d3")
        for info in engine.analyse(board, Limit(nodes=100_000), multipv=3):
            print(info["multipv"], info["depth"], info["score"].white(), " ".join(info["pv"]))
        result = engine.play(board, Limit(time=0.5))
        board.push_text(result.move)

What it offers:

- Every call takes a :class:`yote.Board` (the rules in the process, from
  the package's native part) or a :class:`Position` (plain data: rules,
  start and moves). A ``Position`` checks its rules and moves at once where
  the native part is built; where it is not, this module is pure Python
  and the engine checks them at the next call. Nothing here re-implements
  the rules.
- :class:`Engine` — an engine process. ``analyse`` returns the info of the
  finished search, ``analysis`` streams it as it comes and can be stopped,
  ``play`` returns the move with its score (:class:`PlayResult`),
  ``configure`` sets options; ``legal_moves``, ``is_legal``, ``game_over``,
  ``result``, ``turn``, ``fen`` and ``board_text`` ask the engine as
  referee. Every refusal raises :class:`EngineError` with the engine's own
  message.
- :class:`PovScore` of :class:`Cp` / :class:`Mate` — a score seen from
  either side.
- :func:`play_game` plays a game between two engines, refereed by the rules
  engine behind the first one, and returns a :class:`Record`;
  :func:`play_against_person` lets a person play an engine on the terminal.
- :func:`read_records` / :func:`write_records` read and write the match
  runner's records files (``yote match --pgn``), the format of docs/match.md.

Staying in step with the engine: every call ends with a fence, a
``query fence-<random>-<n>-end`` the engine answers with a ``response``
line that echoes the token (an unknown query, answered ``response error
… "fence-…"``). The token is random per engine and numbered per call, so
an engine cannot send it by accident: everything up to a call's own fence
belongs to that call, and a stray ``readyok``, ``response`` or
``bestmove`` cannot shift later answers. A call that finds two answers
where it expects one (two ``response`` lines, two ``bestmove`` lines for
one ``go``) raises rather than guess, and a returned move is checked
against the position's legal moves. A call interrupted half-way (an
exception, Ctrl-C at any point, even just after it wrote ``go``) leaves the
engine marked out of step; the next call first makes the engine finish
whatever it was doing — ``stop``, then a ``go`` on a refused position,
which the engine answers only after the old search's ``bestmove`` — and
reads everything up to a fresh fence. Lines are read with a cap of 1 MiB
(a longer one raises) and every read has a deadline: an engine that does
not answer within ``timeout`` seconds is killed, never left half-read.
"""

import collections
import copy as _copy
import dataclasses
import functools
import logging
import os
import re
import secrets
import select
import subprocess
import time
from typing import Any, Callable, Deque, Dict, Iterable, List, Mapping, NamedTuple, Optional, Sequence, TextIO, Union

try:
    from yote._yote import Board as _Board
except ImportError:  # the pure-Python install: positions are plain data
    _Board = None

__all__ = [
    "AnalysisComplete",
    "AnalysisResult",
    "BLACK",
    "BestMove",
    "Cp",
    "Engine",
    "EngineError",
    "EngineTerminatedError",
    "Info",
    "Limit",
    "Mate",
    "MateGiven",
    "OptionInfo",
    "PlayResult",
    "Position",
    "PovScore",
    "Record",
    "Score",
    "WHITE",
    "parse_info",
    "parse_option",
    "play_against_person",
    "play_game",
    "read_records",
    "write_records",
]

LOG = logging.getLogger("yote.engine")

#: Player 1, who moves first (python-chess's ``chess.WHITE``).
WHITE = True
#: Player 2.
BLACK = False

#: One search report, as python-chess's ``InfoDict``: ``depth``,
#: ``seldepth``, ``multipv``, ``score`` (a :class:`PovScore`), ``nodes``,
#: ``nps``, ``time`` (seconds), ``hashfull``, ``tbhits``, ``pv`` (move
#: texts), ``string``; only the keys the engine sent.
Info = Dict[str, Any]

#: The longest line read from an engine. The engine's own input limit; its
#: longest output (``query moves`` of 65,536 moves) fits.
LINE_CAP = 1 << 20


class EngineError(RuntimeError):
    """The engine refused a command or broke the protocol."""


class EngineTerminatedError(EngineError):
    """The engine process is gone (it exited, was closed or was killed)."""


class AnalysisComplete(Exception):
    """:meth:`AnalysisResult.get` was called after the search ended."""


class _Timeout(Exception):
    """Internal: no line came before the deadline."""


# ---------------------------------------------------------------------------
# Scores


@functools.total_ordering
class Score:
    """A score from one side's point of view: :class:`Cp` or :class:`Mate`.

    Scores compare as that side would rank them: a faster win above a slower
    one above any centipawn value above a slower loss above a faster loss.
    """

    __slots__ = ()

    def score(self, *, mate_score: Optional[int] = None) -> Optional[int]:
        """Centipawns; a mate counts ``mate_score`` minus its moves (``None``
        without ``mate_score``)."""
        raise NotImplementedError

    def mate(self) -> Optional[int]:
        """Moves to a proved win (positive) or loss (negative), else ``None``."""
        raise NotImplementedError

    def is_mate(self) -> bool:
        return self.mate() is not None

    def _rank(self) -> tuple:
        raise NotImplementedError

    def __neg__(self) -> "Score":
        raise NotImplementedError

    def __eq__(self, other: object) -> bool:
        return isinstance(other, Score) and self._rank() == other._rank()

    def __lt__(self, other: "Score") -> bool:
        return self._rank() < other._rank()

    def __hash__(self) -> int:
        return hash(self._rank())


class Cp(Score):
    """A centipawn score: 100 is about one piece."""

    __slots__ = ("cp",)

    def __init__(self, cp: int):
        self.cp = int(cp)

    def score(self, *, mate_score: Optional[int] = None) -> Optional[int]:
        return self.cp

    def mate(self) -> Optional[int]:
        return None

    def _rank(self) -> tuple:
        return (1, self.cp)

    def __neg__(self) -> "Score":
        return Cp(-self.cp)

    def __str__(self) -> str:
        return "%+d" % self.cp

    def __repr__(self) -> str:
        return "Cp(%s)" % self


class Mate(Score):
    """A proved result in ``moves`` of this side's own moves: positive wins,
    negative (or ``Mate(0)``: already lost) loses. Endgame-table wins and
    losses are reported this way too."""

    __slots__ = ("moves",)

    def __init__(self, moves: int):
        self.moves = int(moves)

    def score(self, *, mate_score: Optional[int] = None) -> Optional[int]:
        if mate_score is None:
            return None
        return mate_score - self.moves if self.moves > 0 else -mate_score - self.moves

    def mate(self) -> Optional[int]:
        return self.moves

    def _rank(self) -> tuple:
        return (2, -self.moves) if self.moves > 0 else (0, -self.moves)

    def __neg__(self) -> "Score":
        return MateGiven if self.moves == 0 else Mate(-self.moves)

    def __str__(self) -> str:
        return "#%+d" % self.moves if self.moves else "#-0"

    def __repr__(self) -> str:
        return "Mate(%s)" % ("%+d" % self.moves if self.moves else "-0")


class _MateGiven(Score):
    """The other side of ``Mate(0)``: this side has already won."""

    __slots__ = ()

    def score(self, *, mate_score: Optional[int] = None) -> Optional[int]:
        return mate_score

    def mate(self) -> Optional[int]:
        return 0

    def _rank(self) -> tuple:
        return (3, 0)

    def __neg__(self) -> "Score":
        return Mate(0)

    def __str__(self) -> str:
        return "#+0"

    def __repr__(self) -> str:
        return "MateGiven"


MateGiven = _MateGiven()


class PovScore:
    """A score as the engine reported it (``relative``, from the side to move
    ``turn``'s point of view), viewable from either side."""

    __slots__ = ("relative", "turn")

    def __init__(self, relative: Score, turn: bool):
        self.relative = relative
        self.turn = turn

    def pov(self, color: bool) -> Score:
        """The score from ``color``'s point of view."""
        return self.relative if self.turn == color else -self.relative

    def white(self) -> Score:
        return self.pov(WHITE)

    def black(self) -> Score:
        return self.pov(BLACK)

    def is_mate(self) -> bool:
        return self.relative.is_mate()

    def __eq__(self, other: object) -> bool:
        return isinstance(other, PovScore) and self.white() == other.white()

    def __hash__(self) -> int:
        return hash(self.white())

    def __str__(self) -> str:
        return str(self.relative)

    def __repr__(self) -> str:
        return "PovScore(%r, %s)" % (self.relative, "WHITE" if self.turn else "BLACK")


# ---------------------------------------------------------------------------
# Limits, positions, results


def _check_text(text: str, what: str) -> str:
    """Refuse what would split a protocol line or inject another."""
    if any(ord(c) < 32 or ord(c) == 127 for c in text):
        raise ValueError("%s contains a control character: %r" % (what, text))
    return text


def _ms(seconds: float, what: str) -> int:
    if seconds < 0:
        raise ValueError("Limit.%s must not be negative: %r" % (what, seconds))
    return int(round(seconds * 1000))


@dataclasses.dataclass
class Limit:
    """How long a search may run, as python-chess's ``Limit``: times in
    seconds. Every field set is sent; the search ends at the first reached."""

    time: Optional[float] = None
    depth: Optional[int] = None
    nodes: Optional[int] = None
    mate: Optional[int] = None
    white_clock: Optional[float] = None
    black_clock: Optional[float] = None
    white_inc: Optional[float] = None
    black_inc: Optional[float] = None
    remaining_moves: Optional[int] = None

    def go_arguments(self) -> List[str]:
        """The ``go`` parameters (UGI names), ``[]`` for an unlimited search."""
        words: List[str] = []
        for field, name in (("white_clock", "p1time"), ("black_clock", "p2time"),
                            ("white_inc", "p1inc"), ("black_inc", "p2inc"), ("time", "movetime")):
            value = getattr(self, field)
            if value is not None:
                words += [name, str(_ms(value, field))]
        for field, name in (("depth", "depth"), ("nodes", "nodes"), ("mate", "mate"),
                            ("remaining_moves", "movestogo")):
            value = getattr(self, field)
            if value is not None:
                if isinstance(value, bool) or not isinstance(value, int) or value < 0:
                    raise ValueError("Limit.%s must be a whole number >= 0: %r" % (field, value))
                words += [name, str(value)]
        return words

    def seconds(self, turn: bool) -> Optional[float]:
        """The longest the search may think by its clock, or ``None`` when
        only depth, nodes or mate bound it."""
        bounds = [self.time] if self.time is not None else []
        clock = self.white_clock if turn == WHITE else self.black_clock
        other = self.black_clock if turn == WHITE else self.white_clock
        inc = self.white_inc if turn == WHITE else self.black_inc
        if clock is not None or other is not None:
            bounds.append((clock if clock is not None else other) + (inc or 0))
        return max(bounds) if bounds else None


def _check_move_word(move: Any) -> str:
    if not isinstance(move, str) or len(move.split()) != 1:
        raise ValueError("a move is one word: %r" % (move,))
    return _check_text(move, "a move")


@dataclasses.dataclass
class Position:
    """A game to ask the engine about: rules, start and moves.

    ``variant`` is a preset name (``standard``, ``5x5``, …) or a rule spec
    as the engine prints it (``hand-removal,no_capture_draw=100``); ``fen``
    is a position text (``None``: the variant's start position); ``moves``
    are in the engine's notation.

    Where the package's native part is built, the rules library checks all
    of it at once: a bad variant, position text or move raises
    ``ValueError`` at the line that made it (the constructor, ``push``).
    Where it is not, only the form is checked here and the engine checks
    the rest at the next call, raising :class:`EngineError` naming what it
    refuses. ``moves`` is a plain list: a move appended to it directly is
    not checked until the engine sees it.
    """

    variant: str = "standard"
    fen: Optional[str] = None
    moves: List[str] = dataclasses.field(default_factory=list)
    _board: Any = dataclasses.field(default=None, init=False, repr=False, compare=False)

    def __post_init__(self) -> None:
        if not isinstance(self.variant, str) or not self.variant.strip() or len(self.variant.split()) != 1:
            raise ValueError("Position.variant must be a preset name or a rule spec: %r" % (self.variant,))
        _check_text(self.variant, "the variant")
        if self.fen is not None:
            _check_text(self.fen, "the position text")
        for move in self.moves:
            _check_move_word(move)
        self._board = self._build()

    def _build(self) -> Any:
        """The native board of this game (``None`` without the native
        part); ``ValueError`` naming the first thing the rules refuse."""
        if _Board is None:
            return None
        board = _Board(self.variant, self.fen)
        for ply, move in enumerate(self.moves, 1):
            try:
                board.push_text(move)
            except ValueError as refused:
                raise type(refused)("move %d: %s" % (ply, refused)) from None
        return board

    def _synced_board(self) -> Any:
        if self._board is None or self._board.ply() != len(self.moves):
            self._board = self._build()
        return self._board

    def board(self) -> Any:
        """A :class:`yote.Board` of this game (needs the native part)."""
        if _Board is None:
            raise ImportError("Position.board() needs the native part of the yote package (pip install .)")
        return self._synced_board().copy()

    def push(self, move: str) -> None:
        """Adds a move; ``ValueError`` at once if the rules refuse it here
        (where the native part is built)."""
        _check_move_word(move)
        if _Board is not None:
            self._synced_board().push_text(move)
        self.moves.append(move)

    def pop(self) -> str:
        move = self.moves.pop()
        if self._board is not None and self._board.ply() == len(self.moves) + 1:
            self._board.pop()
        return move

    def copy(self) -> "Position":
        twin = _copy.copy(self)
        twin.moves = list(self.moves)
        twin._board = self._board.copy() if self._board is not None else None
        return twin

    def command(self) -> str:
        """The ``position`` command that sets this game."""
        words = ["position", "fen", _check_text(self.fen, "the position text")] if self.fen else ["position", "startpos"]
        if self.moves:
            words.append("moves")
            words.extend(_check_move_word(move) for move in self.moves)
        return " ".join(words)

    @classmethod
    def from_record(cls, record: "Record", variant: str = "standard") -> "Position":
        """The game of a records file entry (its ``Variant`` and ``FEN``
        tags, ``variant`` when it has none)."""
        return cls(record.tags.get("Variant") or variant, record.tags.get("FEN") or None, list(record.moves))

    @classmethod
    def from_board(cls, board: Any) -> "Position":
        """The game of a :class:`yote.Board`: its rules, its start and the
        moves played since."""
        return cls(board.variant_spec, board.start_fen(), [move.text for move in board.move_stack])


class _Game(NamedTuple):
    """What a call needs of the game it asks about."""

    variant: str
    command: str
    #: A native board to check the engine's moves against, else ``None``.
    board: Any


def _game_of(position: Any) -> _Game:
    """A :class:`Position` or a :class:`yote.Board`, as a call sends it."""
    if isinstance(position, Position):
        try:
            board = position._synced_board()
        except ValueError:
            board = None  # moves appended directly: the engine names the bad one
        return _Game(position.variant, position.command(), board.copy() if board is not None else None)
    if _Board is not None and isinstance(position, _Board):
        words = ["position", "fen", position.start_fen()]
        stack = [move.text for move in position.move_stack]
        if stack:
            words += ["moves"] + stack
        return _Game(position.variant_spec, " ".join(words), position.copy())
    raise TypeError("a position is a yote.Board or a yote.engine.Position, not %s" % type(position).__name__)

@dataclasses.dataclass(frozen=True)
class BestMove:
    """The end of a search: the move chosen (``None`` when the game is
    over) and the reply expected (only with the ``Ponder`` option on)."""

    move: Optional[str]
    ponder: Optional[str] = None


@dataclasses.dataclass
class PlayResult:
    """What :meth:`Engine.play` returns: the move, the ponder move, the info
    of the best line (its last report) and the engine's ``info string``
    texts (``game over: …`` when ``move`` is ``None``)."""

    move: Optional[str]
    ponder: Optional[str]
    info: Info
    strings: List[str] = dataclasses.field(default_factory=list)

    @property
    def score(self) -> Optional[PovScore]:
        return self.info.get("score")


@dataclasses.dataclass(frozen=True)
class OptionInfo:
    """An option as the engine declares it in its handshake."""

    name: str
    type: str
    default: Optional[str] = None
    min: Optional[int] = None
    max: Optional[int] = None
    vars: tuple = ()


def _option_key(name: str) -> str:
    """Option names match as the engine matches them: case and whitespace
    ignored."""
    return "".join(name.split()).lower()


class _Options(dict):
    """The engine's options by name, looked up as the engine does."""

    def __getitem__(self, name: str) -> OptionInfo:
        return super().__getitem__(_option_key(name))

    def __contains__(self, name: object) -> bool:
        return isinstance(name, str) and super().__contains__(_option_key(name))

    def get(self, name: str, default: Any = None) -> Any:
        return super().get(_option_key(name), default)


@dataclasses.dataclass
class Record:
    """One game of a records file: its tags in file order, its moves in the
    engine's notation (from the ``FEN`` tag's position), the comment after
    each move (``None`` where there is none), and the result token."""

    tags: Dict[str, str]
    moves: List[str]
    result: str = "*"
    comments: List[Optional[str]] = dataclasses.field(default_factory=list)


# ---------------------------------------------------------------------------
# Parsing engine output

_INT_FIELDS = {"depth", "seldepth", "multipv", "nodes", "nps", "hashfull", "tbhits", "currmovenumber", "cpuload"}
_SCORE_KINDS = {"cp": Cp, "mate": Mate}


def parse_info(line: str, turn: bool = WHITE) -> Optional[Info]:
    """The :data:`Info` of an ``info …`` line (scores seen from ``turn``,
    the side to move of the searched position), else ``None``. A field with
    a malformed value is left out rather than failing the whole line."""
    tokens = line.split()
    if not tokens or tokens[0] != "info":
        return None
    if tokens[1:2] == ["string"]:
        return {"string": line.split("string", 1)[1].strip()}
    info: Info = {}
    i = 1
    while i < len(tokens):
        key = tokens[i]
        try:
            if key == "pv":
                info["pv"] = tokens[i + 1:]
                break
            if key == "string":
                info["string"] = " ".join(tokens[i + 1:])
                break
            if key == "score":
                info["score"] = PovScore(_SCORE_KINDS[tokens[i + 1]](int(tokens[i + 2])), turn)
                i += 3
                if i < len(tokens) and tokens[i] in ("lowerbound", "upperbound"):
                    info[tokens[i]] = True
                    i += 1
                continue
            if key == "time":
                info["time"] = int(tokens[i + 1]) / 1000.0
                i += 2
                continue
            if key in _INT_FIELDS:
                info[key] = int(tokens[i + 1])
                i += 2
                continue
            if key == "currmove":
                info["currmove"] = tokens[i + 1]
                i += 2
                continue
        except (IndexError, KeyError, ValueError):
            LOG.warning("malformed %s field in %r", key, line)
        i += 1
    return info


def parse_bestmove(line: str) -> BestMove:
    words = line.split()
    move = words[1] if len(words) > 1 and words[1] != "(none)" else None
    ponder = words[3] if len(words) > 3 and words[2] == "ponder" else None
    return BestMove(move, ponder)


def parse_option(line: str) -> Optional[OptionInfo]:
    """The ``OptionInfo`` of an ``option name … type …`` line."""
    match = re.match(r"option name (.+?) type (\S+)(.*)$", line)
    if not match:
        return None
    name, kind, rest = match.group(1), match.group(2), match.group(3).split()
    default, low, high, choices = None, None, None, []
    i = 0
    while i < len(rest):
        key = rest[i]
        value = rest[i + 1] if i + 1 < len(rest) else ""
        if key == "default":
            default = value
        elif key == "min":
            low = int(value)
        elif key == "max":
            high = int(value)
        elif key == "var":
            choices.append(value)
        i += 2
    if kind == "string" and default == "<empty>":
        default = ""
    return OptionInfo(name, kind, default, low, high, tuple(choices))


def _error_text(line: str) -> Optional[str]:
    """The engine's reason if ``line`` reports a refusal: ``info string
    error: …`` or a query's ``response error …``."""
    if line.startswith("info string error"):
        return line.split("error", 1)[1].lstrip(": ").strip()
    if line == "response error" or line.startswith("response error "):
        return line[len("response error"):].lstrip(": ").strip() or "the engine refused the query"
    return None


def _raise_refusals(lines: Iterable[str]) -> None:
    errors = [text for text in map(_error_text, lines) if text is not None]
    if errors:
        raise EngineError(errors[0])


def _the_response(lines: Sequence[str], question: str) -> str:
    answers = [line for line in lines if line == "response" or line.startswith("response ")]
    if len(answers) != 1:
        raise EngineError("query %s: expected one response line, got %r" % (question, list(lines)))
    return answers[0][len("response "):]


# ---------------------------------------------------------------------------
# The engine process

# Set through the position's rules or a call's multipv, never through
# configure: the client sends them itself and would undo a value set behind
# its back.
_MANAGED_OPTIONS = {
    _option_key(name)
    for name in (
        "Variant", "UCI_Variant", "VariantSpec", "MultiPV", "Rows", "Columns", "Pieces", "Removal",
        "WinCondition", "NoMoves", "MandatoryCapture", "MultiJump", "BonusTurn", "JumpOwn", "ThreeDraw",
        "NoCaptureDraw", "NoCaptureOutcome", "RepetitionDraw",
    )
}

_RESULT_TOKEN = {"p1win": "1-0", "p2win": "0-1", "draw": "1/2-1/2", "none": "*"}

#: Stands for a line longer than ``LINE_CAP`` (whose bytes were dropped).
_TOO_LONG = object()


class _LineReader:
    """The engine's output as lines, read with ``select`` and ``os.read``:
    every read has a deadline, a line is kept to ``cap`` bytes (the rest of
    a longer one is dropped as it arrives, so memory stays bounded whatever
    the engine sends), and there is no reader thread. An interrupt between
    two steps here can make a line read twice or lost, never two lines
    run together: the bytes stay in one buffer until a line is taken out."""

    def __init__(self, fd: int, cap: int = LINE_CAP):
        self._fd = fd
        self._cap = cap
        self._buffer = bytearray()
        self._start = 0
        self._dropping = False
        self.eof = False

    def has_unread(self) -> bool:
        """Whether anything has arrived that no call has read."""
        if self._start < len(self._buffer):
            return True
        return not self.eof and bool(select.select([self._fd], [], [], 0)[0])

    def next(self, deadline: Optional[float]) -> Any:
        """The next line (``_TOO_LONG`` for one over the cap), ``None`` at
        the end of output; ``_Timeout`` after ``deadline``."""
        while True:
            end = self._buffer.find(b"\n", self._start)
            if end >= 0:
                line = self._buffer[self._start:end]
                self._start = end + 1
                return self._finish(line)
            if self._start:
                del self._buffer[:self._start]
                self._start = 0
            if len(self._buffer) > self._cap:
                self._buffer.clear()
                self._dropping = True
            if self.eof:
                if self._buffer or self._dropping:
                    line, self._buffer = self._buffer, bytearray()
                    return self._finish(line)
                return None
            wait = None if deadline is None else max(0.0, deadline - time.monotonic())
            if not select.select([self._fd], [], [], wait)[0]:
                raise _Timeout()
            chunk = os.read(self._fd, 1 << 16)
            if not chunk:
                self.eof = True
            self._buffer += chunk

    def _finish(self, line: bytearray) -> Any:
        if self._dropping:
            self._dropping = False
            return _TOO_LONG
        # errors="replace": a stray byte must not end the reading.
        return line.decode("utf-8", "replace").rstrip("\r")


class Engine:
    """An engine process behind pipes, speaking UGI (or UCI).

    Every read has a deadline: an engine that stops answering is reported
    after ``timeout`` seconds instead of hanging the script. One thread at
    a time may use an ``Engine``.
    """

    def __init__(
        self,
        command: Union[str, Sequence[str]] = "target/release/yote",
        dialect: str = "ugi",
        timeout: float = 30.0,
        stderr: Optional[TextIO] = None,
    ):
        if dialect not in ("ugi", "uci"):
            raise ValueError("dialect must be 'ugi' or 'uci'")
        argv = [command] if isinstance(command, str) else list(command)
        self.timeout = timeout
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr if stderr is not None else subprocess.DEVNULL,
            bufsize=0,
        )
        self._reader = _LineReader(self.proc.stdout.fileno())
        self.id: Dict[str, str] = {}
        self.options = _Options()
        #: The full rule spec and start position of the rules last loaded.
        self.variant_spec: Optional[str] = None
        self.start_fen: Optional[str] = None
        self._variant: Optional[str] = None
        self._multipv: Optional[int] = None
        self._fence_token = secrets.token_hex(8)
        self._fences = 0
        #: A call began and has not read all it caused: the next call first
        #: brings the engine back in step (``_settle``).
        self._out_of_step = False
        #: A ``go`` may have been written whose ``bestmove`` was not read
        #: and checked.
        self._search_may_run = False
        self._active: Optional["AnalysisResult"] = None
        self._gone: Optional[str] = None
        self._handshake(dialect)
        #: Whether the engine answers ``query moves`` with one response line.
        self.answers_query_moves = self._probe_query_moves()

    @classmethod
    def popen(cls, command: Union[str, Sequence[str]], **kwargs: Any) -> "Engine":
        """python-chess's spelling of the constructor."""
        return cls(command, **kwargs)

    @property
    def name(self) -> str:
        return self.id.get("name", "")

    # -- plumbing: every line in and out goes through here ----------------------

    def _write(self, lines: Sequence[str], raw: bytes = b"") -> None:
        """Sends ``lines`` in one write (after ``raw``, bytes sent as they
        are). Callers mark the engine out of step first: the write may be
        cut short by an interrupt."""
        if self._gone:
            raise EngineTerminatedError(self._gone)
        for line in lines:
            _check_text(line, "a protocol line")
            LOG.debug("> %s", line)
        data = raw + "".join(line + "\n" for line in lines).encode("utf-8")
        try:
            while data:
                data = data[os.write(self.proc.stdin.fileno(), data):]
        except OSError as error:
            self._gone = "engine is gone: %s" % error
            raise EngineTerminatedError(self._gone) from error

    def _next_line(self, deadline: Optional[float]) -> str:
        """The next line; ``_Timeout`` after ``deadline``."""
        if self._gone:
            raise EngineTerminatedError(self._gone)
        line = self._reader.next(deadline)
        if line is None:
            try:
                code = self.proc.wait(timeout=1)
            except subprocess.TimeoutExpired:
                code = None
            self._gone = "engine exited (exit code %s)" % code
            raise EngineTerminatedError(self._gone)
        if line is _TOO_LONG:
            raise EngineError("the engine sent a line longer than %d bytes" % LINE_CAP)
        LOG.debug("< %s", line)
        return line

    def _new_fence(self) -> str:
        """A token no engine sends by accident: random per engine, numbered
        per call, closed by ``-end`` so that no fence is a prefix of another."""
        self._fences += 1
        return "fence-%s-%d-end" % (self._fence_token, self._fences)

    def _read_to(self, fence: str, deadline: float, what: Sequence[str]) -> List[str]:
        """Every line up to the ``response`` that echoes ``fence`` (without
        it, nor the ``info string error`` line that names it)."""
        lines: List[str] = []
        try:
            while True:
                line = self._next_line(deadline)
                if fence in line:
                    if line.startswith("response"):
                        return lines
                    continue
                lines.append(line)
        except _Timeout:
            raise self._kill("no answer within %s s to %r; killed the engine" % (self.timeout, list(what))) from None

    def _kill(self, reason: str) -> EngineError:
        """Stop an engine that broke the protocol: better gone than out of step."""
        self._gone = reason
        if self.proc.poll() is None:
            self.proc.kill()
            self.proc.wait()
        return EngineTerminatedError(reason)

    def _settle(self) -> None:
        """Brings an engine that an earlier call left out of step back in
        step: spoils a line an interrupt may have cut short (a NUL the
        engine refuses, rather than act on a prefix of a command), makes a
        search that may run end and print its ``bestmove`` (``stop``, then
        a ``go`` on a refused position: ``go`` waits for the old search to
        end, and the refused position makes it answer ``bestmove (none)``
        at once), and reads everything up to a fresh fence. An unfinished
        :class:`AnalysisResult` gets the lines of its search."""
        if self._gone:
            raise EngineTerminatedError(self._gone)
        if not self._out_of_step:
            return
        active, self._active = self._active, None
        fence = self._new_fence()
        commands = ["stop", "position fen -", "go depth 1"] if self._search_may_run else []
        commands.append("query " + fence)
        self._write(commands, raw=b"\x00\n")
        for line in self._read_to(fence, time.monotonic() + self.timeout, commands):
            if active is not None and active._best is None:
                active._take(line)
        if active is not None:
            active._closed = True
        self._out_of_step = self._search_may_run = False

    def _exchange(self, commands: Sequence[str]) -> List[str]:
        """Send ``commands`` and a fence; every line up to the fence."""
        self._settle()
        self._out_of_step = True
        fence = self._new_fence()
        self._write(list(commands) + ["query " + fence])
        lines = self._read_to(fence, time.monotonic() + self.timeout, commands)
        self._out_of_step = False
        return lines

    def _handshake(self, dialect: str) -> None:
        self._out_of_step = True
        self._write([dialect])
        deadline = time.monotonic() + self.timeout
        try:
            while True:
                line = self._next_line(deadline)
                if line == dialect + "ok":
                    break
                if line.startswith("id "):
                    words = line.split(None, 2)
                    if len(words) == 3:
                        self.id[words[1]] = words[2]
                option = parse_option(line)
                if option:
                    self.options[_option_key(option.name)] = option
        except _Timeout:
            raise self._kill("no %sok within %s s" % (dialect, self.timeout)) from None
        self._out_of_step = False

    def _probe_query_moves(self) -> bool:
        lines = self._exchange(["query moves"])
        return any(line.startswith("response ") and _error_text(line) is None for line in lines)

    # -- options, rules, position ------------------------------------------------

    def configure(self, options: Mapping[str, Any]) -> None:
        """``setoption`` for each item; ``EngineError`` with the engine's
        message for a value it refuses. The rules go with each position,
        and MultiPV with each ``analyse`` call: setting them here raises
        ``ValueError``."""
        for name in options:
            if _option_key(name) in _MANAGED_OPTIONS:
                raise ValueError("%s is set by the client itself: give rules with the position (Board(variant) "
                                 "or Position(variant=…)), MultiPV as analyse(…, multipv=…)" % name)
        for name, value in options.items():
            self._set_option(name, value)

    def _set_option(self, name: str, value: Any) -> List[str]:
        if isinstance(value, bool):
            value = "true" if value else "false"
        elif value == "":
            value = "<empty>"  # how UCI spells an empty string value
        command = "setoption name %s" % name
        if value is not None:
            command += " value %s" % value
        lines = self._exchange([command])
        _raise_refusals(lines)
        for line in lines:
            if line.startswith("info string warning"):
                LOG.warning("%s: %s", command, line[len("info string "):])
        if any(line.startswith("info string variant ") for line in lines):
            # A rule option got through: what the engine plays is no longer
            # what the client loaded, so the next call loads its own again.
            self._variant = None
        return lines

    def _load_variant(self, variant: str) -> None:
        if not isinstance(variant, str) or not variant.strip():
            raise ValueError("Position.variant must be a preset name or a rule spec: %r" % (variant,))
        if variant == self._variant:
            return
        self._variant = None
        for line in self._set_option("Variant", variant):
            match = re.match(r"info string variant (\S+) startpos (.+)$", line)
            if match:
                self.variant_spec, self.start_fen = match.group(1), match.group(2)
        self._variant = variant

    def _load_multipv(self, multipv: int) -> None:
        if multipv < 1:
            raise ValueError("multipv must be at least 1")
        if multipv != self._multipv:
            # Forgotten first: an interrupt between the command and the
            # bookkeeping must not leave the client believing the old value.
            self._multipv = None
            self._set_option("MultiPV", multipv)
            self._multipv = multipv

    def _ask_about(self, game: _Game, commands: Sequence[str]) -> List[str]:
        """Load the game and send ``commands``; the lines they printed,
        after raising any refusal (the position's comes first)."""
        self._load_variant(game.variant)
        lines = self._exchange([game.command] + list(commands))
        _raise_refusals(lines)
        return lines

    def new_game(self) -> None:
        """``ucinewgame``: forget what earlier searches learned."""
        _raise_refusals(self._exchange(["ucinewgame"]))

    def ping(self) -> None:
        """A fenced round trip: after it, nothing is owed or unread."""
        self._exchange(["isready"])

    # -- referee questions ----------------------------------------------------

    def query(self, position: Any, question: str) -> str:
        """A ``query …`` about ``position``; the text after ``response``."""
        _check_text(question, "a query")
        return _the_response(self._ask_about(_game_of(position), ["query " + question]), question)

    def is_legal(self, position: Any, move: str) -> bool:
        if len(str(move).split()) != 1:
            raise ValueError("a move is one word: %r" % move)
        return self.query(position, "islegal %s" % move) == "true"

    def game_over(self, position: Any) -> bool:
        return self.query(position, "gameover") == "true"

    def result(self, position: Any) -> str:
        """``1-0``, ``0-1``, ``1/2-1/2``, or ``*`` while the game goes on."""
        answer = self.query(position, "result")
        if answer not in _RESULT_TOKEN:
            raise EngineError("query result: unexpected answer %r" % answer)
        return _RESULT_TOKEN[answer]

    def turn(self, position: Any) -> bool:
        """:data:`WHITE` (player 1) or :data:`BLACK` to move."""
        answer = self.query(position, "p1turn")
        if answer not in ("true", "false"):
            raise EngineError("query p1turn: unexpected answer %r" % answer)
        return answer == "true"

    def fen(self, position: Any) -> str:
        return self.query(position, "fen")

    def legal_moves(self, position: Any) -> List[str]:
        """The legal moves, in canonical text (the removal-only moves where
        removals are owed); ``[]`` when there are none. Raises
        ``EngineError`` when there are too many to list."""
        if self.answers_query_moves:
            words = self.query(position, "moves").split()
            return [] if words in ([], ["none"], ["(none)"]) else words
        lines = self._ask_about(_game_of(position), ["moves"])
        if any(line.startswith("info string no legal moves") for line in lines):
            return []
        listed = [line for line in lines if not line.startswith(("info ", "readyok", "bestmove"))]
        if len(listed) != 1:
            raise EngineError("moves: expected one line of moves, got %r" % lines)
        return listed[0].split()

    def board_text(self, position: Any) -> str:
        """The ``d`` picture of ``position``."""
        lines = self._ask_about(_game_of(position), ["d"])
        return "\n".join(line for line in lines if line not in ("readyok",) and not line.startswith("bestmove"))

    # -- searching ---------------------------------------------------------------

    def analysis(
        self,
        position: Any,
        limit: Optional[Limit] = None,
        *,
        multipv: Optional[int] = None,
        root_moves: Optional[Sequence[str]] = None,
    ) -> "AnalysisResult":
        """Start searching ``position`` (until ``stop`` when ``limit`` is
        ``None``); the :class:`AnalysisResult` streams the info as it comes.
        Use it as a context manager, or call ``stop()``/``wait()``: leaving
        the ``with`` block stops the search."""
        game = _game_of(position)
        self._load_multipv(multipv or 1)
        words = ["go"] + (limit.go_arguments() if limit else [])
        if len(words) == 1:
            words.append("infinite")
        if root_moves:
            words.append("searchmoves")
            words.extend(_check_move_word(move) for move in root_moves)
        turn = game.board.turn if game.board is not None else self.turn(position)
        seconds = limit.seconds(turn) if limit else None
        return self._start(game, " ".join(words), turn, seconds)

    def _start(self, game: _Game, go: str, turn: bool, seconds: Optional[float]) -> "AnalysisResult":
        self._load_variant(game.variant)
        self._settle()
        self._out_of_step = self._search_may_run = True
        fence = self._new_fence()
        commands = [game.command, go, "query " + fence]
        self._write(commands)
        lines = self._read_to(fence, time.monotonic() + self.timeout, commands)
        # A refused position (its go answers bestmove (none)) or a refused
        # go (no bestmove) starts no search. The flags stay up: the next
        # call makes sure of it.
        _raise_refusals(lines)
        deadline = None if seconds is None else time.monotonic() + seconds + self.timeout
        analysis = AnalysisResult(self, turn, lines, deadline, game)
        self._active = analysis
        return analysis

    def _close_search(self, analysis: "AnalysisResult") -> None:
        """The ``bestmove`` of ``analysis``'s search is read: make sure it
        was the only one (``stop``, which does nothing to a finished search,
        and a fence: a second ``bestmove`` before it means one of the two
        was stray) and that the move is legal in the searched position (the
        native board, else the engine's ``query islegal``)."""
        best = analysis._best
        board = analysis._game.board
        fence = self._new_fence()
        check: List[str] = []
        if board is None:
            check = ["query islegal " + best.move] if best.move else ["query gameover"]
        commands = ["stop"] + check + ["query " + fence]
        self._write(commands)
        lines = self._read_to(fence, time.monotonic() + self.timeout, commands)
        self._active = None
        extra = analysis._extra_bestmoves + sum(line.startswith("bestmove") for line in lines)
        if extra:
            raise EngineError("the engine sent %d bestmove lines for one go (%s first): out of step; "
                              "the next call brings it back" % (extra + 1, best.move))
        if board is not None:
            fits = board.is_legal(best.move) if best.move else board.is_game_over()
        else:
            fits = _the_response(lines, check[0][len("query "):]) == "true"
        if not fits:
            raise EngineError("the engine answered bestmove %s, which %s" % (
                best.move or "(none)",
                "is not legal in the position searched" if best.move else "says the game is over, and it is not"))
        self._out_of_step = self._search_may_run = False

    def analyse(
        self,
        position: Any,
        limit: Limit,
        *,
        multipv: Optional[int] = None,
        root_moves: Optional[Sequence[str]] = None,
    ) -> Union[Info, List[Info]]:
        """Search ``position`` within ``limit``: the info of the best line
        (its reports merged, the last one winning), or with ``multipv`` the
        list of the best lines' infos, best first. A finished game gives
        ``{}`` (``[]``)."""
        _require(limit)
        with self.analysis(position, limit, multipv=multipv, root_moves=root_moves) as analysis:
            analysis.wait()
        return dict(analysis.info) if multipv is None else [dict(info) for info in analysis.multipv]

    def play(self, position: Any, limit: Limit, *, root_moves: Optional[Sequence[str]] = None) -> PlayResult:
        """The move the engine plays in ``position`` within ``limit``, with the
        info (score, depth, PV) it reported for it; ``move`` is ``None`` when
        the game is over. The move is checked against the position's legal
        moves: an illegal one raises :class:`EngineError`."""
        _require(limit)
        with self.analysis(position, limit, root_moves=root_moves) as analysis:
            best = analysis.wait()
        return PlayResult(best.move, best.ponder, dict(analysis.info), list(analysis.strings))

    # -- lifetime ----------------------------------------------------------------

    def close(self) -> None:
        """``quit`` (which also ends a running search); kill after 5 s."""
        self._active = None
        if self.proc.poll() is None:
            try:
                if not self._gone:
                    self._write(["quit"])
                self.proc.wait(timeout=5)
            except (EngineError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        self._gone = self._gone or "engine was closed"
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass

    quit = close

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc: Any) -> None:
        self.close()


def _require(limit: Optional[Limit]) -> None:
    if limit is None or not limit.go_arguments():
        raise ValueError("a Limit needs at least one of: %s (analysis() searches without one)"
                         % ", ".join(f.name for f in dataclasses.fields(Limit)))


class AnalysisResult:
    """A running search, as python-chess's ``AnalysisResult``.

    Iterating yields each :data:`Info` as the engine prints it (``info
    string`` texts as ``{"string": …}``) and ends at the ``bestmove``.
    ``info`` is the best line's reports merged, ``multipv`` every line's;
    ``stop()`` asks the engine to finish, ``wait()`` reads to the end and
    returns the :class:`BestMove` (checked: see :meth:`Engine.play`).
    """

    def __init__(self, engine: Engine, turn: bool, lines: Sequence[str], deadline: Optional[float], game: _Game):
        self._engine = engine
        self.turn = turn
        self._game = game
        self._pending: Deque[str] = collections.deque(lines)
        self._deadline = deadline
        self._best: Optional[BestMove] = None
        self._extra_bestmoves = 0
        self._closed = False
        self._stopped = False
        self.multipv: List[Info] = []
        self.strings: List[str] = []

    @property
    def info(self) -> Info:
        return self.multipv[0] if self.multipv else {}

    def _live(self) -> bool:
        return self._engine._active is self and not self._engine._gone

    def _line(self) -> Optional[str]:
        if self._pending:
            return self._pending.popleft()
        if not self._live():
            return None
        try:
            return self._engine._next_line(self._deadline)
        except _Timeout:
            self._overran()
            raise AssertionError("unreachable")  # _overran raises

    def _overran(self) -> None:
        """The search outlived its time and the timeout: stop it, read it to
        its end, and say so."""
        self._deadline = time.monotonic() + self._engine.timeout
        self.stop()
        while self._best is None:
            try:
                self._take(self._engine._next_line(self._deadline))
            except _Timeout:
                raise self._engine._kill("no bestmove even after stop; killed the engine") from None
        raise EngineError("the search ran past its limit plus %s s; stopped it" % self._engine.timeout)

    def _take(self, line: str) -> Optional[Info]:
        if line.startswith("bestmove"):
            if self._best is None:
                self._best = parse_bestmove(line)
            else:
                self._extra_bestmoves += 1
            return None
        if self._best is not None:
            return None
        info = parse_info(line, self.turn)
        if info is None:
            return None
        if "string" in info:
            self.strings.append(info["string"])
            return info
        rank = info.get("multipv", 1)
        while len(self.multipv) < rank:
            self.multipv.append({})
        self.multipv[rank - 1].update(info)
        return info

    def _close(self) -> None:
        """After the bestmove: the lines the engine had already sent, then
        the engine's check of the answer (``Engine._close_search``)."""
        while self._pending:
            self._take(self._pending.popleft())
        self._closed = True
        if self._live():
            self._engine._close_search(self)

    def next(self) -> Optional[Info]:
        """The next report, or ``None`` once the search has ended."""
        while True:
            if self._best is not None:
                if not self._closed:
                    self._close()
                return None
            line = self._line()
            if line is None:
                return None
            info = self._take(line)
            if info is not None:
                return info

    def get(self) -> Info:
        info = self.next()
        if info is None:
            raise AnalysisComplete()
        return info

    def __iter__(self) -> "AnalysisResult":
        return self

    def __next__(self) -> Info:
        info = self.next()
        if info is None:
            raise StopIteration
        return info

    def stop(self) -> None:
        """Ask the engine to end the search now (its ``bestmove`` follows)."""
        if self._best is None and not self._stopped and self._live():
            self._engine._write(["stop"])
            self._stopped = True
            # After stop the bestmove is due at once, whatever the limit was.
            due = time.monotonic() + self._engine.timeout
            self._deadline = due if self._deadline is None else min(self._deadline, due)

    def wait(self) -> BestMove:
        """Read the search to its end (without stopping it)."""
        while self.next() is not None:
            pass
        if self._best is None:
            raise EngineError("the search ended without a bestmove")
        return self._best

    def _finish(self) -> None:
        self.stop()
        self.wait()

    def __enter__(self) -> "AnalysisResult":
        return self

    def __exit__(self, *exc: Any) -> None:
        if self._live() and exc[0] is None:
            self._finish()


# ---------------------------------------------------------------------------
# Playing games


def play_game(
    white: Engine,
    black: Engine,
    limit: Limit,
    variant: str = "standard",
    opening: Sequence[str] = (),
    fen: Optional[str] = None,
    max_plies: int = 500,
    on_move: Optional[Callable[[int, str, PlayResult], None]] = None,
) -> Record:
    """Play one game; ``white`` (player 1) also referees it.

    Both engines start a new game and get the whole game before every move
    (as tournament managers do). The game ends by the rules, as the referee
    engine reports it; a move the referee finds illegal loses the game. A
    game cut off after ``max_plies`` plies is unfinished: result ``*``,
    ``Termination`` ``max plies``.
    """
    for engine in (white, black) if white is not black else (white,):
        engine.new_game()
    referee = white
    position = Position(variant, fen, list(opening))
    while True:
        if referee.game_over(position):
            result, termination = referee.result(position), "rules"
            break
        if len(position.moves) >= max_plies:
            result, termination = "*", "max plies"
            break
        mover = white if referee.turn(position) == WHITE else black
        try:
            played = mover.play(position, limit)
        except EngineTerminatedError:
            raise
        except EngineError as refused:
            result = "0-1" if mover is white else "1-0"
            termination = "illegal move (%s)" % refused
            break
        if played.move is None or not referee.is_legal(position, played.move):
            result = "0-1" if mover is white else "1-0"
            termination = "illegal move %s" % played.move
            break
        position.push(played.move)
        if on_move:
            on_move(len(position.moves), played.move, played)
    tags = {
        "Event": "yote.engine game",
        "White": white.name,
        "Black": black.name,
        "Variant": referee.variant_spec or variant,
        "FEN": fen or referee.start_fen or "",
        "Plies": str(len(position.moves)),
        "Termination": termination,
        "Result": result,
    }
    return Record(tags, position.moves, result, [None] * len(position.moves))


def play_against_person(
    engine: Engine,
    person_plays_white: bool = True,
    limit: Limit = Limit(time=1.0),
    variant: str = "standard",
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> Record:
    """A game between a person at the terminal and ``engine``.

    The person types moves in the engine's notation (``@c3``, ``c3c4``,
    ``c3c5xd4``); ``moves`` lists the legal ones, ``quit`` resigns. Every
    move is checked by the engine's rules before it is played.
    """
    engine.new_game()
    position = Position(variant)
    result = "*"
    while not engine.game_over(position):
        write(engine.board_text(position))
        if engine.turn(position) == person_plays_white:
            text = read("your move> ").strip()
            if text == "quit":
                result = "0-1" if person_plays_white else "1-0"
                break
            if text == "moves":
                write(" ".join(engine.legal_moves(position)))
                continue
            if len(text.split()) != 1 or not engine.is_legal(position, text):
                write("not a legal move here: %r (type 'moves' to list them)" % text)
                continue
            move = text
        else:
            move = engine.play(position, limit).move
            write("engine plays %s" % move)
        position.push(move)
    else:
        result = engine.result(position)
        write(engine.board_text(position))
    write("result: %s" % result)
    tags = {
        "Event": "yote.engine game",
        "White": "person" if person_plays_white else engine.name,
        "Black": engine.name if person_plays_white else "person",
        "Variant": engine.variant_spec or variant,
        "FEN": engine.start_fen or "",
        "Result": result,
    }
    return Record(tags, position.moves, result, [None] * len(position.moves))


# ---------------------------------------------------------------------------
# Records files

_TAG = re.compile(r'^\[(\w+)\s+"((?:[^"\\]|\\.)*)"\]\s*$')
_RESULTS = ("1-0", "0-1", "1/2-1/2", "*")
_MOVE_NUMBER = re.compile(r"^\d+\.(\.\.)?$")


def read_records(source: Union[str, TextIO]) -> List[Record]:
    """Every game of a records file (a path, or an open text file).

    Tags are kept in file order with their values unescaped; move numbers
    (``1.`` and ``1...``) are skipped; a ``{…}`` comment is attached to the
    move it follows. A game without tags (a plain move list, one game per
    paragraph) is read too.
    """
    if isinstance(source, str):
        with open(source, encoding="utf-8") as handle:
            return _parse_records(handle.read())
    return _parse_records(source.read())


def _parse_records(text: str) -> List[Record]:
    records: List[Record] = []
    tags: Dict[str, str] = {}
    movetext: List[str] = []

    def finish() -> None:
        if tags or movetext:
            records.append(_game_from(tags, " ".join(movetext)))

    in_moves = False
    for raw in text.splitlines():
        line = raw.strip()
        tag = _TAG.match(line)
        if tag:
            if in_moves:
                finish()
                tags, movetext, in_moves = {}, [], False
            tags[tag.group(1)] = re.sub(r"\\(.)", r"\1", tag.group(2))
        elif line:
            in_moves = True
            movetext.append(line)
        elif in_moves and not tags:
            # A paragraph of bare moves is a game of its own.
            finish()
            tags, movetext, in_moves = {}, [], False
    finish()
    return records


def _game_from(tags: Dict[str, str], movetext: str) -> Record:
    moves: List[str] = []
    comments: List[Optional[str]] = []
    result = tags.get("Result", "*")
    for token in re.findall(r"\{[^}]*\}|\S+", movetext):
        if token.startswith("{"):
            if comments:
                comments[-1] = token[1:-1].strip()
        elif token in _RESULTS:
            result = token
        elif not _MOVE_NUMBER.match(token):
            moves.append(token)
            comments.append(None)
    return Record(dict(tags), moves, result, comments)


def write_records(records: Iterable[Record], sink: Union[str, TextIO], append: bool = False) -> None:
    """Write games in the records format (a path, or an open text file):
    tags, a blank line, numbered moves with their comments, the result."""
    if isinstance(sink, str):
        with open(sink, "a" if append else "w", encoding="utf-8") as handle:
            write_records(records, handle)
        return
    for record in records:
        # The match runner's reader wants the Result tag, last, agreeing
        # with the result token.
        tags = {k: v for k, v in record.tags.items() if k != "Result"}
        tags["Result"] = record.result
        for key, value in tags.items():
            escaped = value.replace("\\", "\\\\").replace('"', '\\"')
            sink.write('[%s "%s"]\n' % (key, escaped))
        sink.write("\n")
        sink.write(_movetext(record) + "\n\n")


def _movetext(record: Record) -> str:
    black_first = " b " in " %s " % record.tags.get("FEN", "")
    words: List[str] = []
    number = 1
    white_to_move = not black_first
    if black_first:
        words.append("1...")
    for index, move in enumerate(record.moves):
        if white_to_move:
            words.append("%d." % number)
        words.append(move)
        comment = record.comments[index] if index < len(record.comments) else None
        if comment:
            words.append("{%s}" % comment)
        # The records' numbering counts plies in pairs; it is a label for
        # people, the moves alone carry the game.
        if not white_to_move:
            number += 1
        white_to_move = not white_to_move
    words.append(record.result)
    return " ".join(words)

"""A client for the yote engine, for scripts: Python's standard library only.

Import it from any script (``sys.path`` must reach ``scripts/``)::

    from yote_client import Engine, Limit

    with Engine("target/release/yote") as engine:
        engine.set_variant("hand-removal")          # a preset, or a spec
        engine.set_position(moves=["@c3", "@d3"])
        analysis = engine.analyse(Limit(nodes=100_000), multipv=3)
        for line in analysis.lines:
            print(line.multipv, line.depth, line.score, " ".join(line.pv))

What it offers, each a typed value rather than protocol text:

- :class:`Engine` starts an engine process, performs the handshake, sets
  options, rules and positions (raising :class:`EngineError` with the
  engine's own message when it refuses one), analyses (:meth:`Engine.analyse`
  returns an :class:`Analysis` of :class:`Line` values with a :class:`Score`
  and the PV as move texts) and asks the referee questions (``query …``).
- :func:`play_game` plays a game between two engines, refereed by the rules
  engine behind the first one, and returns a :class:`Record`;
  :func:`play_against_person` lets a person play an engine on the terminal.
- :func:`read_records` / :func:`write_records` read and write the match
  runner's records files (``yote match --pgn``), the format of docs/match.md.

The engine's rules library decides every question of legality and game end:
this module never re-implements the rules.
"""

import dataclasses
import queue
import re
import subprocess
import threading
import time
from typing import Callable, Dict, Iterable, List, Optional, Sequence, TextIO, Union

__all__ = [
    "Analysis",
    "Engine",
    "EngineError",
    "Limit",
    "Line",
    "OptionInfo",
    "Record",
    "Score",
    "play_against_person",
    "play_game",
    "read_records",
    "write_records",
]


class EngineError(RuntimeError):
    """The engine refused a command, died, or stopped answering."""


# ---------------------------------------------------------------------------
# Typed values


@dataclasses.dataclass(frozen=True)
class Score:
    """A search score from the side to move's point of view.

    ``kind`` is ``"cp"`` (``value`` in hundredths of a piece) or ``"mate"``
    (``value`` = the side to move's own moves to the end: positive wins,
    negative loses).
    """

    kind: str
    value: int

    def is_mate(self) -> bool:
        return self.kind == "mate"

    def __str__(self) -> str:
        if self.kind == "mate":
            return "mate %+d" % self.value
        return "%+.2f" % (self.value / 100.0)


@dataclasses.dataclass
class Line:
    """One line of an analysis: what the engine reported last for one rank."""

    multipv: int
    depth: int
    score: Score
    pv: List[str]
    seldepth: Optional[int] = None
    nodes: Optional[int] = None
    time_ms: Optional[int] = None
    tbhits: Optional[int] = None


@dataclasses.dataclass
class Analysis:
    """The result of one search: the move chosen and the best lines found."""

    bestmove: Optional[str]
    ponder: Optional[str]
    lines: List[Line]
    info_strings: List[str]

    @property
    def score(self) -> Optional[Score]:
        return self.lines[0].score if self.lines else None


@dataclasses.dataclass
class Limit:
    """How long a search may run. Unset fields are not sent; at least one
    field must be set (an unlimited search would never return)."""

    nodes: Optional[int] = None
    depth: Optional[int] = None
    movetime: Optional[int] = None
    mate: Optional[int] = None
    p1time: Optional[int] = None
    p2time: Optional[int] = None
    p1inc: Optional[int] = None
    p2inc: Optional[int] = None
    movestogo: Optional[int] = None

    def go_arguments(self) -> str:
        parts = []
        for field in dataclasses.fields(self):
            value = getattr(self, field.name)
            if value is not None:
                parts.append("%s %d" % (field.name, value))
        if not parts:
            raise ValueError("a Limit needs at least one of: %s" % ", ".join(
                f.name for f in dataclasses.fields(self)))
        return " ".join(parts)


@dataclasses.dataclass(frozen=True)
class OptionInfo:
    """An option as the engine declares it in its handshake."""

    name: str
    type: str
    default: Optional[str] = None
    min: Optional[int] = None
    max: Optional[int] = None
    vars: tuple = ()


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


def parse_info(line: str) -> Optional[Line]:
    """The ``Line`` an ``info … score … pv …`` line reports, else ``None``."""
    tokens = line.split()
    if not tokens or tokens[0] != "info" or "string" in tokens[1:2]:
        return None
    fields: Dict[str, int] = {}
    score = None
    pv: List[str] = []
    i = 1
    while i < len(tokens):
        key = tokens[i]
        if key == "pv":
            pv = tokens[i + 1:]
            break
        if key == "score" and i + 2 < len(tokens):
            kind = tokens[i + 1]
            # "lowerbound"/"upperbound" may follow the value; it is still a score.
            score = Score(kind, int(tokens[i + 2]))
            i += 3
            continue
        if key == "string":
            return None
        if i + 1 < len(tokens) and re.fullmatch(r"-?\d+", tokens[i + 1]):
            fields[key] = int(tokens[i + 1])
            i += 2
        else:
            i += 1
    if score is None or "depth" not in fields:
        return None
    return Line(
        multipv=fields.get("multipv", 1),
        depth=fields["depth"],
        score=score,
        pv=pv,
        seldepth=fields.get("seldepth"),
        nodes=fields.get("nodes"),
        time_ms=fields.get("time"),
        tbhits=fields.get("tbhits"),
    )


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


# ---------------------------------------------------------------------------
# The engine process


class Engine:
    """An engine process behind pipes, speaking UGI (or UCI).

    Lines are read on a thread, so that an engine that stops answering is
    reported after ``timeout`` seconds instead of hanging the script.
    """

    def __init__(
        self,
        command: Union[str, Sequence[str]] = "target/release/yote",
        dialect: str = "ugi",
        timeout: float = 30.0,
        stderr: Optional[TextIO] = None,
    ):
        argv = [command] if isinstance(command, str) else list(command)
        self.timeout = timeout
        self.proc = subprocess.Popen(
            argv,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            stderr=stderr if stderr is not None else subprocess.DEVNULL,
            text=True,
            bufsize=1,
        )
        self._lines: "queue.Queue[Optional[str]]" = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()
        self.name = ""
        self.options: Dict[str, OptionInfo] = {}
        self.variant_spec: Optional[str] = None
        self.start_fen: Optional[str] = None
        self._handshake(dialect)

    # -- plumbing ------------------------------------------------------------

    def _read(self) -> None:
        for line in self.proc.stdout:
            self._lines.put(line.rstrip("\n"))
        self._lines.put(None)

    def send(self, line: str) -> None:
        """Send one raw protocol line."""
        if "\n" in line:
            raise ValueError("one protocol line at a time: %r" % line)
        try:
            self.proc.stdin.write(line + "\n")
            self.proc.stdin.flush()
        except (BrokenPipeError, OSError) as error:
            raise EngineError("engine is gone: %s" % error) from error

    def read_until(self, done: Callable[[str], bool], timeout: Optional[float] = None) -> List[str]:
        """Every line up to and including the first one ``done`` accepts."""
        deadline = time.monotonic() + (self.timeout if timeout is None else timeout)
        seen: List[str] = []
        while True:
            remaining = deadline - time.monotonic()
            try:
                line = self._lines.get(timeout=max(0.0, remaining))
            except queue.Empty:
                raise EngineError("engine did not answer in time; last lines: %r" % seen[-5:])
            if line is None:
                raise EngineError("engine exited; last lines: %r" % seen[-5:])
            seen.append(line)
            if done(line):
                return seen

    def sync(self) -> List[str]:
        """``isready``; the lines printed before ``readyok``."""
        self.send("isready")
        return self.read_until(lambda line: line == "readyok")[:-1]

    def _checked(self, command: str) -> List[str]:
        """Send ``command``, synchronise, and raise the engine's own error
        text if it refused the command."""
        self.send(command)
        lines = self.sync()
        for line in lines:
            if line.startswith("info string error"):
                raise EngineError(_error_text(line))
        return lines

    def _handshake(self, dialect: str) -> None:
        if dialect not in ("ugi", "uci"):
            raise ValueError("dialect must be 'ugi' or 'uci'")
        self.send(dialect)
        for line in self.read_until(lambda line: line == dialect + "ok"):
            if line.startswith("id name "):
                self.name = line[len("id name "):]
            option = parse_option(line)
            if option:
                self.options[option.name.lower()] = option

    # -- options, rules, position ------------------------------------------------

    def set_option(self, name: str, value: Union[str, int, bool, None] = None) -> None:
        """``setoption``; raises ``EngineError`` if the engine refuses it."""
        if isinstance(value, bool):
            value = "true" if value else "false"
        command = "setoption name %s" % name
        if value is not None:
            command += " value %s" % value
        self._remember_variant(self._checked(command))

    def set_variant(self, variant: str) -> str:
        """Set every rule at once from a preset name (``standard``) or a spec
        as the engine prints it (``5x5,bonus_turn=true``). Returns the full
        spec the engine now plays."""
        self.set_option("Variant", variant)
        return self.variant_spec or ""

    def _remember_variant(self, lines: Iterable[str]) -> None:
        for line in lines:
            match = re.match(r"info string variant (\S+) startpos (.+)$", line)
            if match:
                self.variant_spec, self.start_fen = match.group(1), match.group(2)

    def new_game(self) -> None:
        self._checked("ucinewgame")

    def set_position(self, fen: Optional[str] = None, moves: Sequence[str] = ()) -> None:
        """``position startpos|fen … moves …``; raises ``EngineError`` naming
        the offending move or text if the engine refuses it."""
        command = "position " + ("fen " + fen if fen else "startpos")
        if moves:
            command += " moves " + " ".join(moves)
        self._checked(command)

    # -- searching ---------------------------------------------------------------

    def analyse(
        self,
        limit: Limit,
        multipv: int = 1,
        searchmoves: Sequence[str] = (),
        timeout: Optional[float] = None,
    ) -> Analysis:
        """Search the current position within ``limit``; the deepest line
        reported for each rank, best first."""
        if multipv < 1:
            raise ValueError("multipv must be at least 1")
        if self.options.get("multipv"):
            self.set_option("MultiPV", multipv)
        command = "go " + limit.go_arguments()
        if searchmoves:
            command += " searchmoves " + " ".join(searchmoves)
        self.send(command)
        budget = timeout if timeout is not None else self.timeout + (limit.movetime or 0) / 1000.0
        lines = self.read_until(
            lambda line: line.startswith("bestmove") or line.startswith("info string error"),
            timeout=budget,
        )
        if lines[-1].startswith("info string error"):
            raise EngineError(_error_text(lines[-1]))
        return _analysis_from(lines)

    def best_move(self, limit: Limit) -> Optional[str]:
        """The move the engine plays within ``limit`` (``None`` if the game
        is over)."""
        return self.analyse(limit).bestmove

    def stop(self) -> None:
        self.send("stop")

    # -- referee questions ----------------------------------------------------

    def query(self, question: str) -> str:
        """A ``query …`` question; the text after ``response``."""
        self.send("query " + question)
        line = self.read_until(lambda l: l.startswith("response ") or l.startswith("info string error"))[-1]
        if line.startswith("info string error"):
            raise EngineError(_error_text(line))
        return line[len("response "):]

    def is_legal(self, move: str) -> bool:
        return self.query("islegal " + move) == "true"

    def game_over(self) -> bool:
        return self.query("gameover") == "true"

    def result(self) -> str:
        """``p1win``, ``p2win``, ``draw`` or ``none``."""
        return self.query("result")

    def p1_to_move(self) -> bool:
        return self.query("p1turn") == "true"

    def fen(self) -> str:
        return self.query("fen")

    def legal_moves(self) -> List[str]:
        """The legal moves of the current position, in canonical text."""
        self.send("moves")
        line = self.read_until(lambda l: not l.startswith("info string variant"))[-1]
        if line.startswith("info string"):
            return []
        return line.split()

    def board(self) -> str:
        """The ``d`` picture of the current position."""
        self.send("d")
        self.send("isready")
        return "\n".join(self.read_until(lambda l: l == "readyok")[:-1])

    # -- lifetime ----------------------------------------------------------------

    def close(self) -> None:
        if self.proc.poll() is None:
            try:
                self.send("quit")
                self.proc.wait(timeout=5)
            except (EngineError, subprocess.TimeoutExpired):
                self.proc.kill()
                self.proc.wait()
        for pipe in (self.proc.stdin, self.proc.stdout):
            try:
                pipe.close()
            except OSError:
                pass

    def __enter__(self) -> "Engine":
        return self

    def __exit__(self, *exc) -> None:
        self.close()


def _error_text(line: str) -> str:
    """The engine's reason from an ``info string error: …`` line."""
    return line.split("error:", 1)[-1].strip()


def _analysis_from(lines: List[str]) -> Analysis:
    best: Dict[int, Line] = {}
    strings = []
    for text in lines:
        if text.startswith("info string "):
            strings.append(text[len("info string "):])
            continue
        line = parse_info(text)
        if line is not None:
            # A later report for a rank comes from a deeper or equal iteration.
            best[line.multipv] = line
    words = lines[-1].split()
    move = words[1] if len(words) > 1 and words[1] != "(none)" else None
    ponder = words[3] if len(words) > 3 and words[2] == "ponder" else None
    return Analysis(move, ponder, [best[k] for k in sorted(best)], strings)


# ---------------------------------------------------------------------------
# Playing games

_RESULT_TOKEN = {"p1win": "1-0", "p2win": "0-1", "draw": "1/2-1/2"}


def play_game(
    white: Engine,
    black: Engine,
    limit: Limit,
    variant: str = "standard",
    opening: Sequence[str] = (),
    fen: Optional[str] = None,
    max_plies: int = 500,
    on_move: Optional[Callable[[int, str, Analysis], None]] = None,
) -> Record:
    """Play one game; ``white`` (player 1) also referees it.

    Both engines get the same rules and the whole game before every move (as
    tournament managers do). The game ends by the rules, as the referee
    engine reports it, or after ``max_plies`` plies (then a draw, tagged
    ``max plies``); a move the referee finds illegal loses the game.
    """
    for engine in (white, black) if white is not black else (white,):
        engine.set_variant(variant)
        engine.new_game()
    referee = white
    start = fen or referee.start_fen or ""
    moves: List[str] = list(opening)
    referee.set_position(fen, moves)
    termination = ""
    while True:
        if referee.game_over():
            result = _RESULT_TOKEN.get(referee.result(), "*")
            termination = "rules"
            break
        if len(moves) >= max_plies:
            result, termination = "1/2-1/2", "max plies"
            break
        mover = white if referee.p1_to_move() else black
        mover.set_position(fen, moves)
        analysis = mover.analyse(limit)
        move = analysis.bestmove
        if move is None or not referee.is_legal(move):
            result = "0-1" if mover is white else "1-0"
            termination = "illegal move %s" % move
            break
        moves.append(move)
        referee.set_position(fen, moves)
        if on_move:
            on_move(len(moves), move, analysis)
    tags = {
        "Event": "yote_client game",
        "White": white.name,
        "Black": black.name,
        "Variant": referee.variant_spec or variant,
        "FEN": start,
        "Plies": str(len(moves)),
        "Termination": termination,
        "Result": result,
    }
    return Record(tags, moves, result, [None] * len(moves))


def play_against_person(
    engine: Engine,
    person_plays_white: bool = True,
    limit: Limit = Limit(movetime=1000),
    variant: str = "standard",
    read: Callable[[str], str] = input,
    write: Callable[[str], None] = print,
) -> Record:
    """A game between a person at the terminal and ``engine``.

    The person types moves in the engine's notation (``@c3``, ``c3c4``,
    ``c3c5xd4``); ``moves`` lists the legal ones, ``quit`` resigns. Every
    move is checked by the engine's rules before it is played.
    """
    engine.set_variant(variant)
    engine.new_game()
    moves: List[str] = []
    engine.set_position(moves=moves)
    result = "*"
    while not engine.game_over():
        write(engine.board())
        if engine.p1_to_move() == person_plays_white:
            text = read("your move> ").strip()
            if text == "quit":
                result = "0-1" if person_plays_white else "1-0"
                break
            if text == "moves":
                write(" ".join(engine.legal_moves()))
                continue
            if not engine.is_legal(text):
                write("not a legal move here: %r (type 'moves' to list them)" % text)
                continue
            move = text
        else:
            move = engine.best_move(limit)
            write("engine plays %s" % move)
        moves.append(move)
        engine.set_position(moves=moves)
    else:
        result = _RESULT_TOKEN.get(engine.result(), "*")
        write(engine.board())
    write("result: %s" % result)
    tags = {
        "Event": "yote_client game",
        "White": "person" if person_plays_white else engine.name,
        "Black": engine.name if person_plays_white else "person",
        "Variant": engine.variant_spec or variant,
        "FEN": engine.start_fen or "",
        "Result": result,
    }
    return Record(tags, moves, result, [None] * len(moves))


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

"""The two fuzzes of issue 39 against the engine client: Ctrl-C at random
points of random calls (item 11), and an engine that sends stray lines
(item 12). Each counts the calls that returned a wrong answer: the target
is 0 — every call returns its own answer or raises.

The tests (test_engine.py) run them small; for the full-size figures:

    python3 python/tests/client_fuzz.py --engine target/release/yote \
        --interrupts 1000 --stray-calls 150 [--client path/to/old_client.py]

``--client`` runs them against another copy of the client module (the old
``scripts/yote_client.py``, to see the failures it had).
"""

import argparse
import importlib.util
import os
import random
import signal
import statistics
import sys
import time

HERE = os.path.dirname(os.path.abspath(__file__))
HOSTILE = os.path.join(HERE, "hostile_engine.py")
sys.path.insert(0, HERE)

from hostile_engine import answers_for  # noqa: E402

#: The stray-line fuzz's games: at most two placements from the start, so
#: the hostile engine's moves are legal in each.
STRAY_GAMES = [[], ["@c3"], ["@c3", "@d3"]]

#: The Ctrl-C fuzz's two games, whose legal moves share no text: the start
#: (placements only) and a position with empty hands (steps and jumps only).
START_FEN = None
STEPS_FEN = "WW4/BB4/6/6/6 w 0 0 0 1"


def stray_line_fuzz(client, calls=150, seed=1, stray=0.1, boards=False):
    """``calls`` random calls against the hostile engine; a dict of how many
    returned the right answer, raised, or returned a wrong one (``wrong``,
    with ``examples``)."""
    rng = random.Random(seed)
    tally = {"right": 0, "raised": 0, "wrong": 0, "examples": []}
    engine = None
    engine_seed = seed
    for _ in range(calls):
        if engine is None or engine._gone:
            engine_seed += 1
            engine = _open(client, [sys.executable, HOSTILE, "--seed", str(engine_seed), "--stray", str(stray)])
            if engine is None:
                tally["raised"] += 1
                continue
        moves = rng.choice(STRAY_GAMES)
        position = client.Position("standard", None, list(moves))
        if boards and rng.random() < 0.5:
            position = position.board()
        truth = answers_for(moves)
        ask = rng.choice(["fen", "turn", "legal_moves", "is_legal", "play", "game_over"])
        probe = rng.choice(truth["legal"] + ["@c3", "zz9"])
        expected = {
            "fen": truth["fen"],
            "turn": truth["p1turn"] == "true",
            "legal_moves": truth["legal"],
            "is_legal": probe in truth["legal"],
            "play": truth["best"],
            "game_over": False,
        }[ask]
        try:
            if ask == "is_legal":
                got = engine.is_legal(position, probe)
            elif ask == "play":
                got = engine.play(position, client.Limit(nodes=1)).move
            else:
                got = getattr(engine, ask)(position)
        except client.EngineError:
            tally["raised"] += 1
            continue
        if got == expected:
            tally["right"] += 1
        else:
            tally["wrong"] += 1
            tally["examples"].append((ask, moves, got, expected))
    if engine is not None:
        engine.close()
    return tally


def _open(client, command):
    try:
        return client.Engine(command, timeout=5)
    except client.EngineError:
        return None


def _interrupt(signum, frame):
    raise KeyboardInterrupt


def ctrl_c_fuzz(client, engine_path, interrupts=1000, seed=1, nodes=50):
    """Calls interrupted at random points until ``interrupts`` of them
    were; after each, a call about the other game and one about the same
    game must give their own answers. A dict: ``interrupted``, ``wrong``
    (with ``examples``), ``raised`` (a check call that refused rather than
    answer), ``calls``."""
    rng = random.Random(seed)
    limit = client.Limit(nodes=nodes)
    tally = {"interrupted": 0, "wrong": 0, "raised": 0, "calls": 0, "examples": []}
    with client.Engine(engine_path) as engine:
        games = [client.Position("standard", START_FEN), client.Position("standard", STEPS_FEN)]
        legal = [set(engine.legal_moves(game)) for game in games]
        fens = [engine.fen(game) for game in games]
        assert not legal[0] & legal[1]
        # Interrupts fall anywhere in a call: up to one and a half times
        # the time a search call takes.
        spent = []
        for _ in range(20):
            began = time.perf_counter()
            engine.play(games[0], limit)
            spent.append(time.perf_counter() - began)
        longest = 1.5 * statistics.median(spent)
        previous = signal.signal(signal.SIGALRM, _interrupt)
        try:
            tries = 0
            # The cap only stops a client that can never be interrupted:
            # on a loaded machine the quick calls (fen, legal moves) mostly
            # finish before their alarm, and one interrupt in twenty calls
            # once left the run at 999 of 1000 after 20 000 calls.
            while tally["interrupted"] < interrupts and tries < 100 * interrupts:
                tries += 1
                which = rng.randrange(2)
                game = games[which]
                call = rng.choice([
                    lambda: engine.play(game, limit),
                    lambda: engine.analyse(game, limit, multipv=rng.choice([None, 2])),
                    lambda: engine.fen(game),
                    lambda: engine.legal_moves(game),
                ])
                delay = rng.uniform(1e-5, longest)
                try:
                    try:
                        signal.setitimer(signal.ITIMER_REAL, delay)
                        call()
                    finally:
                        signal.setitimer(signal.ITIMER_REAL, 0)
                except KeyboardInterrupt:
                    tally["interrupted"] += 1
                except client.EngineError:
                    pass  # the call itself may find the engine out of step
                tally["calls"] += 1
                other = 1 - which
                try:
                    move = engine.play(games[other], limit).move
                    fen = engine.fen(games[which])
                except client.EngineError as refused:
                    tally["raised"] += 1
                    tally["examples"].append(("raised", str(refused)[:120]))
                    if engine._gone:
                        break
                    continue
                if move not in legal[other] or fen != fens[which]:
                    tally["wrong"] += 1
                    tally["examples"].append((move, fen))
        finally:
            signal.setitimer(signal.ITIMER_REAL, 0)
            signal.signal(signal.SIGALRM, previous)
    return tally


def load_client(path):
    """The client module at ``path`` (another copy, e.g. the old one)."""
    spec = importlib.util.spec_from_file_location("client_under_test", path)
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="target/release/yote")
    parser.add_argument("--client", help="a client module file (default: yote.engine)")
    parser.add_argument("--interrupts", type=int, default=1000)
    parser.add_argument("--stray-calls", type=int, default=150)
    parser.add_argument("--stray", type=float, default=0.1)
    parser.add_argument("--nodes", type=int, default=50)
    parser.add_argument("--seed", type=int, default=1)
    args = parser.parse_args()
    if args.client:
        client = load_client(args.client)
    else:
        sys.path.insert(0, os.path.join(HERE, "..", ".."))
        try:
            import yote.engine as client
        except ImportError:
            sys.path.insert(0, os.path.join(HERE, ".."))
            import yote.engine as client
    began = time.monotonic()
    stray = stray_line_fuzz(client, args.stray_calls, args.seed, args.stray)
    print("stray lines: %d calls: %d right, %d raised, %d wrong (%.1f s)" % (
        args.stray_calls, stray["right"], stray["raised"], stray["wrong"], time.monotonic() - began))
    for example in stray["examples"][:5]:
        print("  wrong:", example)
    began = time.monotonic()
    fuzz = ctrl_c_fuzz(client, args.engine, args.interrupts, args.seed, args.nodes)
    print("ctrl-c: %d interrupts in %d calls: %d wrong answers, %d check calls raised (%.1f s)" % (
        fuzz["interrupted"], fuzz["calls"], fuzz["wrong"], fuzz["raised"], time.monotonic() - began))
    for example in fuzz["examples"][:5]:
        print("  ", example)


if __name__ == "__main__":
    main()

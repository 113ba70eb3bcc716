#!/usr/bin/env python3
"""What a yote.Board costs from Python, against the engine's own figures.

    python3 scripts/bench/bench_board.py [--engine target/release/yote] [--runs 15]

perft: the median time of ``Board(variant).perft(depth)`` in this process
against the median of ``yote perft depth`` (divide, the default output) and
``yote perft depth --total``, both as the engine times itself (its stderr
line, without process start). The same Rust code runs under both.
legal_moves: the median over ``--runs`` repeats of the mean time of
``board.legal_moves`` (a list of Move objects) on the start position, by
timeit; push+pop likewise. Needs the package installed (pip install .).
"""

import argparse
import os
import statistics
import subprocess
import sys
import time
import timeit

try:
    import yote
except ImportError:  # not installed: the source tree (with a built native part)
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    import yote


def engine_seconds(engine, depth, variant, total):
    """The engine's own time for one perft (its stderr `perft D: S s` line)."""
    args = [engine, "perft", str(depth), "--variant", variant] + (["--total"] if total else [])
    run = subprocess.run(args, capture_output=True, text=True, check=True)
    line = [l for l in run.stderr.splitlines() if l.startswith("perft %d:" % depth)][-1]
    return float(line.split()[2])


def board_seconds(variant, depth):
    board = yote.Board(variant)
    began = time.perf_counter()
    board.perft(depth)
    return time.perf_counter() - began


def per_call(statement, setup, number, runs):
    timer = timeit.Timer(statement, setup=setup, globals={"yote": yote})
    return statistics.median(t / number for t in timer.repeat(repeat=runs, number=number))


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n\n")[0])
    parser.add_argument("--engine", default="target/release/yote")
    parser.add_argument("--runs", type=int, default=15)
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--depths", default="5,6")
    args = parser.parse_args()
    if not yote.HAS_NATIVE:
        sys.exit("the native part of yote is not built: pip install .")
    for depth in map(int, args.depths.split(",")):
        nodes = yote.Board(args.variant).perft(depth)
        # Interleaved, so that a change in the machine's load falls on all three.
        python, divide, total = [], [], []
        for _ in range(args.runs):
            python.append(board_seconds(args.variant, depth))
            divide.append(engine_seconds(args.engine, depth, args.variant, False))
            total.append(engine_seconds(args.engine, depth, args.variant, True))
        for name, pick in (("median", statistics.median), ("fastest", min)):
            p, d, t = pick(python), pick(divide), pick(total)
            print("perft %d (%s, %d nodes), %s of %d: Board.perft %.4f s, yote perft %.4f s (%.2fx), "
                  "yote perft --total %.4f s (%.2fx)" % (depth, args.variant, nodes, name, args.runs, p, d, p / d, t, p / t))
    start = "board = yote.Board(%r)" % args.variant
    print("legal_moves on the start position: %.2f us" % (1e6 * per_call("board.legal_moves", start, 2000, args.runs)))
    print("push_text + pop: %.2f us" % (1e6 * per_call("board.push_text('@c3'); board.pop()", start, 2000, args.runs)))
    print("fen(): %.2f us" % (1e6 * per_call("board.fen()", start, 2000, args.runs)))


if __name__ == "__main__":
    main()

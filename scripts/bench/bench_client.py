#!/usr/bin/env python3
"""Median cost of yote.engine calls: what the isready fence of every call costs.

    python3 scripts/bench/bench_client.py [--engine target/release/yote] [--calls 2000]

Each figure is the median wall time of one call over ``--calls`` calls (a
quarter as many for ``play``): a referee question, the legal moves, a
depth-1 ``play``, and a question about a 60-ply game (the engine replays
only what changed since the last ``position``).
"""

import argparse
import os
import statistics
import sys
import time

try:
    from yote.engine import Engine, Limit, Position
except ImportError:  # the yote package is not installed: the source tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    from yote.engine import Engine, Limit, Position


def median_ms(call, times):
    spent = []
    for _ in range(times):
        began = time.perf_counter()
        call()
        spent.append(time.perf_counter() - began)
    return statistics.median(spent) * 1000.0


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="target/release/yote")
    parser.add_argument("--calls", type=int, default=2000)
    args = parser.parse_args()
    with Engine(args.engine) as engine:
        opening = Position(moves=["@c3", "@d3", "@c4"])
        print("turn():          %.3f ms" % median_ms(lambda: engine.turn(opening), args.calls))
        print("legal_moves():   %.3f ms" % median_ms(lambda: engine.legal_moves(opening), args.calls))
        print("play(depth 1):   %.3f ms" % median_ms(lambda: engine.play(opening, Limit(depth=1)), args.calls // 4))
        game = Position()
        while len(game.moves) < 60 and not engine.game_over(game):
            game.push(engine.play(game, Limit(depth=1)).move)
        print("turn(), %d plies: %.3f ms" % (len(game.moves), median_ms(lambda: engine.turn(game), args.calls)))


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Analyse one Yote position through the engine protocol.

A thin example on top of yote_client (standard library only): set the rules,
the position and MultiPV, search for a while, print the best lines.

    python3 scripts/analyse.py --engine target/release/yote \
        --variant standard --moves "@c3 @d3" --multipv 3 --seconds 2
"""

import argparse
import os
import sys

sys.path.insert(0, os.path.dirname(os.path.abspath(__file__)))

from yote_client import Engine, EngineError, Limit  # noqa: E402


def analyse(args):
    with Engine(args.engine) as engine:
        engine.set_variant(args.variant)
        engine.set_position(args.fen, args.moves.split())
        analysis = engine.analyse(Limit(movetime=int(args.seconds * 1000)), multipv=args.multipv)
    print("position: %s moves %s" % (args.fen or "startpos", args.moves))
    for line in analysis.lines:
        print("%d. depth %d  %s  %s" % (line.multipv, line.depth, line.score, " ".join(line.pv)))
    print("best move: %s" % analysis.bestmove)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="target/release/yote", help="engine binary")
    parser.add_argument("--variant", default="standard", help="a preset name or a variant spec")
    parser.add_argument("--fen", help="start from this position text instead of startpos")
    parser.add_argument("--moves", default="", help="moves played from the start, space-separated")
    parser.add_argument("--multipv", type=int, default=3, help="how many best lines")
    parser.add_argument("--seconds", type=float, default=2.0, help="how long to think")
    try:
        analyse(parser.parse_args())
    except (EngineError, OSError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

#!/usr/bin/env python3
"""Analyse one Yote position through the engine protocol.

A thin example on top of yote.engine (standard library only): set the rules,
the position and MultiPV, search for a while, print the best lines.

    python3 scripts/clients/analyse.py --engine target/release/yote \
        --variant standard --moves "@c3 @d3" --multipv 3 --seconds 2
"""

import argparse
import os
import sys

try:
    from yote.engine import Engine, EngineError, Limit, Position
except ImportError:  # the yote package is not installed: the source tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    from yote.engine import Engine, EngineError, Limit, Position


def score_text(score):
    """Pieces from the side to move's view (``+1.50``), or ``mate +3``."""
    if score.is_mate():
        return "mate %+d" % score.mate()
    return "%+.2f" % (score.score() / 100.0)


def analyse(args):
    position = Position(args.variant, args.fen, args.moves.split())
    with Engine(args.engine) as engine:
        with engine.analysis(position, Limit(time=args.seconds), multipv=args.multipv) as analysis:
            best = analysis.wait()
    print("position: %s moves %s" % (args.fen or "startpos", args.moves))
    for info in analysis.multipv:
        print("%d. depth %d  %s  %s" % (info["multipv"], info["depth"], score_text(info["score"].relative),
                                        " ".join(info["pv"])))
    print("best move: %s" % best.move)


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

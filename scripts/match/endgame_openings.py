#!/usr/bin/env python3
"""Positions with a given number of pieces, taken from recorded games, as an
openings file for `yote match --openings` (one position text per line).

    python3 scripts/match/endgame_openings.py games.pgn --min 8 --max 12 \
        --count 150 --seed 8 > openings.txt

Every position of every game is replayed by the engine (the rules decide);
positions where the game is over, or a side has fewer than 2 pieces, are
skipped; duplicates are dropped; the rest are shuffled with the seed.
"""

import argparse
import os
import random
import sys

try:
    from yote.engine import Engine, Position, read_records
except ImportError:  # the yote package is not installed: the source tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    from yote.engine import Engine, Position, read_records


def pieces(fen):
    board, _, white_hand, black_hand = fen.split()[:4]
    white = board.count("W") + int(white_hand)
    black = board.count("B") + int(black_hand)
    return white, black


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("records")
    parser.add_argument("--engine", default="target/release/yote")
    parser.add_argument("--min", type=int, default=8, help="fewest pieces in total")
    parser.add_argument("--max", type=int, default=12, help="most pieces in total")
    parser.add_argument("--count", type=int, default=150)
    parser.add_argument("--seed", type=int, default=8)
    args = parser.parse_args()
    found = set()
    with Engine(args.engine) as engine:
        for game in read_records(args.records):
            whole = Position.from_record(game)
            for ply in range(len(game.moves)):
                position = Position(whole.variant, whole.fen, whole.moves[:ply])
                fen = engine.fen(position)
                white, black = pieces(fen)
                if args.min <= white + black <= args.max and min(white, black) >= 2:
                    if not engine.game_over(position):
                        found.add(" ".join(fen.split()[:4]))
    chosen = sorted(found)
    random.Random(args.seed).shuffle(chosen)
    print("%d positions found, %d written" % (len(chosen), min(len(chosen), args.count)), file=sys.stderr)
    for fen in chosen[: args.count]:
        print(fen)


if __name__ == "__main__":
    main()

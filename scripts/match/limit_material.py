#!/usr/bin/env python3
"""How many games of a match record ended at the runner's ply limit, and the
material (board and hand, larger side first) each of them ended with:
what self-play failed to convert (docs/search.md, "The network").

    scripts/match/limit_material.py target/release/yote self.pgn
    scripts/match/limit_material.py target/release/yote self.pgn --leads > leads.txt

It also says which player (by the records' White and Black names) was
ahead in the games that ended with one side ahead.

The final positions are the engine's own: each record's moves are replayed
with `position fen ... moves ...` and read back from `d`. With `--leads`,
the final positions where one side has more pieces are printed instead, one
position text a line (the counters reset): an openings file
(`yote match --openings`) of the leads that were not converted.
"""
import collections
import re
import subprocess
import sys


def limit_games(text):
    """(start position, moves, white, black) of every game that ended at the
    ply limit."""
    for game in text.split("[Event ")[1:]:
        if 'Termination "max plies"' not in game:
            continue
        body = re.sub(r"\{[^}]*\}", " ", game.split("\n\n", 1)[1])
        moves = [t for t in body.split()
                 if not re.fullmatch(r"\d+\.", t) and t not in ("1-0", "0-1", "1/2-1/2", "*")]
        names = [re.search(rf'\[{tag} "([^"]*)"\]', game).group(1) for tag in ("White", "Black")]
        yield (re.search(r'\[FEN "([^"]*)"\]', game).group(1), moves, *names)


def main():
    if len(sys.argv) not in (3, 4) or sys.argv[3:] not in ([], ["--leads"]):
        sys.exit("usage: limit_material.py ENGINE RECORD [--leads]")
    engine, record = sys.argv[1], sys.argv[2]
    leads_only = sys.argv[3:] == ["--leads"]
    text = open(record).read()
    games = list(limit_games(text))
    commands = "".join(f"position fen {fen} moves {' '.join(moves)}\nd\n" for fen, moves, _, _ in games)
    out = subprocess.run([engine], input=commands + "quit\n", capture_output=True, text=True,
                         check=True).stdout
    hands = re.findall(r"In hand: white (\d+), black (\d+)", out)
    boards = re.findall(r"On board: white (\d+), black (\d+)", out)
    texts = re.findall(r"Position: (.*)", out)
    if not len(hands) == len(boards) == len(texts) == len(games):
        sys.exit(f"limit_material: the engine described {len(hands)} of {len(games)} positions")
    tally = collections.Counter()
    ahead = collections.Counter()
    for (wh, bh), (wb, bb), position, (_, _, white_name, black_name) in zip(
            hands, boards, texts, games):
        white, black = int(wh) + int(wb), int(bh) + int(bb)
        tally[f"{max(white, black)} v {min(white, black)}"] += 1
        if white != black:
            ahead[white_name if white > black else black_name] += 1
            if leads_only:
                print(" ".join(position.split()[:4]))
    if leads_only:
        return
    total = text.count("[Event ")
    print(f"{len(games)} of {total} games at the ply limit; material at the limit: "
          + ", ".join(f"{k}: {v}" for k, v in tally.most_common()))
    print(f"{sum(ahead.values())} of them with one side ahead; ahead: "
          + (", ".join(f"{k} {v}" for k, v in ahead.most_common()) or "none"))


if __name__ == "__main__":
    main()

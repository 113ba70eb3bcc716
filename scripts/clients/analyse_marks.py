#!/usr/bin/env python3
"""Counts the marks of `yote analyse` files and compares two analyses of the
same games (docs/analysis.md, "Marks measured").

    python3 scripts/clients/analyse_marks.py new-analysed.pgn [old-analysed.pgn]

For each file: moves, marks, and marks whose better move is the played move
itself (a move judged against itself). With two files: how many moves'
marks differ between them, and how.
"""

import collections
import os
import sys

try:
    from yote.engine import read_records
except ImportError:  # the yote package is not installed: the source tree
    sys.path.insert(0, os.path.join(os.path.dirname(os.path.abspath(__file__)), "..", "..", "python"))
    from yote.engine import read_records

MARKS = ("??", "?!", "?")  # longest first: "?!" and "??" before "?"


def judged_moves(path):
    """(game, ply, move, mark, named best move) for every move of a file."""
    out = []
    for game, record in enumerate(read_records(path)):
        for ply, move in enumerate(record.moves):
            comment = record.comments[ply] if ply < len(record.comments) else None
            head = (comment or "").split(";")[0].split()
            mark = next((m for m in MARKS if m in head), "")
            best = None
            if ", best " in (comment or ""):
                best = comment.split(", best ")[1].split()[0]
            out.append((game, ply, move, mark, best))
    return out


def describe(path, moves):
    marked = [m for m in moves if m[3]]
    itself = [m for m in marked if m[4] == m[2]]
    kinds = collections.Counter(m[3] for m in marked)
    print(
        f"{path}: {len(moves)} moves, {len(marked)} marks "
        f"(?! {kinds['?!']}, ? {kinds['?']}, ?? {kinds['??']}), "
        f"{len(itself)} naming the played move as the best one"
    )


def compare(new, old):
    before = {(g, p): mark for g, p, _, mark, _ in old}
    changed = collections.Counter()
    for g, p, _, mark, _ in new:
        was = before.get((g, p), "")
        if was != mark:
            changed[(was or "-", mark or "-")] += 1
    total = sum(changed.values())
    print(f"moves whose mark changed: {total} of {len(new)}")
    for (was, now), n in changed.most_common():
        print(f"  {was:>2} -> {now:<2} {n}")


def main():
    if len(sys.argv) not in (2, 3):
        sys.exit(__doc__)
    new = judged_moves(sys.argv[1])
    describe(sys.argv[1], new)
    if len(sys.argv) == 3:
        old = judged_moves(sys.argv[2])
        describe(sys.argv[2], old)
        compare(new, old)


if __name__ == "__main__":
    main()

#!/usr/bin/env python3
"""Random standard positions of one material, nothing in hand, the side
ahead to move, kept when the endgame tables call them a win of at least
--min-plies to the next capture: openings for `yote match --openings`.

    scripts/tables/table_positions.py target/release/yote tb7 --ahead 4 --behind 2 \
        --count 200 --min-plies 21 --seed 1 > w42.txt
    scripts/tables/table_positions.py target/release/yote tb7 --ahead 4 --behind 2 \
        --count 4000 --min-plies 0 --correlate > /dev/null

With --correlate, stderr gets how the plies to the next capture of the
kept wins correlate with distances between the two armies (the measure
behind the evaluation's `chase` term, docs/search.md).
"""

import argparse
import random
import statistics
import subprocess
import sys

ROWS, COLS = 5, 6


def position_text(grid, side):
    ranks = []
    for r in range(ROWS):
        text, empty = "", 0
        for cell in grid[r * COLS:(r + 1) * COLS]:
            if cell == ".":
                empty += 1
                continue
            text += (str(empty) if empty else "") + cell
            empty = 0
        ranks.append(text + (str(empty) if empty else ""))
    return "/".join(ranks) + f" {side} 0 0"


def steps(a, b):
    return abs(a // COLS - b // COLS) + abs(a % COLS - b % COLS)


def features(ahead, behind, grid):
    def edge(c):
        r, f = divmod(c, COLS)
        return min(r, ROWS - 1 - r) + min(f, COLS - 1 - f)

    def free(c):
        r, f = divmod(c, COLS)
        near = [(r + dr, f + df) for dr, df in ((1, 0), (-1, 0), (0, 1), (0, -1))]
        return sum(1 for y, x in near if 0 <= y < ROWS and 0 <= x < COLS and grid[y * COLS + x] == ".")

    return {
        "loser's pieces to the nearest winner's": sum(min(steps(e, s) for s in ahead) for e in behind),
        "winner's pieces to the nearest loser's": sum(min(steps(s, e) for e in behind) for s in ahead),
        "loser's distance from the edge": sum(edge(e) for e in behind),
        "loser's empty neighbours": sum(free(e) for e in behind),
    }


class Tables:
    def __init__(self, engine, directory):
        self.proc = subprocess.Popen([engine], stdin=subprocess.PIPE, stdout=subprocess.PIPE,
                                     text=True, bufsize=1)
        self.send(f"setoption name TablebasePath value {directory}")
        self.read_until("readyok")

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def read_until(self, word):
        self.send("isready")
        lines = []
        while True:
            line = self.proc.stdout.readline()
            if not line:
                sys.exit("table_positions: the engine stopped")
            if word in line:
                return lines
            lines.append(line)

    def next_capture_win(self, text):
        """Plies to the next capture when the side to move wins, else None."""
        self.send("position fen " + text)
        self.send("d")
        for line in self.read_until("readyok"):
            if line.startswith("Tablebase:") and "next capture in" in line:
                mover = "white" if text.split()[1] == "w" else "black"
                if line.startswith(f"Tablebase: win for {mover}"):
                    return int(line.split("next capture in ")[1].split()[0])
        return None

    def close(self):
        self.send("quit")
        self.proc.wait()


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("engine")
    parser.add_argument("tables", help="a directory of standard tables holding the material")
    parser.add_argument("--ahead", type=int, default=4)
    parser.add_argument("--behind", type=int, default=2)
    parser.add_argument("--count", type=int, default=200)
    parser.add_argument("--min-plies", type=int, default=21)
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--correlate", action="store_true")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    tables = Tables(args.engine, args.tables)
    rows, tries = [], 0
    while len(rows) < args.count:
        tries += 1
        if tries > 200 * args.count:
            sys.exit("table_positions: too few wins of that length (are the tables there?)")
        cells = rng.sample(range(ROWS * COLS), args.ahead + args.behind)
        ahead, behind = cells[:args.ahead], cells[args.ahead:]
        side = rng.choice("wb")
        grid = ["."] * (ROWS * COLS)
        for c in ahead:
            grid[c] = "W" if side == "w" else "B"
        for c in behind:
            grid[c] = "B" if side == "w" else "W"
        text = position_text(grid, side)
        plies = tables.next_capture_win(text)
        if plies is not None and plies >= args.min_plies:
            rows.append((plies, features(ahead, behind, grid)))
            print(text)
    tables.close()
    if args.correlate:
        plies = [p for p, _ in rows]
        print(f"{len(rows)} wins, mean plies to the next capture {statistics.mean(plies):.1f}",
              file=sys.stderr)
        for name in rows[0][1]:
            values = [f[name] for _, f in rows]
            print(f"  {name}: {statistics.correlation(values, plies):+.2f}", file=sys.stderr)


if __name__ == "__main__":
    main()

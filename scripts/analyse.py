#!/usr/bin/env python3
"""Analyse one Yote position through the engine protocol (UGI).

An example client using only the standard library: it starts the engine,
sets the rules and MultiPV, sends the position, runs `go infinite` for a
while, sends `stop`, and prints the best lines of the deepest iteration.

    python3 scripts/analyse.py --engine target/release/yote \
        --variant standard --moves "@c3 @d3" --multipv 3 --seconds 2
"""

import argparse
import queue
import subprocess
import sys
import threading
import time


class Engine:
    """A protocol engine behind pipes; lines are read on a thread so that
    a silent engine can be detected with a timeout instead of a hang."""

    def __init__(self, command):
        self.proc = subprocess.Popen(
            command,
            stdin=subprocess.PIPE,
            stdout=subprocess.PIPE,
            text=True,
            bufsize=1,
        )
        self.lines = queue.Queue()
        threading.Thread(target=self._read, daemon=True).start()

    def _read(self):
        for line in self.proc.stdout:
            self.lines.put(line.rstrip("\n"))
        self.lines.put(None)

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, done, timeout=10.0):
        """Lines up to and including the first one `done` accepts."""
        deadline = time.monotonic() + timeout
        seen = []
        while True:
            try:
                line = self.lines.get(timeout=max(0.0, deadline - time.monotonic()))
            except queue.Empty:
                raise RuntimeError("engine timed out; last lines: %r" % seen[-5:])
            if line is None:
                raise RuntimeError("engine exited; last lines: %r" % seen[-5:])
            seen.append(line)
            if done(line):
                return seen

    def close(self):
        self.send("quit")
        self.proc.wait(timeout=10)


def parse_info(line):
    """The fields of an `info … pv …` line: numbers, the score, the PV."""
    tokens = line.split()
    info, i = {}, 1
    while i < len(tokens):
        key = tokens[i]
        if key == "pv":
            info["pv"] = tokens[i + 1:]
            break
        if key == "score":
            info["score"] = (tokens[i + 1], int(tokens[i + 2]))
            i += 3
            continue
        if key == "string":
            return {}
        if i + 1 < len(tokens):
            info[key] = int(tokens[i + 1])
        i += 2
    return info


def score_text(score):
    kind, value = score
    if kind == "mate":
        return "mate %+d" % value
    return "%+.2f" % (value / 100.0)


def analyse(args):
    engine = Engine([args.engine])
    try:
        engine.send("ugi")
        engine.until(lambda l: l == "ugiok")
        engine.send("setoption name Variant value %s" % args.variant)
        engine.send("setoption name MultiPV value %d" % args.multipv)
        position = "position startpos"
        if args.fen:
            position = "position fen " + args.fen
        if args.moves:
            position += " moves " + args.moves
        engine.send(position)
        engine.send("isready")
        for line in engine.until(lambda l: l == "readyok"):
            if line.startswith("info string error"):
                raise RuntimeError(line)
        engine.send("go infinite")
        time.sleep(args.seconds)
        engine.send("stop")
        lines = engine.until(lambda l: l.startswith("bestmove"))
    finally:
        engine.close()

    best_lines = {}
    for line in lines:
        info = parse_info(line) if line.startswith("info ") else {}
        if "score" in info and "pv" in info:
            # A later report for the same rank is from a deeper iteration.
            best_lines[info.get("multipv", 1)] = info
    print("position: %s" % position)
    for rank in sorted(best_lines):
        info = best_lines[rank]
        print(
            "%d. depth %d  %s  %s"
            % (rank, info.get("depth", 0), score_text(info["score"]), " ".join(info["pv"]))
        )
    print("best move: %s" % lines[-1].split()[1])


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--engine", default="target/release/yote", help="engine binary")
    parser.add_argument("--variant", default="standard", help="a Variant preset name")
    parser.add_argument("--fen", help="start from this position text instead of startpos")
    parser.add_argument("--moves", default="", help="moves played from the start, space-separated")
    parser.add_argument("--multipv", type=int, default=3, help="how many best lines")
    parser.add_argument("--seconds", type=float, default=2.0, help="how long to think")
    try:
        analyse(parser.parse_args())
    except (RuntimeError, OSError) as e:
        print("error: %s" % e, file=sys.stderr)
        return 1
    return 0


if __name__ == "__main__":
    sys.exit(main())

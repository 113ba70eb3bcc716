#!/usr/bin/env python3
"""A front end that plays every capture in parts, written from protocol.md
alone, with no rules code: the jump is one turn, each removal another.

The engine plays both sides. When it answers a capture (`c3e3xa1`) the
client plays the jump alone (`c3e3`) and asks again: the engine owes the
removals and answers with the pieces it chose (`xa1`). Removals are played
one per turn. Everything the client knows comes from engine answers:
`bestmove`, `query gameover/moves/islegal/fen/result`.

    python3 scripts/clients/two_turn_client.py --engine target/release/yote
"""
import argparse, subprocess, sys

PRESETS = ["standard", "hand-removal", "6x6", "classic", "5x5", "boxed", "all-options"]


class Engine:
    def __init__(self, path):
        self.proc = subprocess.Popen([path], stdin=subprocess.PIPE, stdout=subprocess.PIPE, text=True)

    def send(self, line):
        self.proc.stdin.write(line + "\n")
        self.proc.stdin.flush()

    def until(self, prefix):
        for line in self.proc.stdout:
            if line.startswith(prefix):
                return line.split()[1:]
        raise RuntimeError(f"engine exited waiting for {prefix!r}")

    def query(self, what):
        self.send("query " + what)
        words = self.until("response")
        if words[:1] == ["error"]:
            raise RuntimeError(f"query {what}: {' '.join(words)}")
        return words

    def go(self, nodes):
        self.send(f"go nodes {nodes}")
        return self.until("bestmove")[0]


def turn_of(answer):
    """The part of the engine's answer this client plays as one turn, and
    the rest it expects the engine to answer next."""
    path, *removals = answer.split("x")
    if path and removals:  # a capture: its jump alone
        return path, "x" + "x".join(removals)
    if len(removals) > 1:  # removals only: the first one
        return "x" + removals[0], "x" + "x".join(removals[1:])
    return answer, None


def play(engine, preset, plies, nodes):
    engine.send(f"setoption name Variant value {preset}")
    engine.send("uginewgame")
    moves, parts, expected = [], 0, None
    while len(moves) < plies:
        engine.send("position startpos moves " + " ".join(moves))
        if engine.query("gameover") == ["true"]:
            break
        answer = engine.go(nodes)
        if expected and answer != expected:
            raise RuntimeError(f"{preset}: expected {expected}, the engine chose {answer}")
        turn, expected = turn_of(answer)
        if engine.query("islegal " + turn) != ["true"]:
            raise RuntimeError(f"{preset}: {turn} refused after {moves}")
        moves.append(turn)
        if expected:  # the turn left removals owed: only removals are legal
            parts += 1
            engine.send("position startpos moves " + " ".join(moves))
            owed = engine.query("moves")
            if not all(m.startswith("x") for m in owed) or expected not in owed:
                raise RuntimeError(f"{preset}: after {turn} the engine lists {owed}")
            if not engine.query("fen")[-1].startswith("x"):
                raise RuntimeError(f"{preset}: after {turn} no removal is owed")
    engine.send("position startpos moves " + " ".join(moves))
    return len(moves), parts, engine.query("result")[0]


def main():
    ap = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    ap.add_argument("--engine", default="target/release/yote")
    ap.add_argument("--presets", nargs="*", default=PRESETS)
    ap.add_argument("--plies", type=int, default=200, help="turns at most per game")
    ap.add_argument("--nodes", type=int, default=2000, help="nodes per engine answer")
    args = ap.parse_args()
    engine = Engine(args.engine)
    engine.send("ugi")
    engine.until("ugiok")
    for preset in args.presets:
        turns, parts, result = play(engine, preset, args.plies, args.nodes)
        print(f"{preset}: {turns} turns, {parts} left removals owed, result {result}")
    engine.send("quit")


if __name__ == "__main__":
    sys.exit(main())

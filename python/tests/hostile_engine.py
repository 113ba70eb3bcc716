"""A hostile engine for the client's tests (issue 39 item 12): it answers
the protocol correctly, and around its answers it sends stray lines — a
`readyok` nobody asked for, a `bestmove` (legal or not) no `go` caused, an
`info` line, a `response` — at random, seeded.

    python3 hostile_engine.py [--seed N] [--stray RATE] [--long-line BYTES]

Its answers follow from the moves of the last `position` alone
(`answers_for`), so a test knows the right answer to every call; the moves
it plays are legal Yoté moves in the few games the tests ask about, so a
client that checks them with the rules accepts them.
"""

import argparse
import random
import sys

# The stray lines, chosen at random: the `bestmove`s are a legal move of
# every test game (@b2), another (@a1, this engine's own answer in even
# games), an illegal one and none.
STRAYS = ["readyok", "bestmove @b2", "bestmove @a1", "bestmove zz9", "bestmove (none)",
          "info depth 3 score cp 5 pv @b2", "response true", "response false"]


def answers_for(moves):
    """This engine's answers in the game of ``moves``: a dict of the
    `query` answers and the `go` move. Placements on a1/f5/b2 are legal
    in every game the tests use (at most two placements from the start)."""
    n = len(moves)
    last = moves[-1] if moves else "start"
    legal = ["@a1", "@f5", "@b2", "@e4"]
    return {
        "fen": "fake-%d-%s w 0 0 0 1" % (n, last),
        "p1turn": "true" if n % 2 == 0 else "false",
        "moves": " ".join(legal),
        "gameover": "false",
        "result": "none",
        "best": "@a1" if n % 2 == 0 else "@f5",
        "legal": legal,
    }


def main():
    parser = argparse.ArgumentParser()
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--stray", type=float, default=0.1, help="chance of a stray line around each answer")
    parser.add_argument("--long-line", type=int, default=0, help="answer the first `query fen` with a line this long")
    parser.add_argument("--best", help="answer every `go` with this move instead")
    args = parser.parse_args()
    rng = random.Random(args.seed)
    long_line = args.long_line
    out = sys.stdout

    def say(line):
        if rng.random() < args.stray:
            out.write(rng.choice(STRAYS) + "\n")
        out.write(line + "\n")
        if rng.random() < args.stray:
            out.write(rng.choice(STRAYS) + "\n")
        out.flush()

    moves = []
    for raw in sys.stdin:
        words = raw.split()
        if not words:
            continue
        command = words[0]
        if command == "ugi" or command == "uci":
            say("id name Hostile")
            say("option name Hash type spin default 16 min 1 max 1024")
            say(command + "ok")
        elif command == "isready":
            say("readyok")
        elif command == "position":
            moves = words[words.index("moves") + 1:] if "moves" in words else []
        elif command == "query" and len(words) >= 2:
            answers = answers_for(moves)
            what = words[1]
            if what == "islegal" and len(words) == 3:
                say("response " + ("true" if words[2] in answers["legal"] else "false"))
            elif what == "fen" and long_line:
                out.write("response " + "x" * long_line + "\n")
                out.flush()
                long_line = 0
            elif what in answers and len(words) == 2:
                say("response " + answers[what])
            else:
                say('info string error: query: unexpected token "%s"' % words[-1])
                say('response error query: unexpected token "%s"' % words[-1])
        elif command == "go":
            best = args.best or answers_for(moves)["best"]
            say("info depth 1 score cp 0 nodes 1 pv " + best)
            say("bestmove " + best)
        elif command == "setoption":
            if "Variant" in words:
                say("info string variant standard startpos 6/6/6/6/6 w 12 12 0 1")
        elif command == "quit":
            break
        elif command in ("stop", "ucinewgame", "uginewgame"):
            pass
        else:
            say('info string error: unknown command "%s"' % command)


if __name__ == "__main__":
    main()

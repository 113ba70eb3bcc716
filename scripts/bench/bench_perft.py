#!/usr/bin/env python3
"""Median perft (or bench) speed of one or more yote binaries, measured in the same run.

    scripts/bench/bench_perft.py                       # target/release/yote, perft 6
    scripts/bench/bench_perft.py --runs 15 old/yote target/release/yote
    scripts/bench/bench_perft.py --full old/yote target/release/yote   # every leaf made
    scripts/bench/bench_perft.py --full --fen "1W1WW1/W4B/3B2/1W3W/3W2 b 5 4" --depth 5
    scripts/bench/bench_perft.py --bench --runs 7 old/yote target/release/yote   # search

Runs are interleaved (A B A B ...) so that both builds see the same machine
load; the median of each is printed, of the wall time (what `yote perft`
reports on stderr) and of the CPU time the run used (from the operating
system): on a shared machine a run waits for a core, and the CPU time is the
figure that tracks the code. Uses `yote perft N --total` (with `--full`:
`--total --full`, every move played, the make/unmake benchmark), which
prints `Nodes searched: N` on stdout. With `--bench` it runs `yote bench`
instead (depth: bench's default unless given), whose wall time is the
search time its `Nodes/second` line implies.
"""
import argparse
import re
import resource
import statistics
import subprocess
import sys


def command_of(binary, args):
    if args.bench:
        return [binary, "bench"] + ([str(args.depth)] if args.depth is not None else [])
    command = [binary, "perft", str(args.depth), "--total", "--variant", args.variant]
    if args.fen:
        command += ["--fen", args.fen]
    if args.full:
        command.append("--full")
    return command


def one_run(binary, args):
    before = resource.getrusage(resource.RUSAGE_CHILDREN)
    done = subprocess.run(command_of(binary, args), capture_output=True, text=True, check=True)
    after = resource.getrusage(resource.RUSAGE_CHILDREN)
    cpu = (after.ru_utime - before.ru_utime) + (after.ru_stime - before.ru_stime)
    nodes = int(re.search(r"Nodes searched: (\d+)", done.stdout).group(1))
    if args.bench:
        seconds = nodes / int(re.search(r"Nodes/second: (\d+)", done.stdout).group(1))
    else:
        seconds = float(re.search(r"([\d.]+) s,", done.stderr).group(1))
    return nodes, seconds, cpu


def millions(nodes, seconds):
    """nodes/seconds in millions, three significant digits or more (6.26, 361, 8160)."""
    if seconds <= 0:
        return "too fast to time (use a larger depth)"
    m = nodes / seconds / 1e6
    return f"{m:.0f} M nodes/s" if m >= 100 else f"{m:.3g} M nodes/s"


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binaries", nargs="*", default=["target/release/yote"])
    parser.add_argument("--depth", type=int, help="default 6 (perft), bench's own (bench)")
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--variant", default="standard")
    parser.add_argument("--fen", help="position text (default: the variant's start)")
    parser.add_argument("--full", action="store_true",
                        help="play every move, the last ply included (no bulk counting)")
    parser.add_argument("--bench", action="store_true",
                        help="time `yote bench` (the search) instead of perft")
    args = parser.parse_args()
    if args.depth is None and not args.bench:
        args.depth = 6
    times = {b: [] for b in args.binaries}
    cpu_times = {b: [] for b in args.binaries}
    nodes = {}
    for _ in range(args.runs):
        for b in args.binaries:
            n, t, cpu = one_run(b, args)
            nodes[b] = n
            times[b].append(t)
            cpu_times[b].append(cpu)
    mode = "bench" if args.bench else "full perft" if args.full else "perft"
    depth = "" if args.depth is None else f" {args.depth}"
    for b in args.binaries:
        wall, cpu = statistics.median(times[b]), statistics.median(cpu_times[b])
        print(f"{b}: {mode}{depth} = {nodes[b]} nodes, medians over {args.runs} runs: "
              f"wall {wall:.3f} s = {millions(nodes[b], wall)}, "
              f"CPU {cpu:.3f} s = {millions(nodes[b], cpu)}")
    if len(set(nodes.values())) > 1:
        sys.exit("node counts differ between binaries")


if __name__ == "__main__":
    main()

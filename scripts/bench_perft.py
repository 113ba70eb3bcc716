#!/usr/bin/env python3
"""Median perft speed of one or more yote binaries, measured in the same run.

    scripts/bench_perft.py                       # target/release/yote, perft 6
    scripts/bench_perft.py --runs 15 old/yote target/release/yote

Runs are interleaved (A B A B ...) so that both builds see the same machine
load; the median of each is printed. Uses `yote perft N --total`, which
prints `Nodes searched: N` on stdout and the time on stderr.
"""
import argparse
import re
import statistics
import subprocess
import sys


def one_run(binary, depth, variant):
    done = subprocess.run(
        [binary, "perft", str(depth), "--total", "--variant", variant],
        capture_output=True, text=True, check=True)
    nodes = int(re.search(r"Nodes searched: (\d+)", done.stdout).group(1))
    seconds = float(re.search(r"([\d.]+) s,", done.stderr).group(1))
    return nodes, seconds


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("binaries", nargs="*", default=["target/release/yote"])
    parser.add_argument("--depth", type=int, default=6)
    parser.add_argument("--runs", type=int, default=9)
    parser.add_argument("--variant", default="standard")
    args = parser.parse_args()
    times = {b: [] for b in args.binaries}
    nodes = {}
    for _ in range(args.runs):
        for b in args.binaries:
            n, t = one_run(b, args.depth, args.variant)
            nodes[b] = n
            times[b].append(t)
    for b in args.binaries:
        median = statistics.median(times[b])
        print(f"{b}: perft {args.depth} = {nodes[b]} nodes, median {median:.3f} s "
              f"over {args.runs} runs, {nodes[b] / median / 1e9:.2f} billion nodes/s")
    if len(set(nodes.values())) > 1:
        sys.exit("node counts differ between binaries")


if __name__ == "__main__":
    main()

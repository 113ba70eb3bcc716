#!/usr/bin/env bash
# Issue 19's start-up figures: ENGINES copies of ENGINE started at once, each
# given the tables of DIR (TablebasePieces 8); prints how long after the
# `setoption` each answered `isready`, then each one's resident and shared
# memory from /proc/PID/smaps_rollup before any probe and after a search
# that probes (depth 12 from a 10-piece position).
#
#   scripts/tables/tb_engines.sh target/release/yote tb8 [ENGINES]
set -euo pipefail
bin=${1:?usage: scripts/tables/tb_engines.sh ENGINE DIR [ENGINES]}
dir=${2:?usage: scripts/tables/tb_engines.sh ENGINE DIR [ENGINES]}
n=${3:-4}
tmp=$(mktemp -d)
pids=()
cleanup() {
    for pid in "${pids[@]}"; do kill "$pid" 2>/dev/null || true; done
    rm -rf "$tmp"
}
trap cleanup EXIT
for i in $(seq "$n"); do
    mkfifo "$tmp/in-$i"
    "$bin" <"$tmp/in-$i" >"$tmp/out-$i" 2>/dev/null &
    pids+=($!)
    exec {fd}>"$tmp/in-$i"
    fds[i]=$fd
done
memory() {
    grep -E '^(Rss|Pss|Shared_Clean|Private_Dirty):' "/proc/$1/smaps_rollup" |
        awk '{printf "%s %s kB  ", $1, $2}'
}
for i in $(seq "$n"); do
    start=$(date +%s%N)
    printf 'setoption name TablebasePieces value 8\nsetoption name TablebasePath value %s\nisready\n' \
        "$dir" >&"${fds[i]}"
    until grep -q readyok "$tmp/out-$i"; do sleep 0.002; done
    echo "engine $i: isready answered $((($(date +%s%N) - start) / 1000000)) ms after setoption"
done
for i in $(seq "$n"); do echo "engine $i before any probe: $(memory "${pids[i - 1]}")"; done
for i in $(seq "$n"); do
    printf 'position fen 4B1/3B1W/W3B1/BB4/6 w 2 0 0 20\ngo depth 12\n' >&"${fds[i]}"
done
for i in $(seq "$n"); do until grep -q bestmove "$tmp/out-$i"; do sleep 0.05; done; done
for i in $(seq "$n"); do echo "engine $i after a search: $(memory "${pids[i - 1]}")"; done
for i in $(seq "$n"); do echo quit >&"${fds[i]}"; done
wait "${pids[@]}"
pids=()

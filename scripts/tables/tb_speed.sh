#!/usr/bin/env bash
# Issue 19's search-speed figure: time to depth and nodes per second on
# bench-like positions of 9 to 12 pieces, without and with tables, in the
# same run. As `bench` does, each configuration is one engine process that
# searches every position in turn after `ucinewgame` (a fresh hash table),
# so the tables are opened once, as in a game or a match; the configurations
# alternate position by position, REPEAT rounds. Reported per configuration:
# the sum over positions of the median time to depth, and nodes per second
# as `bench` counts them (all nodes over all the time), for the first round
# (the tables just opened: every block read is decoded for the first time)
# and for the later rounds (blocks decoded by an earlier search are in the
# block cache, as they are for most probes of a game after its first moves).
#
#   scripts/tables/tb_speed.sh ENGINE TABLES [DEPTH]              # one engine
#   OTHER=old-engine OTHER_TABLES=old-dir scripts/tables/tb_speed.sh ENGINE TABLES
#
# TABLES are probed up to 8 pieces (TB_PIECES). With OTHER set, a third and
# fourth configuration run another engine (e.g. the version-1 build) without
# and with its tables. EXTRA="setoption name X value Y" is sent to the
# configurations with tables (e.g. a TablebaseProbeDepth to compare).
set -euo pipefail
engine=${1:?usage: scripts/tables/tb_speed.sh ENGINE TABLES [DEPTH]}
tables=${2:?usage: scripts/tables/tb_speed.sh ENGINE TABLES [DEPTH]}
depth=${3:-9}
REPEAT=${REPEAT:-3}
TB_PIECES=${TB_PIECES:-8}
# Random legal positions of 9 to 12 pieces, standard rules (seed 19).
positions=(
    "4B1/3B1W/W3B1/BB4/6 w 2 0 0 20"
    "B2B2/2WBW1/6/B5/B1W2B w 1 1 0 20"
    "B1BB2/6/WBW2W/B4W/B5 w 0 0 0 20"
    "5W/1B1W2/1B2WB/W1W3/2W3 w 1 2 0 20"
    "3BW1/6/2BB1B/2W1B1/5W w 1 0 0 20"
    "3W2/6/3WW1/6/2WBB1 w 1 2 0 20"
    "W1WB2/1W4/B1B3/6/B3WW w 2 0 0 20"
    "5B/3W2/W1W3/4BW/B2B1B w 1 1 0 20"
    "2BW2/6/1WB1B1/3W2/WB4 w 0 1 0 20"
    "WB2W1/3B2/B5/1BW3/B4B w 1 2 0 20"
    "WWB3/B1W1W1/4W1/2B1B1/W5 w 0 1 0 20"
)
configs=("none|$engine|" "tables|$engine|$tables")
if [[ -n "${OTHER:-}" ]]; then
    configs+=("other-none|$OTHER|" "other-tables|$OTHER|${OTHER_TABLES:?OTHER_TABLES with OTHER}")
fi
tmp=$(mktemp -d)
declare -A to_engine from_engine
cleanup() {
    for name in "${!to_engine[@]}"; do echo quit >&"${to_engine[$name]}" || true; done
    wait || true
    rm -rf "$tmp"
}
trap cleanup EXIT

# One engine process per configuration, kept for the whole run.
for config in "${configs[@]}"; do
    IFS='|' read -r name bin dir <<<"$config"
    mkfifo "$tmp/$name.in" "$tmp/$name.out"
    "$bin" <"$tmp/$name.in" >"$tmp/$name.out" 2>/dev/null &
    exec {in}>"$tmp/$name.in" {out}<"$tmp/$name.out"
    to_engine[$name]=$in
    from_engine[$name]=$out
    echo uci >&"$in"
    if [[ -n "$dir" ]]; then
        printf '%s\n' "setoption name TablebasePieces value $TB_PIECES" \
            "setoption name TablebasePath value $dir" ${EXTRA:+"$EXTRA"} >&"$in"
    fi
    echo isready >&"$in"
    while read -r line <&"$out"; do [[ $line == readyok ]] && break; done
done

# Sends one search to a configuration's engine; its last `info depth` line.
search() {
    local name=$1 fen=$2 line last=
    printf '%s\n' ucinewgame "position fen $fen" "go depth $depth" >&"${to_engine[$name]}"
    while read -r line <&"${from_engine[$name]}"; do
        [[ $line == "info depth $depth "* ]] && last=$line
        [[ $line == bestmove* ]] && break
    done
    echo "$last"
}

for ((r = 0; r < REPEAT; r++)); do
    for fen in "${positions[@]}"; do
        for config in "${configs[@]}"; do
            name=${config%%|*}
            line=$(search "$name" "$fen")
            time=$(sed -n 's/.* time \([0-9]*\).*/\1/p' <<<"$line")
            nodes=$(sed -n 's/.* nodes \([0-9]*\).*/\1/p' <<<"$line")
            echo "$fen|$time|$nodes|$r" >>"$tmp/$name"
        done
    done
done
median() { sort -n | awk '{a[NR]=$1} END {print (NR % 2) ? a[(NR+1)/2] : int((a[NR/2]+a[NR/2+1])/2)}'; }
# Nodes per second of configuration $1 over the rounds that awk pattern $2 selects.
nps() { awk -F'|' "$2"' {t+=$2; n+=$3} END {printf "%d", n * 1000 / (t ? t : 1)}' "$tmp/$1"; }
printf '%-14s %14s %16s %16s %16s\n' config "time ms (sum)" "sum of medians" "nodes/s round 1" "nodes/s later"
for config in "${configs[@]}"; do
    name=${config%%|*}
    total=$(awk -F'|' '{t+=$2} END {print t}' "$tmp/$name")
    per_position=0
    for fen in "${positions[@]}"; do
        m=$(grep -F "$fen|" "$tmp/$name" | cut -d'|' -f2 | median)
        per_position=$((per_position + m))
    done
    printf '%-14s %14s %16s %16s %16s\n' "$name" "$total" "$per_position" "$(nps "$name" '$4 == 0')" "$(nps "$name" '$4 > 0')"
done

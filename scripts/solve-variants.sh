#!/usr/bin/env bash
# Solves small Yoté variants outright with `yote solve` and prints one
# Markdown table row per variant (the table in docs/tablebases.md).
# Usage: scripts/solve-variants.sh [path/to/yote] > rows.md
# Each solve runs in its own process so the peak memory is its own.
set -euo pipefail
yote=${1:-target/release/yote}
read -r -a families <<<"${FAMILIES:-standard hand-removal classic boxed all-options}"
boards=("rows=3,cols=3" "rows=3,cols=4" "rows=4,cols=3" "rows=4,cols=4")
[ -n "${NO_HEADER:-}" ] || echo "| rules | board | pieces each | positions | value for the first player | perfect game (plies) | best first moves | time (s) | peak memory (MiB) |"
[ -n "${NO_HEADER:-}" ] || echo "|---|---|---|---:|---|---:|---|---:|---:|"
run() {
    local family=$1 board=$2 pieces=$3
    local out
    out=$("$yote" solve --variant "$family,$board,pieces=$pieces" 2>/dev/null)
    local value positions seconds memory best
    value=$(sed -n 's/^value //p' <<<"$out")
    positions=$(sed -n 's/^solved \([0-9]*\) positions in \([0-9.]*\) s.*/\1/p' <<<"$out")
    seconds=$(sed -n 's/^solved [0-9]* positions in \([0-9.]*\) s.*/\1/p' <<<"$out")
    memory=$(sed -n 's/.*peak memory \([0-9]*\) MiB.*/\1/p' <<<"$out")
    best=$({ grep "^move .* $value\$" <<<"$out" || true; } | awk '{print $2}' | head -4 | paste -sd' ' -)
    [ -n "$best" ] || best="(game over at the start)"
    local length="-"
    case $value in win*|loss*) length=${value#* } ;; esac
    echo "| $family | ${board//rows=/} | $pieces | $positions | ${value%% *} | $length | $best | $seconds | $memory |" \
        | sed 's/,cols=/x/'
}
for family in "${families[@]}"; do
    for board in "${boards[@]}"; do
        for pieces in 2 3 4; do
            run "$family" "$board" "$pieces"
        done
    done
done
for family in "${families[@]}"; do
    for pieces in 2 3; do
        run "$family" "rows=5,cols=5" "$pieces"
        run "$family" "rows=5,cols=6" "$pieces"
    done
done
# With ThreeDraw, 3 pieces a side is drawn before the first move: 4 on 5x5.
run classic "rows=5,cols=5" 4
run all-options "rows=5,cols=5" 4

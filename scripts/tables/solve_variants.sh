#!/usr/bin/env bash
# Solves small Yoté variants outright with `yote solve` and prints the two
# Markdown tables of docs/tablebases.md: one row per variant, then the
# perfect game of every variant that someone wins.
# Usage: scripts/tables/solve_variants.sh [path/to/yote] > tables.md
#   FAMILIES="standard classic"   rule families (default: the five)
#   BOARDS="3x3:2-8 4x4:2-6"      boards and pieces a side (default: below)
#   SOLVE_LOGS=DIR                 read DIR/<family>-<rows>x<cols>-p<n>.log
#                                  (a saved `yote solve` output) when present
#                                  instead of solving again
#   SAVED_ONLY=1                   with SOLVE_LOGS: skip the variants that
#                                  have no saved output (no solving at all)
# Each solve runs in its own process (one thread) so the peak memory and the
# time are its own. The largest (5x6, 4 a side) take 15-30 CPU minutes each.
set -euo pipefail
yote=${1:-target/release/yote}
read -r -a families <<<"${FAMILIES:-standard hand-removal classic boxed all-options}"
read -r -a boards <<<"${BOARDS:-3x3:2-8 3x4:2-6 4x3:2-6 4x4:2-6 4x5:2-5 5x4:2-5 5x5:2-4 5x6:2-4}"
games=$(mktemp)
trap 'rm -f "$games"' EXIT

solve_output() {
    local family=$1 rows=$2 cols=$3 pieces=$4
    local saved="${SOLVE_LOGS:-/nonexistent}/$family-${rows}x$cols-p$pieces.log"
    if [ -s "$saved" ] && grep -q '^value ' "$saved"; then
        cat "$saved"
    else
        "$yote" solve --threads 1 --variant "$family,rows=$rows,cols=$cols,pieces=$pieces" 2>/dev/null
    fi
}

# Every first move that keeps the value, or "all N" when every one does.
best_moves() {
    local out=$1
    local best total value
    best=$(sed -n 's/^best //p' <<<"$out")
    value=$(sed -n 's/^value //p' <<<"$out")
    # Outputs of before the `best` line: the moves whose value is the root's.
    grep -q '^best' <<<"$out" \
        || best=$({ grep "^move .* $value\$" <<<"$out" || true; } | awk '{print $2}' | paste -sd' ' -)
    total=$(grep -c '^move ' <<<"$out" || true)
    if [ -z "$best" ] || [ "$total" = 0 ]; then
        echo "(game over at the start)"
    elif [ "$(wc -w <<<"$best")" = "$total" ]; then
        echo "all $total"
    else
        echo "$best"
    fi
}

row() {
    local family=$1 rows=$2 cols=$3 pieces=$4
    local out value positions seconds verify cpu memory length line
    if [ -n "${SAVED_ONLY:-}" ] && ! grep -qs '^value ' "${SOLVE_LOGS:-}/$family-${rows}x$cols-p$pieces.log"; then
        return
    fi
    out=$(solve_output "$family" "$rows" "$cols" "$pieces")
    value=$(sed -n 's/^value //p' <<<"$out")
    positions=$(sed -n 's/^solved \([0-9]*\) positions in .*/\1/p' <<<"$out")
    seconds=$(sed -n 's/^solved [0-9]* positions in \([0-9.]*\) s.*/\1/p' <<<"$out")
    verify=$(sed -n 's/.*verified [0-9]* in \([0-9.]*\) s.*/\1/p' <<<"$out")
    memory=$(sed -n 's/.*peak memory \([0-9]*\) MiB.*/\1/p' <<<"$out")
    cpu=$(sed -n 's/.*, \([0-9.]*\) CPU s in all.*/\1/p' <<<"$out")
    # Older outputs saved with `/usr/bin/time -v` around them.
    [ -n "$cpu" ] || cpu=$(awk -F': ' '/User time|System time/ {s += $2} END {if (s) printf "%.1f", s}' <<<"$out")
    length="-"
    case $value in win*|loss*) length=${value#* } ;; esac
    echo "| $family | ${rows}x$cols | $pieces | $positions | ${value%% *} | $length | $(best_moves "$out") | $seconds + $verify | ${cpu:-?} | $memory |"
    line=$(sed -n 's/^line //p' <<<"$out")
    [ -z "$line" ] || echo "| $family | ${rows}x$cols | $pieces | $value | $line |" >>"$games"
}

echo "| rules | board | pieces each | positions | value for the first player | perfect game (plies) | every best first move | wall time (s): solve + verify | CPU (s) | peak memory (MiB) |"
echo "|---|---|---|---:|---|---:|---|---:|---:|---:|"
for family in "${families[@]}"; do
    for board in "${boards[@]}"; do
        size=${board%%:*} range=${board#*:}
        for pieces in $(seq "${range%-*}" "${range#*-}"); do
            row "$family" "${size%x*}" "${size#*x}" "$pieces"
        done
    done
done
echo
echo "| rules | board | pieces each | value | perfect game (both sides perfect) |"
echo "|---|---|---|---|---|"
cat "$games"

#!/usr/bin/env bash
# The search against the built-in baseline players (Style random and greedy),
# in each named variant, through the match runner: the strength targets of
# docs/measurements.md ("Summary"). Each opening is played twice, colours swapped.
#
#   scripts/match/baselines.sh                      # 100 games each, 100 ms per move
#   GAMES=20 VARIANTS="standard 6x6" scripts/match/baselines.sh
#
# Prints one result line per variant and opponent; records go to
# ${OUT:-baselines}/<variant>-<opponent>.pgn.
set -euo pipefail
cd "$(dirname "$0")/../.."
GAMES=${GAMES:-100}
MOVETIME=${MOVETIME:-100}
VARIANTS=${VARIANTS:-"standard hand-removal 6x6 classic 5x5 boxed all-options"}
OUT=${OUT:-baselines}
cargo build --release --quiet
E=target/release/yote
mkdir -p "$OUT"
for variant in $VARIANTS; do
    for opponent in random greedy; do
        pgn="$OUT/$variant-$opponent.pgn"
        rm -f "$pgn"
        result=$("$E" match --quiet --variant "$variant" --games "$GAMES" --concurrency 2 \
            --movetime "$MOVETIME" --seed 1 \
            --engine name=search,cmd=$E \
            --engine "name=$opponent,cmd=$E,option.Style=$opponent" \
            --pgn "$pgn" 2>&1 | grep -E "^search vs" | head -1)
        echo "$variant: $result"
    done
done

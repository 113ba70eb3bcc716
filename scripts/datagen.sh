#!/bin/sh
# Training games for the evaluation fitter (`yote tune`): self-play of one
# engine through the match runner at a fixed node count, every preset, each
# with its own seed so that a rerun gives the same games.
#
#   scripts/datagen.sh [ENGINE] [OUT_DIR]      # defaults: target/release/yote data
#   GAMES=300 NODES=2000 PLIES=6 scripts/datagen.sh
#
# Writes OUT_DIR/<preset>.pgn (appends: delete the directory to start over).
# Cost on the shared 2-core machine: about 0.4 s of one core per game at
# 2000 nodes, i.e. ~15 min for the default 7 x 300 games. Progress on stderr.
set -eu
ENGINE=${1:-target/release/yote}
OUT=${2:-data}
GAMES=${GAMES:-300}
NODES=${NODES:-2000}
PLIES=${PLIES:-6}
PRESETS=${PRESETS:-"standard hand-removal 6x6 classic 5x5 boxed all-options"}
mkdir -p "$OUT"
seed=100
for preset in $PRESETS; do
    seed=$((seed + 1))
    echo "datagen: $preset ($GAMES games, $NODES nodes, seed $seed)" >&2
    "$ENGINE" match --engine "name=a,cmd=$ENGINE" --engine "name=b,cmd=$ENGINE" \
        --variant "$preset" --nodes "$NODES" --games "$GAMES" --concurrency 1 \
        --opening-plies "$PLIES" --seed "$seed" --quiet --pgn "$OUT/$preset.pgn" >&2
done

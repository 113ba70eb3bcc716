#!/bin/sh
# Training games for the evaluation fitter (`yote tune`): self-play of one
# engine through the match runner at a fixed node count, every preset, each
# with its own seed so that a rerun gives the same games.
#
#   scripts/datagen.sh [ENGINE] [OUT_DIR]      # defaults: target/release/yote data
#   GAMES=300 NODES=2000 PLIES=6 scripts/datagen.sh
#
# Writes OUT_DIR/<preset>.pgn (appends: delete the directory to start over).
# Cost on the shared 2-core machine: about 0.3 s of one core per game at
# 2000 nodes (7 x 400 games took ~11 min), a few MB of memory; the match
# runner's progress line is on stderr. Interrupted: delete the .pgn of the
# preset that was running and rerun with PRESETS set to the ones left (each
# preset's games depend only on its seed).
set -eu
ENGINE=${1:-target/release/yote}
OUT=${2:-data}
GAMES=${GAMES:-300}
NODES=${NODES:-2000}
PLIES=${PLIES:-6}
PRESETS=${PRESETS:-"standard hand-removal 6x6 classic 5x5 boxed all-options"}
mkdir -p "$OUT"
for preset in $PRESETS; do
    # One fixed seed per preset, so that a preset's games do not depend on
    # which others are generated with it.
    case $preset in
        standard) seed=101 ;; hand-removal) seed=102 ;; 6x6) seed=103 ;;
        classic) seed=104 ;; 5x5) seed=105 ;; boxed) seed=106 ;;
        all-options) seed=107 ;; *) seed=100 ;;
    esac
    echo "datagen: $preset ($GAMES games, $NODES nodes, seed $seed)" >&2
    "$ENGINE" match --engine "name=a,cmd=$ENGINE" --engine "name=b,cmd=$ENGINE" \
        --variant "$preset" --nodes "$NODES" --games "$GAMES" --concurrency 1 \
        --opening-plies "$PLIES" --seed "$seed" --pgn "$OUT/$preset.pgn" >&2
done

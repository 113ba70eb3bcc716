#!/bin/sh
# Training games for the evaluation fitter (`yote tune`) and the network
# (`scripts/training/train_nnue.py`): self-play of one engine through the match
# runner at a fixed node count, every preset, each with its own seed so
# that a rerun gives the same games.
#
#   scripts/training/datagen.sh [ENGINE] [OUT_DIR]      # defaults: target/release/yote data
#   GAMES=300 NODES=2000 PLIES=6 scripts/training/datagen.sh
#   NNUE=1 GAMES=300 NODES=1000 scripts/training/datagen.sh   # also the network's data
#   SEED_BASE=200 scripts/training/datagen.sh ENGINE data2     # another, different set
#
# Writes OUT_DIR/<preset>.pgn. Resumable: a preset whose .pgn exists is
# continued with the match runner's --resume (the same games as an
# uninterrupted run); a finished run resumed plays nothing.
# With NNUE=1, each preset's games are then turned into labelled quiet
# positions, OUT_DIR/<preset>.nnue (`yote tune --dump`: game result, a
# depth-DEPTH search score, the network's inputs; positions inside the
# tables of TABLES, if set, labelled with their exact value). A finished
# .nnue is skipped on a rerun; an interrupted one is redone.
# Cost on the shared 2-core machine: about 0.3 s of one core per game at
# 2000 nodes (7 x 400 games took ~11 min), a few MB of memory; the match
# runner's progress line is on stderr. docs/search.md gives the cost per
# million network positions.
set -eu
ENGINE=${1:-target/release/yote}
OUT=${2:-data}
GAMES=${GAMES:-300}
NODES=${NODES:-2000}
PLIES=${PLIES:-6}
NNUE=${NNUE:-0}
DEPTH=${DEPTH:-2}
PER_GAME=${PER_GAME:-100}
TABLES=${TABLES:-}
SEED_BASE=${SEED_BASE:-100}
PRESETS=${PRESETS:-"standard hand-removal 6x6 classic 5x5 boxed all-options"}
mkdir -p "$OUT"
for preset in $PRESETS; do
    # One fixed seed per preset, so that a preset's games do not depend on
    # which others are generated with it.
    case $preset in
        standard) k=1 ;; hand-removal) k=2 ;; 6x6) k=3 ;; classic) k=4 ;;
        5x5) k=5 ;; boxed) k=6 ;; all-options) k=7 ;; *) k=0 ;;
    esac
    seed=$((SEED_BASE + k))
    resume=
    if [ -s "$OUT/$preset.pgn" ]; then resume=--resume; fi
    echo "datagen: $preset ($GAMES games, $NODES nodes, seed $seed) $resume" >&2
    "$ENGINE" match --engine "name=a,cmd=$ENGINE" --engine "name=b,cmd=$ENGINE" \
        --variant "$preset" --nodes "$NODES" --games "$GAMES" --concurrency 1 \
        --opening-plies "$PLIES" --seed "$seed" --pgn "$OUT/$preset.pgn" $resume >&2
    if [ "$NNUE" = 1 ] && [ ! -s "$OUT/$preset.nnue" ]; then
        echo "datagen: $preset positions for the network (depth $DEPTH)" >&2
        tables=
        if [ -n "$TABLES" ]; then tables="--tablebases $TABLES"; fi
        # Games at the ply limit are kept: their positions are real, and
        # the search score carries half of each label.
        "$ENGINE" tune --family all --dump "$OUT/$preset.nnue" --keep-max-plies \
            --depth "$DEPTH" --per-game "$PER_GAME" --skip "$PLIES" --seed "$seed" \
            $tables "$OUT/$preset.pgn" >&2
    fi
done

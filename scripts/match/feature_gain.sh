#!/usr/bin/env bash
# What a search feature is worth: the default engine against a copy with the
# feature switched (option SearchFeatures), through the match runner, at a
# fixed node count so that only the quality of the tree counts.
#
#   scripts/match/feature_gain.sh lmr               # 200 games, 20000 nodes/move
#   GAMES=400 NODES=50000 VARIANT=6x6 scripts/match/feature_gain.sh tt
#
# A feature that is on by default is switched off in the copy, one that is
# off (killers) is switched on; the line printed is the default engine's
# result, so a positive Elo means the default setting is the better one.
set -euo pipefail
cd "$(dirname "$0")/../.."
feature=${1:?usage: scripts/match/feature_gain.sh FEATURE}
GAMES=${GAMES:-200}
NODES=${NODES:-20000}
VARIANT=${VARIANT:-standard}
cargo build --release --quiet
E=target/release/yote
default_off=" killers "
if [[ $default_off == *" $feature "* ]]; then change="+$feature"; else change="-$feature"; fi
"$E" match --quiet --variant "$VARIANT" --games "$GAMES" --concurrency 2 --nodes "$NODES" \
    --seed 1 --engine name=default,cmd=$E --engine "name=$change,cmd=$E,option.SearchFeatures=$change" \
    2>&1 | grep -E "^default vs|pentanomial|trinomial"

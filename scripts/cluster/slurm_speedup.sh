#!/bin/bash
# The speed-up per node, measured on the local cluster: one fixed match
# (the cluster tests' flags, GAMES games) as an array of 1 task, then of
# TASKS tasks, each task one CPU; prints the wall time of each (submit to
# the last task's end) and their ratio. docs/cluster.md quotes it.
#   scripts/cluster/slurm_local.sh up
#   SLURM_CONF=$(scripts/cluster/slurm_local.sh conf) scripts/cluster/slurm_speedup.sh
set -euo pipefail
ROOT=$(cd "$(dirname "$0")/../.." && pwd)
export YOTE=${YOTE:-$ROOT/target/release/yote}
export ENGINE_A="name=new,cmd=$YOTE"
export ENGINE_B="name=base,cmd=$YOTE,option.SearchFeatures=-lmr"
export LIMIT=${LIMIT:---nodes 1000}
export GAMES=${GAMES:-80}
export SEED=${SEED:-7}
TASKS=${TASKS:-$(nproc)}
WORK=$(mktemp -d)
trap 'rm -rf "$WORK"' EXIT

run() {
  local tasks=$1 start end
  export RESULTS=$WORK/$tasks
  mkdir -p "$RESULTS"
  start=$(date +%s.%N)
  sbatch --wait --quiet --chdir="$RESULTS" --array=1-"$tasks" --cpus-per-task=1 \
    "$ROOT/scripts/cluster/slurm_match.sh"
  end=$(date +%s.%N)
  awk -v a="$end" -v b="$start" 'BEGIN { print a - b }'
}

one=$(run 1)
many=$(run "$TASKS")
printf '%s games, %s: 1 task %.1f s, %s tasks %.1f s, speed-up %.2f\n' \
  "$GAMES" "$LIMIT" "$one" "$TASKS" "$many" "$(awk -v a="$one" -v b="$many" 'BEGIN { print a / b }')"

#!/bin/bash
# The network's training positions (`yote datagen`) spread over a Slurm
# cluster as a job array: task K plays the games whose number is K-1
# modulo N (`--shard K/N`, N = the array's size) into OUT/shard-K.nnue.
# Every game depends only on the seed and its number, so the shards
# together hold exactly the positions of a one-machine run, whatever the
# number of tasks or the threads each has. A requeued or rerun task
# resumes its own file (its .progress beside it).
#   GAMES=150000 OUT=/shared/data sbatch --array=1-16 scripts/cluster/slurm_datagen.sh
# Then train on them all: scripts/training/train_nnue.py /shared/data/shard-*.nnue
# Tested by tests/cluster.rs (datagen_on_slurm_equals_one_machine); docs/cluster.md.
#SBATCH --job-name=yote-datagen
#SBATCH --array=1-4
#SBATCH --cpus-per-task=2
#SBATCH --requeue
#SBATCH --output=yote-datagen-%A_%a.log
set -eu
YOTE=${YOTE:-$HOME/yote/target/release/yote}
GAMES=${GAMES:-150000}
NODES=${NODES:-1000}
SEED=${SEED:-1}
OUT=${OUT:-data}
K=$SLURM_ARRAY_TASK_ID
N=$SLURM_ARRAY_TASK_COUNT
mkdir -p "$OUT"
exec "$YOTE" datagen --out "$OUT/shard-$K.nnue" --games "$GAMES" --nodes "$NODES" \
  --seed "$SEED" --shard "$K/$N" --threads "${SLURM_CPUS_PER_TASK:-1}"

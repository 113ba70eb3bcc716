#!/bin/bash
# `yote tb verify` spread over a Slurm cluster as a job array: task K
# checks share K of N of the classes (`--classes K/N`; PIECES, if set, only
# the classes of exactly that many pieces), every class recomputed from its
# children through the move generator. Unlike generation the shares need
# no order: run them whenever slots are free. Each task keeps a journal
# (DIR/verify-K-of-N.journal) so a requeued task skips the classes it has
# already checked. Every task COMPLETED = the classes checked.
#   DIR=/shared/tables PIECES=9 sbatch --array=1-8 scripts/cluster/slurm_verify.sh
# Tested by tests/cluster.rs (tables_on_slurm_equal_a_one_machine_run); docs/cluster.md.
#SBATCH --job-name=yote-verify
#SBATCH --array=1-4
#SBATCH --cpus-per-task=2
#SBATCH --requeue
#SBATCH --output=yote-verify-%A_%a.log
set -eu
YOTE=${YOTE:-$HOME/yote/target/release/yote}
DIR=${DIR:-tables}
JOURNALS=${JOURNALS:-$DIR}
K=$SLURM_ARRAY_TASK_ID
N=$SLURM_ARRAY_TASK_COUNT
PIECES_FLAG=()
if [ -n "${PIECES:-}" ]; then PIECES_FLAG=(--pieces "$PIECES"); fi
exec "$YOTE" tb verify --dir "$DIR" "${PIECES_FLAG[@]}" --classes "$K/$N" \
  --journal "$JOURNALS/verify-$K-of-$N.journal" --threads "${SLURM_CPUS_PER_TASK:-1}"

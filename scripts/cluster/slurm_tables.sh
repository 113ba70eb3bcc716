#!/bin/bash
# `yote tb generate` spread over a Slurm cluster as a job array: task K
# solves share K of N of each stage's classes (`--classes K/N`, N = the
# array's size) and waits in the shared DIR for the other shares' files
# before the next stage, so ALL TASKS MUST RUN AT ONCE (N at most the free
# slots; a pending share would stall the others). Each file is written
# under a temporary name and renamed, so a task that dies leaves no half
# file; a requeued task keeps the classes already on disk and solves the
# rest.
#   PIECES=8 DIR=/shared/tables sbatch --array=1-4 scripts/cluster/slurm_tables.sh
# Then, anywhere: yote tb verify --dir /shared/tables (or as an array:
# scripts/cluster/slurm_verify.sh)
# Tested by tests/cluster.rs (tables_on_slurm_equal_a_one_machine_run).
#SBATCH --job-name=yote-tables
#SBATCH --array=1-4
#SBATCH --cpus-per-task=2
#SBATCH --requeue
#SBATCH --output=yote-tables-%A_%a.log
set -eu
YOTE=${YOTE:-$HOME/yote/target/release/yote}
PIECES=${PIECES:-6}
DIR=${DIR:-tables}
VARIANT=${VARIANT:-standard}
K=$SLURM_ARRAY_TASK_ID
N=$SLURM_ARRAY_TASK_COUNT
# --yes: a batch job has nobody to answer the size estimate.
exec "$YOTE" tb generate --pieces "$PIECES" --dir "$DIR" --variant "$VARIANT" \
  --classes "$K/$N" --threads "${SLURM_CPUS_PER_TASK:-1}" --yes

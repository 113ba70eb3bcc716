#!/bin/bash
# One `yote match` spread over a Slurm cluster as a job array: task K plays
# share K of N (`--shard K/N`, N = the array's size); every task computes the
# same schedule from the same flags and seed, so the shares never overlap.
# A requeued task `--resume`s its own records file.
#   sbatch scripts/cluster/slurm_match.sh            # 4 shares, as below
#   sbatch --array=1-16 scripts/cluster/slurm_match.sh
# When all tasks are done, merge the shares:
#   yote match --rescore results/shard-*.pgn [--sprt elo0=0,elo1=5]
# Tested by tests/tournament.rs (cluster_examples_merge_to_one_run, the
# scheduler faked) and tests/cluster.rs (on a real one-node Slurm cluster:
# sbatch --array=1-4, a requeued task, a cancelled one); docs/cluster.md.
#SBATCH --job-name=yote-match
#SBATCH --array=1-4
#SBATCH --cpus-per-task=2
#SBATCH --requeue
#SBATCH --output=yote-match-%A_%a.log
set -eu
YOTE=${YOTE:-$HOME/yote/target/release/yote}
ENGINE_A=${ENGINE_A:-name=new,cmd=$YOTE}
ENGINE_B=${ENGINE_B:-name=base,cmd=$YOTE,option.SearchFeatures=-lmr}
LIMIT=${LIMIT:---tc 10+0.1}
GAMES=${GAMES:-20000}
SEED=${SEED:-42}
RESULTS=${RESULTS:-results}
K=$SLURM_ARRAY_TASK_ID
N=$SLURM_ARRAY_TASK_COUNT
mkdir -p "$RESULTS"
# LIMIT is split into words on purpose (`--tc 10+0.1`).
# shellcheck disable=SC2086
exec "$YOTE" match --engine "$ENGINE_A" --engine "$ENGINE_B" \
  $LIMIT --games "$GAMES" --seed "$SEED" --concurrency "${SLURM_CPUS_PER_TASK:-2}" \
  --shard "$K/$N" --pgn "$RESULTS/shard-$K.pgn" --resume --quiet

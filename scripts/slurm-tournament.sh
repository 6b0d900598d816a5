#!/usr/bin/env bash
# Runs one toybattle tournament as a Slurm job array (one shard per array task) followed by a
# merge job that starts only when every shard has succeeded.
#
# Usage (on the login node, from the repository root, after `cargo build --release`):
#   SHARDS=16 OUT=/shared/runs/ismcts-vs-pimc \
#     scripts/slurm-tournament.sh --gauntlet ismcts-fast --vs pimc,flat-mc --games 200 --seed 7
#
# Every argument is passed to `toybattle tournament` unchanged on every shard; the script adds
# --shard K/N and --out $OUT/shard-K. OUT must be on a file system all nodes share. A shard that
# is killed (preemption, time limit) is simply resubmitted: it resumes from its games.jsonl.
# Optional: BIN (default target/release/toybattle), PARTITION, TIME (default 04:00:00),
# CPUS (cores per shard, default 4).
set -euo pipefail

SHARDS=${SHARDS:?set SHARDS to the number of shards}
OUT=${OUT:?set OUT to a run folder on a shared file system}
BIN=${BIN:-target/release/toybattle}
TIME=${TIME:-04:00:00}
CPUS=${CPUS:-4}
PARTITION_ARG=()
if [[ -n "${PARTITION:-}" ]]; then PARTITION_ARG=(--partition "$PARTITION"); fi

mkdir -p "$OUT/logs"
ARGS=$(printf '%q ' "$@")

array_id=$(sbatch --parsable "${PARTITION_ARG[@]}" \
  --job-name=toybattle-shard --array="1-${SHARDS}" --cpus-per-task="$CPUS" --time="$TIME" \
  --output="$OUT/logs/shard-%a.log" \
  --wrap="$BIN tournament $ARGS --concurrency $CPUS --quiet \
          --shard \${SLURM_ARRAY_TASK_ID}/$SHARDS --out $OUT/shard-\${SLURM_ARRAY_TASK_ID}")

shard_dirs=$(for k in $(seq 1 "$SHARDS"); do printf '%s ' "$OUT/shard-$k"; done)
# The merge replays every record on the run's terrains: it needs the run's terrain file, if any.
MERGE_ARGS=""
prev=""
for a in "$@"; do
  if [[ "$prev" == "--terrain-file" ]]; then MERGE_ARGS="--terrain-file $(printf '%q' "$a")"; fi
  if [[ "$a" == --terrain-file=* ]]; then MERGE_ARGS="--terrain-file $(printf '%q' "${a#*=}")"; fi
  prev="$a"
done
merge_id=$(sbatch --parsable "${PARTITION_ARG[@]}" \
  --job-name=toybattle-merge --dependency="afterok:${array_id}" --time=00:30:00 \
  --output="$OUT/logs/merge.log" \
  --wrap="$BIN merge $shard_dirs $MERGE_ARGS --out $OUT/merged")

echo "submitted shards as job array $array_id and the merge as job $merge_id"
echo "summary when done: $OUT/merged/summary.md"

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
source "$(dirname "$0")/slurm-lib.sh"

array_id=$(submit_shards tournament "$@")
# The merge replays every record on the run's terrains: it needs the run's terrain file, if any.
merge_id=$(submit_after "$array_id" merge \
  "$(printf '%q' "$BIN") merge $(shard_dirs) $(terrain_file_args "$@") --out $(printf '%q' "$OUT/merged")")

echo "submitted shards as job array $array_id and the merge as job $merge_id"
echo "summary when done: $OUT/merged/summary.md"

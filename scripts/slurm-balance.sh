#!/usr/bin/env bash
# Runs one toybattle balance study as a Slurm job array (one shard per array task) followed by
# a report job that starts only when every shard has succeeded.
#
# Usage (on the login node, from the repository root, after `cargo build --release`):
#   SHARDS=35 CPUS=2 TIME=12:00:00 OUT=/shared/studies/strong \
#     scripts/slurm-balance.sh --bots strong --terrains all --variants normal,beginner \
#     --games 540 --seed 1
#
# Every argument is passed to `toybattle balance` unchanged on every shard; the script adds
# --shard K/N, --concurrency CPUS and --out $OUT/shard-K. The report job then reads every
# shard folder (`balance --from`) and writes the study's report into $OUT/report: the same
# files, byte for byte, as the study played on one machine. OUT must be on a file system all
# nodes share. A shard that is killed (preemption, time limit) leaves its games: submit the
# same command again and every shard plays only what it misses, then the report is written.
# Shard K plays the deals at positions K-1, K-1+N, … of every run, and a run's positions take
# its terrains in turn: a SHARDS that divides the number of terrains gives each shard only some
# terrains (docs/balance.md), so prefer one that does not (e.g. 35 for eight terrains).
# Optional: BIN (default target/release/toybattle), PARTITION, TIME (default 04:00:00),
# CPUS (cores per shard, default 4).
set -euo pipefail
source "$(dirname "$0")/slurm-lib.sh"

array_id=$(submit_shards balance "$@")
report_id=$(submit_after "$array_id" report \
  "$(printf '%q' "$BIN") balance --from $(shard_dirs) $(terrain_file_args "$@") --quiet \
    --out $(printf '%q' "$OUT/report")")

echo "submitted shards as job array $array_id and the report as job $report_id"
echo "report when done: $OUT/report/report.md"

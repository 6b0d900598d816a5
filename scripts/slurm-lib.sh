# Shared by scripts/slurm-tournament.sh and scripts/slurm-balance.sh (sourced, not run): the
# settings both read from the environment and the two submissions both make, a job array of
# shards and one job that runs when every shard has succeeded.
#
# Settings: SHARDS (required), OUT (required, a folder on a file system all nodes share), BIN
# (default target/release/toybattle), PARTITION, TIME (default 04:00:00), CPUS (cores per
# shard, default 4).

SHARDS=${SHARDS:?set SHARDS to the number of shards}
OUT=${OUT:?set OUT to a run folder on a shared file system}
BIN=${BIN:-target/release/toybattle}
TIME=${TIME:-04:00:00}
CPUS=${CPUS:-4}
PARTITION_ARG=()
if [[ -n "${PARTITION:-}" ]]; then PARTITION_ARG=(--partition "$PARTITION"); fi
mkdir -p "$OUT/logs"

# Submits `toybattle SUBCOMMAND ARGS…` as a job array, task K playing shard K into
# $OUT/shard-K; prints the array's job id.
submit_shards() {
  local subcommand=$1
  shift
  local args bin out
  args=$(printf '%q ' "$@")
  bin=$(printf '%q' "$BIN")
  out=$(printf '%q' "$OUT")
  sbatch --parsable "${PARTITION_ARG[@]}" \
    --job-name=toybattle-shard --array="1-${SHARDS}" --cpus-per-task="$CPUS" --time="$TIME" \
    --output="$OUT/logs/shard-%a.log" \
    --wrap="$bin $subcommand $args --concurrency $CPUS --quiet \
            --shard \${SLURM_ARRAY_TASK_ID}/$SHARDS --out $out/shard-\${SLURM_ARRAY_TASK_ID}"
}

# Submits COMMAND as job NAME that starts once job AFTER has succeeded (every task of an
# array); its output goes to $OUT/logs/NAME.log. Prints its job id.
submit_after() {
  local after=$1 name=$2 command=$3
  sbatch --parsable "${PARTITION_ARG[@]}" \
    --job-name="toybattle-$name" --dependency="afterok:${after}" --time=00:30:00 \
    --output="$OUT/logs/$name.log" --wrap="$command"
}

# The shard folders $OUT/shard-1 … $OUT/shard-$SHARDS, separated by spaces.
shard_dirs() {
  for k in $(seq 1 "$SHARDS"); do printf '%q ' "$OUT/shard-$k"; done
}

# `--terrain-file FILE` if ARGS… hold one (either spelling), for the job that reads the shards:
# it needs the run's terrains too.
terrain_file_args() {
  local prev="" a
  for a in "$@"; do
    if [[ "$prev" == "--terrain-file" ]]; then printf -- '--terrain-file %q' "$a"; fi
    if [[ "$a" == --terrain-file=* ]]; then printf -- '--terrain-file %q' "${a#*=}"; fi
    prev="$a"
  done
}

#!/bin/sh
# The published greedy balance study (results/balance/greedy/): 40,000 games per terrain and
# variant, 640,000 in all, played without records at the lowest priority, one worker per
# variant: the normal variant's run in OUT/normal, the beginner variant's in OUT/beginner, so
# that both variants advance over the same deals and every terrain (a run plays its deals in
# order, the terrains in turn; shards of a count that divides the number of terrains would
# instead split the terrains between them). Resumable: run it again after a stop and each run
# plays only its missing games. Then write the report over both folders:
#   toybattle balance --from OUT/normal OUT/beginner --out results/balance/greedy
# Usage: scripts/balance-greedy-study.sh [TOYBATTLE] [OUT]
set -eu
BIN=${1:-target/release/toybattle}
OUT=${2:-greedy-study}
lane() {
    nice -n 19 "$BIN" balance --bots greedy --terrains all --variants "$1" \
        --games 40000 --seed 1 --no-records --concurrency 1 --quiet --out "$OUT/$1"
}
lane normal &
lane beginner &
wait

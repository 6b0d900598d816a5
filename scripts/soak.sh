#!/usr/bin/env bash
# The soak of issue-grade confidence in the rules: checked random games (`random-games --check`,
# every invariant verified after every decision) on every terrain and variant, in chunks of a
# million games with seeds SEED, SEED+1, ... so that a stopped machine loses at most one chunk.
# Each finished chunk leaves OUT/<terrain>-<variant>-<k>.{out,time,done}; a rerun skips the
# done ones. Runs at the lowest priority (nice 19), one chunk at a time.
#
#   scripts/soak.sh [--chunks K] [--games N] [--seed S] [--terrains LIST] [--out DIR]
#
# Defaults: 10 chunks of 1,000,000 games from seed 2026 on all eight terrains and both
# variants (160 million games, about 10 core-hours at 0.22 ms a checked game), into
# results/soak/. TOYBATTLE names the binary to use (default: a release build made first).
set -euo pipefail

chunks=10
games=1000000
seed=2026
terrains="castle_field tropical_pool city_of_clouds volcanic_jungle cursed_cemetery caribbean_sea station_metal_x battlefield"
out=results/soak
while [ $# -gt 0 ]; do
    case "$1" in
        --chunks) chunks="$2"; shift 2 ;;
        --games) games="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --terrains) terrains="${2//,/ }"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        *) echo "soak.sh: unknown option '$1' (expected --chunks K, --games N, --seed S, --terrains LIST, --out DIR)" >&2
           exit 2 ;;
    esac
done

cd "$(dirname "$0")/.."
if [ -z "${TOYBATTLE:-}" ]; then
    cargo build --release --quiet
    TOYBATTLE=target/release/toybattle
fi
mkdir -p "$out"
# GNU time (Debian package `time`) records each chunk's CPU time; without it the chunks still run.
timer=()
if [ -x /usr/bin/time ]; then
    timer=(/usr/bin/time -f "%U s user, %S s system, %e s wall, %M KB peak memory")
fi
for v in normal beginner; do
    for t in $terrains; do
        for k in $(seq 0 $((chunks - 1))); do
            unit="$out/$t-$v-$k"
            [ -e "$unit.done" ] && continue
            status=0
            "${timer[@]}" nice -n 19 "$TOYBATTLE" random-games --terrain "$t" -n "$games" \
                --seed $((seed + k)) --variant "$v" --check --quiet >"$unit.out" 2>"$unit.time" || status=$?
            if [ "$status" -ne 0 ]; then
                echo "soak.sh: $t ($v variant) seed $((seed + k)) failed with status $status; see $unit.out and $unit.time" >&2
                exit 1
            fi
            touch "$unit.done"
        done
    done
done
echo "soak.sh: every chunk in $out is done"

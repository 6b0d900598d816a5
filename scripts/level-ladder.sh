#!/bin/sh
# The ladder of the levels of `toybattle play`: a paired round robin of bots/beginner.toml,
# casual, strong and strongest on all eight terrains (every deal played twice, seats swapped),
# one game at a time so that `strongest` has both cores for its time budget. Writes the run to
# results/levels/run/ and the ladder (each pairing over all terrains) to
# results/levels/ladder.md, which `toybattle play --help` prints once rebuilt.
#
#   scripts/level-ladder.sh [--games N] [--seed S] [--out DIR]
#
# N games per pairing and terrain (even; default 20: 960 games, several hours with `strongest`
# thinking 2 s per decision). A killed run resumes when started again with the same options.
set -eu

games=20
seed=2026
out=results/levels/run
while [ $# -gt 0 ]; do
    case "$1" in
        --games) games="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        *) echo "level-ladder.sh: unknown option '$1' (expected --games N, --seed S, --out DIR)" >&2
           exit 2 ;;
    esac
done

cd "$(dirname "$0")/.."
cargo build --release --quiet
target/release/toybattle tournament \
    --bots bots/beginner.toml,bots/casual.toml,bots/strong.toml,bots/strongest.toml \
    --terrains all --games "$games" --seed "$seed" --concurrency 1 --out "$out" --quiet

# The pairings over all terrains, from the summary's table (columns: pairing, terrain, games,
# wins, losses, draws, score, Elo, ...), as the ladder.
{
    echo "Ladder of the levels ($out: $games games per pairing and terrain, all eight"
    echo "terrains, seed $seed; score and Elo of the first level named, 95% intervals):"
    echo
    printf '  %-24s %6s  %-22s %s\n' pairing games score Elo
    awk -F'|' '$3 ~ /\*\*all\*\*/ {
        for (i = 2; i <= 9; i++) gsub(/^ +| +$/, "", $i)
        printf "  %-24s %6s  %-22s %s\n", $2, $4, $8, $9
    }' "$out/summary.md"
} > results/levels/ladder.md
cat results/levels/ladder.md

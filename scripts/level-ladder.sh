#!/bin/sh
# The ladder of the levels of `toybattle play`: a paired round robin of bots/beginner.toml,
# casual, strong and strongest on all eight terrains (every deal played twice, seats swapped).
# The levels have iteration budgets, so every game is reproducible from its seed and the result
# does not depend on the machine's load: the run goes at the lowest priority (nice 19) and may
# take days in the background. Writes the run to results/levels/ladder/ and the ladder (each
# pairing over all terrains) to results/levels/ladder.md, the one table that
# `toybattle play --help` and the page show (compiled in: rebuild after a run).
#
#   scripts/level-ladder.sh [--games N] [--seed S] [--out DIR] [--concurrency C]
#
# N games per pairing and terrain (even; default 20: 960 games, many hours with `strongest`).
# A killed run resumes where it stopped when started again with the same options.
set -eu

games=20
seed=2026
out=results/levels/ladder
concurrency=1
while [ $# -gt 0 ]; do
    case "$1" in
        --games) games="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --out) out="$2"; shift 2 ;;
        --concurrency) concurrency="$2"; shift 2 ;;
        *) echo "level-ladder.sh: unknown option '$1' (expected --games N, --seed S, --out DIR, --concurrency C)" >&2
           exit 2 ;;
    esac
done

cd "$(dirname "$0")/.."
cargo build --release --quiet
nice -n 19 target/release/toybattle tournament \
    --bots bots/beginner.toml,bots/casual.toml,bots/strong.toml,bots/strongest.toml \
    --terrains all --games "$games" --seed "$seed" --concurrency "$concurrency" --out "$out" --quiet

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

#!/bin/sh
# The ladder of the levels of `toybattle play`: a paired round robin of bots/beginner.toml,
# casual, strong and strongest on all eight terrains (every deal played twice, seats swapped).
# The levels have iteration budgets, so every game is reproducible from its seed; the copies of
# the presets in results/levels/ladder-bots/ differ from bots/ only in the `time_ms` safety net,
# raised so that a busy machine never cuts a search short (on a loaded machine the 15 s net of
# `strongest` would end some searches before their 100,000 iterations, and the games would
# depend on the load). The run goes at low priority (nice 19) and may take hours.
# Writes the run to results/levels/ladder/ and the ladder (each pairing over all terrains, and
# each level's score against all others) to results/levels/ladder.md, the one table that
# `toybattle play --help` and the page show (compiled in: rebuild after a run).
#
#   scripts/level-ladder.sh [--games N] [--seed S] [--concurrency C]
#
# N games per pairing and terrain (even; default 2: 96 games, 22 minutes on two busy cores for the
# levels of 2026-12-03, which stop a decision once decided).
# A killed run resumes where it stopped when started again with the same options.
set -eu

games=2
seed=2026
concurrency=2
while [ $# -gt 0 ]; do
    case "$1" in
        --games) games="$2"; shift 2 ;;
        --seed) seed="$2"; shift 2 ;;
        --concurrency) concurrency="$2"; shift 2 ;;
        *) echo "level-ladder.sh: unknown option '$1' (expected --games N, --seed S, --concurrency C)" >&2
           exit 2 ;;
    esac
done

cd "$(dirname "$0")/.."
cargo build --release --quiet
mkdir -p results/levels/ladder-bots
for level in beginner casual strong strongest; do
    sed 's/^time_ms = .*/time_ms = 120000          # the ladder: raised from 15000 so that load never cuts a search short/' \
        "bots/$level.toml" > "results/levels/ladder-bots/$level.toml"
done

# From results/levels, so that the bots are named ladder-bots/LEVEL.toml in the run.
cd results/levels
nice -n 19 ../../target/release/toybattle tournament \
    --bots ladder-bots/beginner.toml,ladder-bots/casual.toml,ladder-bots/strong.toml,ladder-bots/strongest.toml \
    --terrains all --games "$games" --seed "$seed" --concurrency "$concurrency" --out ladder --quiet

# The summary's tables with the levels' names: each level's score against all the others
# (columns: bot, games, wins, draws, forfeits, score), then the pairings over all terrains
# (pairing, terrain, games, wins, losses, draws, score, Elo, ...).
{
    echo "Ladder of the levels (results/levels/ladder/: a paired round robin, $games games per"
    echo "pairing and terrain on all eight terrains, seed $seed, made by scripts/level-ladder.sh;"
    echo "95% intervals)."
    echo
    echo "Each level's score against the three others:"
    awk -F'|' '/^## Bots/ { bots = 1; next } /^## / { bots = 0 }
        bots && $2 ~ /ladder-bots/ {
            for (i = 2; i <= 7; i++) gsub(/^ +| +$/, "", $i)
            sub(/^ladder-bots\//, "", $2); sub(/\.toml$/, "", $2)
            printf "  %-10s %4s games  %s\n", $2, $3, $7
        }' ladder/summary.md
    echo
    echo "Each pairing (score and Elo of the first level named):"
    awk -F'|' '$3 ~ /\*\*all\*\*/ {
        for (i = 2; i <= 9; i++) gsub(/^ +| +$/, "", $i)
        gsub(/ladder-bots\//, "", $2); gsub(/\.toml/, "", $2)
        elo = ($9 ~ /^[-+]/) ? "Elo " $9 : $9
        printf "  %-22s %4s games  %-20s %s\n", $2, $4, $8, elo
    }' ladder/summary.md
} > ladder.md
cat ladder.md

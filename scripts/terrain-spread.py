#!/usr/bin/env python3
"""Does a bot's score against another differ by terrain more than chance would make it?

Reads the games.jsonl of one or more tournament runs of the same pairing, scores each deal's
pair (both games, seats swapped: 0, 0.5 or 1 for BOT), and compares the spread of the
terrains' mean pair scores with its spread when the pair scores are shuffled among terrains
(a permutation test: no assumption on how scores are distributed). Also prints each bot's
median time a decision and the median over games of their ratio, the figure results/ tables
give beside each match.

    scripts/terrain-spread.py BOT RUN/games.jsonl [RUN2/games.jsonl ...] [--shuffles N]

BOT is the bot's name as games.jsonl spells it (a preset name or path). Python standard
library only; seeded, so the same files give the same p.
"""

import argparse
import json
import random
import statistics
from collections import defaultdict


def load(paths):
    """Every game of the runs, as parsed JSON."""
    for path in paths:
        with open(path, encoding="utf-8") as f:
            for number, line in enumerate(f, 1):
                try:
                    yield json.loads(line)
                except json.JSONDecodeError as e:
                    raise SystemExit(f"{path}:{number}: not a JSON game line ({e})")


def pair_scores(games, bot):
    """(terrain, pair score of BOT) for every deal played both times."""
    pairs = defaultdict(list)
    for g in games:
        if bot not in (g["blue"], g["red"]):
            raise SystemExit(f"bot '{bot}' is not in a game of {g['terrain']} (blue {g['blue']}, red {g['red']})")
        key = (g["run"], g["terrain"], g["deal_seed"], g["pair"])
        pairs[key].append(1.0 if g["winner"] == bot else 0.5 if g["winner"] is None else 0.0)
    return [(key[1], sum(s) / 2) for key, s in pairs.items() if len(s) == 2]


def spread(scored):
    """Sum over terrains of pairs x (terrain mean - overall mean)^2, and the terrain means."""
    by = defaultdict(list)
    for terrain, score in scored:
        by[terrain].append(score)
    overall = sum(s for _, s in scored) / len(scored)
    means = {t: sum(v) / len(v) for t, v in by.items()}
    return sum(len(by[t]) * (means[t] - overall) ** 2 for t in by), means


def times(games, bot):
    """Median ms a decision of BOT and of its opponent, and the median of their ratio, by game."""
    own, other, ratio = [], [], []
    for g in games:
        i = 0 if g["blue"] == bot else 1
        a = g["think_ms"][i] / max(1, g["decisions"][i])
        b = g["think_ms"][1 - i] / max(1, g["decisions"][1 - i])
        own.append(a)
        other.append(b)
        ratio.append(a / b if b > 0 else float("nan"))
    return statistics.median(own), statistics.median(other), statistics.median(ratio)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("bot")
    parser.add_argument("games", nargs="+", help="games.jsonl files of runs of one pairing")
    parser.add_argument("--shuffles", type=int, default=20000)
    args = parser.parse_args()
    games = list(load(args.games))
    scored = pair_scores(games, args.bot)
    if not scored:
        raise SystemExit("no deal was played both times: nothing to compare")
    observed, means = spread(scored)
    for terrain, mean in sorted(means.items()):
        print(f"{terrain:16s} pair score {mean:.3f}")
    terrains = [t for t, _ in scored]
    scores = [s for _, s in scored]
    rng = random.Random(1)
    at_least = 0
    for _ in range(args.shuffles):
        rng.shuffle(scores)
        at_least += spread(list(zip(terrains, scores)))[0] >= observed
    print(f"{len(scored)} pairs; spread {observed:.3f}; permutation p = {at_least / args.shuffles:.4f} ({args.shuffles} shuffles)")
    own, other, ratio = times(games, args.bot)
    print(f"ms a decision (median over games): {own:.0f} against {other:.0f}; ratio {ratio:.3f}")


if __name__ == "__main__":
    main()

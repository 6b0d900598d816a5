#!/usr/bin/env python3
"""Do the same terrains gain least in every match of a stronger bot against a weaker one?

Each --match names a bot and the games.jsonl of runs where it played one opponent. For each
match the terrains are ranked by the bot's mean pair score (both games of a deal, seats
swapped: 0, 0.5 or 1). Kendall's W measures how far the matches agree on that order (1: the
same order in all, 0: no agreement); its p is the share of shuffles, each match's pair scores
shuffled among its terrains, whose W is at least the observed one (no assumption on how
scores are distributed). Then, over all games read, each terrain's share of games ended by
capturing an HQ and its mean turns, and Spearman's correlation of those with the terrains'
mean rank, with its exact p over all orders of the eight terrains.

    scripts/terrain-concordance.py --match BOT RUN/games.jsonl [RUN2/games.jsonl ...] \\
        --match BOT2 ... [--shuffles N]

Python standard library only; seeded, so the same files give the same p.
"""

import argparse
import importlib.util
import itertools
import random
from collections import defaultdict
from pathlib import Path

# The games and pair scores are read as scripts/terrain-spread.py reads them.
_spec = importlib.util.spec_from_file_location("terrain_spread", Path(__file__).with_name("terrain-spread.py"))
terrain_spread = importlib.util.module_from_spec(_spec)
_spec.loader.exec_module(terrain_spread)


def pair_scores(games, bot):
    """{terrain: [pair score of BOT]} for every deal played both times."""
    by = defaultdict(list)
    for terrain, score in terrain_spread.pair_scores(games, bot):
        by[terrain].append(score)
    return by


def ranks(values):
    """Ranks 1..n of the values (ties share their mean rank), in the order given."""
    order = sorted(range(len(values)), key=lambda i: values[i])
    out = [0.0] * len(values)
    i = 0
    while i < len(order):
        j = i
        while j + 1 < len(order) and values[order[j + 1]] == values[order[i]]:
            j += 1
        for k in range(i, j + 1):
            out[order[k]] = (i + j) / 2 + 1
        i = j + 1
    return out


def kendall_w(rank_rows):
    """Kendall's W of m rankings of the same n items (no tie correction)."""
    m, n = len(rank_rows), len(rank_rows[0])
    sums = [sum(row[i] for row in rank_rows) for i in range(n)]
    mean = m * (n + 1) / 2
    s = sum((r - mean) ** 2 for r in sums)
    return 12 * s / (m * m * (n ** 3 - n))


def means_ranks(by, terrains):
    """Ranks of the terrains by mean pair score."""
    return ranks([sum(by[t]) / len(by[t]) for t in terrains])


def shuffled(by, terrains, rng):
    """The pair scores dealt again among the terrains, each keeping its number of pairs."""
    pool = [s for t in terrains for s in by[t]]
    rng.shuffle(pool)
    out, i = {}, 0
    for t in terrains:
        out[t] = pool[i : i + len(by[t])]
        i += len(by[t])
    return out


def spearman(xs, ys):
    """Spearman's rho of two lists (Pearson of their ranks)."""
    rx, ry = ranks(xs), ranks(ys)
    n = len(xs)
    mx, my = sum(rx) / n, sum(ry) / n
    cov = sum((a - mx) * (b - my) for a, b in zip(rx, ry))
    vx = sum((a - mx) ** 2 for a in rx)
    vy = sum((b - my) ** 2 for b in ry)
    return cov / (vx * vy) ** 0.5


def exact_p(xs, ys):
    """Share of all orders of ys whose |rho| with xs is at least the observed one."""
    observed = abs(spearman(xs, ys))
    perms = list(itertools.permutations(ys))
    return sum(abs(spearman(xs, list(p))) >= observed - 1e-12 for p in perms) / len(perms)


def main():
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--match", nargs="+", action="append", required=True,
                        metavar="BOT GAMES", help="a bot and the games.jsonl files of its match")
    parser.add_argument("--shuffles", type=int, default=20000)
    args = parser.parse_args()
    matches, games = [], []
    for spec in args.match:
        if len(spec) < 2:
            raise SystemExit(f"--match {spec[0]}: give the bot, then at least one games.jsonl")
        bot, paths = spec[0], spec[1:]
        mine = list(terrain_spread.load(paths))
        games += mine
        matches.append((bot, paths, pair_scores(mine, bot)))
    terrains = sorted(set.intersection(*(set(by) for _, _, by in matches)))
    if len(terrains) < 3:
        raise SystemExit(f"the matches share {len(terrains)} terrains: at least 3 are needed to rank them")
    rows = [means_ranks(by, terrains) for _, _, by in matches]
    print("rank of each terrain in each match (1: the bot gained least there)")
    for (bot, paths, by), row in zip(matches, rows):
        pairs = sum(len(by[t]) for t in terrains)
        print(f"  {bot} ({pairs} pairs; {', '.join(paths)})")
        print("    " + "  ".join(f"{t} {r:g}" for t, r in zip(terrains, row)))
    w = kendall_w(rows)
    rng = random.Random(1)
    hits = sum(
        kendall_w([means_ranks(shuffled(by, terrains, rng), terrains) for _, _, by in matches]) >= w - 1e-12
        for _ in range(args.shuffles)
    )
    print(f"{len(matches)} matches, {len(terrains)} terrains: Kendall's W = {w:.3f}; "
          f"permutation p = {hits / args.shuffles:.4f} ({args.shuffles} shuffles)")
    mean_rank = [sum(row[i] for row in rows) / len(rows) for i in range(len(terrains))]
    hq = defaultdict(lambda: [0, 0, 0])
    for g in games:
        h = hq[g["terrain"]]
        h[0] += 1
        h[1] += g["end"] == "hq"
        h[2] += g["turns"]
    share = [hq[t][1] / hq[t][0] for t in terrains]
    turns = [hq[t][2] / hq[t][0] for t in terrains]
    print("terrain           mean rank  games  ended by an HQ  mean turns")
    for t, r, s, n in sorted(zip(terrains, mean_rank, share, turns), key=lambda x: x[1]):
        print(f"  {t:16s} {r:6.2f}   {hq[t][0]:6d}  {100 * s:8.1f}%   {n:8.1f}")
    for name, xs in (("share ended by an HQ", share), ("mean turns", turns)):
        print(f"Spearman of the mean rank with the {name}: {spearman(mean_rank, xs):+.3f}, "
              f"exact p = {exact_p(mean_rank, xs):.4f}")


if __name__ == "__main__":
    main()

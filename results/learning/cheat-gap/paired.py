#!/usr/bin/env python3
"""What knowing the opponent's rack alone is worth, next to seeing every hidden tile.

Reads the two matches of `strong` against the cheating references on the same deals (seed
3040): against full cheat-UCT (`strong-vs-cheat-uct-strong`) and against cheat-UCT shown only
the opponent's rack (`strong-vs-cheat-uct-rack-strong`). Prints strong's score and Elo in each
on the games both played, and the paired difference per deal (each deal played twice, seats
swapped): the mean over deals of strong's pair score against the rack-only reference less its
pair score against full cheating, with a normal 95% interval over deals.

Run from this folder: python3 paired.py
"""
import json
import math


def games(folder):
    out = {}
    with open(f"{folder}/games.jsonl") as f:
        for line in f:
            if line.strip():
                g = json.loads(line)
                out[(g["terrain"], g["pair"], g["game"])] = g
    return out


def score(g):
    return 1.0 if g["winner"] == "strong" else 0.5 if g["winner"] is None else 0.0


def elo(p):
    return -400 * math.log10(1 / p - 1)


full = games("strong-vs-cheat-uct-strong")
rack = games("strong-vs-cheat-uct-rack-strong")
both = sorted(k for k in rack if k in full and full[k]["deal_seed"] == rack[k]["deal_seed"])
pairs = sorted({k[:2] for k in both if (k[0], k[1], 1 - k[2]) in rack})
print(f"{len(both)} games on the same deals, {len(pairs)} deals played twice in both")
for name, run in [("full cheat-UCT", full), ("rack-only cheat-UCT", rack)]:
    s = sum(score(run[k]) for k in both) / len(both)
    print(f"strong against {name}: {100 * s:.1f}%, Elo {elo(s):+.0f}")
diffs = [
    sum(score(rack[(t, p, g)]) - score(full[(t, p, g)]) for g in (0, 1)) / 2 for t, p in pairs
]
mean = sum(diffs) / len(diffs)
sd = math.sqrt(sum((d - mean) ** 2 for d in diffs) / (len(diffs) - 1))
half = 1.96 * sd / math.sqrt(len(diffs))
print(
    f"paired difference (rack-only less full), per deal: {100 * mean:+.1f} points "
    f"[{100 * (mean - half):+.1f}, {100 * (mean + half):+.1f}] over {len(diffs)} deals"
)

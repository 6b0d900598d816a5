#!/usr/bin/env python3
"""How often does a generation's gate keep a candidate of a given true strength?

`toybattle train run` keeps a generation only if a paired SPRT (elo0, elo1) accepts H1 before
the gate's most games are played. This simulates that gate: pairs of games (seats swapped)
whose pair score is 0, 1/2 or 1, a fixed share of split pairs (the runs' gates split about
half their pairs), the rest lost both or won both as the true Elo sets, and after each pair
the test's generalized log-likelihood ratio as `tournament::stats::sprt_llr` computes it
(fishtest's pentanomial GSPRT: each hypothesis's most likely pair distribution with its mean,
empty cells given 1e-3 pairs). Prints, per true Elo, the share of gates that keep the
candidate (with its standard error), the mean games a gate plays, and the median Elo a kept
gate reports: a sequential test stops when its pairs have run well, so what a kept gate
reports runs above the true step.

    scripts/gate-power.py [--sprt 0,50] [--max-games 400] [--split 0.48] [--elo 0,10,20,30,50]
    scripts/gate-power.py --sprt 0,50 --llr LOST_BOTH,SPLIT,WON_BOTH

The second form prints the test's log-likelihood ratio for those pair counts (a gate's
summary.md gives them as its "pairs" column, lost both/.../won both).

Python standard library only; seeded, so the same arguments print the same table.
"""

import argparse
import math
import random
import sys


def expected_score(elo):
    return 1.0 / (1.0 + 10.0 ** (-elo / 400.0))


def most_likely_with_mean(freq, scores, mean):
    """The distribution nearest `freq` (by likelihood) whose mean score is `mean`."""
    def slope(lam):
        return sum(p * (x - mean) / (1.0 + lam * (x - mean)) for p, x in zip(freq, scores))

    lo, hi = -1.0 / (1.0 - mean), 1.0 / mean
    for _ in range(60):
        mid = 0.5 * (lo + hi)
        if slope(mid) > 0.0:
            lo = mid
        else:
            hi = mid
    lam = 0.5 * (lo + hi)
    return [p / (1.0 + lam * (x - mean)) for p, x in zip(freq, scores)]


def llr(counts, s0, s1):
    """The GSPRT's log-likelihood ratio of H1 against H0 for pair counts (lost both, split,
    won both)."""
    regular = [c if c > 0 else 1e-3 for c in counts]
    n = sum(regular)
    freq = [c / n for c in regular]
    scores = (0.0, 0.5, 1.0)
    p0 = most_likely_with_mean(freq, scores, s0)
    p1 = most_likely_with_mean(freq, scores, s1)
    return n * sum(f * math.log(b / a) for f, a, b in zip(freq, p0, p1))


def reported_elo(counts):
    """The Elo a gate's summary reports for its pair counts: that of the mean score."""
    score = (0.5 * counts[1] + counts[2]) / sum(counts)
    if score <= 0.0 or score >= 1.0:
        return math.copysign(math.inf, score - 0.5)
    return 400.0 * math.log10(score / (1.0 - score))


def median(values):
    ordered = sorted(values)
    middle = len(ordered) // 2
    if len(ordered) % 2:
        return ordered[middle]
    return 0.5 * (ordered[middle - 1] + ordered[middle])


def one_gate(rng, true_elo, elo0, elo1, max_pairs, split, bound):
    """Plays one simulated gate; returns (kept, games played, the Elo it reports)."""
    won_both = expected_score(true_elo) - 0.5 * split
    lost_both = 1.0 - split - won_both
    s0, s1 = expected_score(elo0), expected_score(elo1)
    counts = [0, 0, 0]
    for n in range(1, max_pairs + 1):
        r = rng.random()
        counts[0 if r < lost_both else (1 if r < lost_both + split else 2)] += 1
        ratio = llr(counts, s0, s1)
        if ratio >= bound:
            return True, 2 * n, reported_elo(counts)
        if ratio <= -bound:
            return False, 2 * n, reported_elo(counts)
    return False, 2 * max_pairs, reported_elo(counts)


def numbers(text, what, count=None):
    try:
        values = [float(x) for x in text.split(",")]
    except ValueError:
        sys.exit(f"gate-power: {what} '{text}': expected comma-separated numbers")
    if count is not None and len(values) != count:
        sys.exit(f"gate-power: {what} '{text}': expected {count} numbers")
    return values


def main():
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--sprt", default="0,50", help="elo0,elo1 (alpha = beta = 0.05)")
    parser.add_argument("--max-games", type=int, default=400, help="the gate's most games")
    parser.add_argument("--split", type=float, default=0.48, help="share of split pairs")
    parser.add_argument("--elo", default="0,10,20,30,50", help="true Elo values, comma-separated")
    parser.add_argument("--gates", type=int, default=1000, help="simulated gates per value")
    parser.add_argument("--seed", type=int, default=1)
    parser.add_argument("--llr", help="print the LLR of pair counts LOST_BOTH,SPLIT,WON_BOTH")
    args = parser.parse_args()
    elo0, elo1 = numbers(args.sprt, "--sprt", 2)
    if not elo0 < elo1:
        sys.exit(f"gate-power: --sprt '{args.sprt}': expected elo0 below elo1")
    s0, s1 = expected_score(elo0), expected_score(elo1)
    if args.llr is not None:
        counts = numbers(args.llr, "--llr", 3)
        if min(counts) < 0 or sum(counts) == 0:
            sys.exit(f"gate-power: --llr '{args.llr}': expected pair counts, not all 0")
        print(f"LLR {llr(counts, s0, s1):.4f}")
        return
    if args.max_games < 2 or args.gates < 1 or not 0.0 <= args.split < 1.0:
        sys.exit("gate-power: expected --max-games 2 or more, --gates 1 or more, --split in [0, 1)")
    bound = math.log(0.95 / 0.05)
    rng = random.Random(args.seed)
    print(f"SPRT({elo0:g}, {elo1:g}), at most {args.max_games} games, {args.split:.0%} split pairs")
    print("true Elo | kept (± s.e.) | mean games | Elo a kept gate reports (median)")
    for true_elo in numbers(args.elo, "--elo"):
        won_both = expected_score(true_elo) - 0.5 * args.split
        if not 0.0 <= won_both <= 1.0 - args.split:
            sys.exit(f"gate-power: true Elo {true_elo:+g} cannot have {args.split:.0%} split pairs")
        results = [
            one_gate(rng, true_elo, elo0, elo1, args.max_games // 2, args.split, bound)
            for _ in range(args.gates)
        ]
        kept = sum(k for k, _, _ in results) / len(results)
        games = sum(g for _, g, _ in results) / len(results)
        error = math.sqrt(kept * (1.0 - kept) / len(results))
        reports = [elo for k, _, elo in results if k]
        report = f"{median(reports):+.0f}" if reports else "none kept"
        print(f"{true_elo:+8g} | {kept:4.0%} (± {error:.0%}) | {games:10.0f} | {report}")


if __name__ == "__main__":
    main()

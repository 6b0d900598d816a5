#!/usr/bin/env python3
"""Example external bot for `toybattle tournament --bots ext:scripts/example-external-bot.py`.

Speaks the toybattle-ext/1 JSON-lines protocol (docs/tournament.md) on stdin/stdout, using the
Python 3 standard library only. It answers each "decide" message with a random legal decision
(or the first one when EXAMPLE_BOT_FIRST=1). Its choices are seeded by EXAMPLE_BOT_SEED when
set, else by the deal seed and game number of "hello", so a run with the same seed replays the
same choices. Its notes go to stderr, which the tournament keeps in the run folder's logs/;
stdout carries answers and nothing else.
"""
import json
import os
import random
import sys


def log(*words):
    print(*words, file=sys.stderr, flush=True)


def main():
    first_only = os.environ.get("EXAMPLE_BOT_FIRST") == "1"
    rng = random.Random(0)
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            if message.get("protocol") != "toybattle-ext/1":
                log("unsupported protocol %r" % message.get("protocol"))
                return 1
            seed = os.environ.get("EXAMPLE_BOT_SEED")
            if seed is None:
                # null outside a tournament: then seed 0.
                seed = (message.get("deal_seed") or 0) * 2 + (message.get("game") or 0)
            rng = random.Random(int(seed))
            graph = message["terrain_graph"]
            log(
                "run %s game %s (%s): %s as %s, my HQs %s, the opponent's %s"
                % (
                    message.get("run"),
                    message.get("record"),
                    message.get("deal_seed"),
                    graph["name"],
                    message["colour"],
                    graph["hqs"][message["colour"]],
                    graph["hqs"]["red" if message["colour"] == "blue" else "blue"],
                )
            )
        elif kind == "decide":
            legal = message["legal"]
            choice = legal[0] if first_only else rng.choice(legal)
            sys.stdout.write(json.dumps({"decision": choice}) + "\n")
            sys.stdout.flush()
        elif kind == "quit":
            return 0
    return 0


if __name__ == "__main__":
    sys.exit(main())

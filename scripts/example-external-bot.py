#!/usr/bin/env python3
"""Example external bot for `toybattle tournament --bots ext:scripts/example-external-bot.py`.

Speaks the toybattle-ext/1 JSON-lines protocol (docs/tournament.md) on stdin/stdout, using the
Python 3 standard library only. It answers each "decide" message with a random legal decision
(or the first one when EXAMPLE_BOT_FIRST=1), seeded from the environment variable EXAMPLE_BOT_SEED so that
runs can be repeated. Messages go to stderr only; stdout carries answers and nothing else.
"""
import json
import os
import random
import sys


def main():
    first_only = os.environ.get("EXAMPLE_BOT_FIRST") == "1"
    rng = random.Random(int(os.environ.get("EXAMPLE_BOT_SEED", "0")))
    for line in sys.stdin:
        message = json.loads(line)
        kind = message.get("type")
        if kind == "hello":
            if message.get("protocol") != "toybattle-ext/1":
                print("unsupported protocol %r" % message.get("protocol"), file=sys.stderr)
                return 1
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

#!/usr/bin/env python3
"""Measures a running `toybattle serve`: the time the API takes to apply a human decision (a click
on the page), and the server's memory with many games open.

    toybattle serve --port 8137 &
    scripts/web-measure.py --port 8137 --pid $! --games 20 --level strong --decisions 6

Opens GAMES games against LEVEL, plays up to DECISIONS decisions of the human in each (the first
legal decision; the bot answers through the API as the page has it do), keeps them all open, and
prints the decision latencies (client side, over loopback) and the server's resident memory
(VmRSS now, VmHWM its peak) from /proc. Only loopback addresses are used.

    scripts/web-measure.py --port 8137 --pid $! --games 20 --level strong --together

With --together it opens GAMES games in which the computer moves first, asks all their first
moves at once (the searches beyond the server's threads wait for a free core), and polls them
all as the page does until each has moved: it prints, per game and summed up, the time from the
ask to the move on the page, how long the game showed as queued and the search time after it,
the latency of the polls meanwhile, and the server's peak memory (VmHWM) sampled throughout.
"""
import argparse, json, statistics, time, urllib.request, urllib.error

def call(port, method, path, body=None):
    data = None if body is None else json.dumps(body).encode()
    req = urllib.request.Request(f"http://127.0.0.1:{port}{path}", data=data, method=method,
                                 headers={"Content-Type": "application/json"})
    with urllib.request.urlopen(req, timeout=300) as r:
        return json.loads(r.read())

def memory(pid):
    fields = {}
    with open(f"/proc/{pid}/status") as f:
        for line in f:
            key, _, value = line.partition(":")
            fields[key] = value.strip()
    return fields["VmRSS"], fields["VmHWM"]

def kb(value):
    return int(value.split()[0])

def together(a):
    """All games' first computer moves asked at once; see the module's description."""
    terrains = [t["key"] for t in call(a.port, "GET", "/api/meta")["terrains"]]
    ids = [call(a.port, "POST", "/api/games", {"terrain": terrains[i % len(terrains)],
                                                "level": a.level, "seed": i, "first": "bot"})["id"]
           for i in range(a.games)]
    asked, started, moved, polls, peak = {}, {}, {}, [], 0
    for gid in ids:
        asked[gid] = time.perf_counter()
        g = call(a.port, "POST", f"/api/games/{gid}/bot")
        if not g["thinking"].get("queued"):
            started[gid] = asked[gid]
    while len(moved) < len(ids):
        for gid in ids:
            if gid in moved:
                continue
            t = time.perf_counter()
            g = call(a.port, "GET", f"/api/games/{gid}")
            now = time.perf_counter()
            polls.append((now - t) * 1000)
            if g["thinking"] is None:
                moved[gid] = now
                started.setdefault(gid, now)
            elif not g["thinking"].get("queued"):
                started.setdefault(gid, now)
        peak = max(peak, kb(memory(a.pid)[1]))
        time.sleep(0.02)
    waits = [started[g] - asked[g] for g in ids]
    thinks = [moved[g] - started[g] for g in ids]
    answers = sorted(moved[g] - asked[g] for g in ids)
    polls.sort()
    print(f"games: {len(ids)} (level {a.level}), every first computer move asked at once")
    print("per game, s (ask to move / queued / searching): " + ", ".join(
        f"{answers_:.2f}/{w:.2f}/{s:.2f}" for answers_, w, s in
        zip((moved[g] - asked[g] for g in ids), waits, thinks)))
    print(f"ask to move, s: first {answers[0]:.2f}, median {statistics.median(answers):.2f}, "
          f"last {answers[-1]:.2f}; searching per game, s: median {statistics.median(thinks):.2f}, "
          f"max {max(thinks):.2f}")
    print(f"polls answered: {len(polls)}; latency ms: median {statistics.median(polls):.2f}, "
          f"p95 {polls[int(0.95 * (len(polls) - 1))]:.2f}, max {polls[-1]:.2f}")
    print(f"server memory: peak VmHWM {peak} kB")

def main():
    p = argparse.ArgumentParser()
    p.add_argument("--port", type=int, default=8137)
    p.add_argument("--pid", type=int, required=True)
    p.add_argument("--games", type=int, default=20)
    p.add_argument("--level", default="beginner")
    p.add_argument("--decisions", type=int, default=6)
    p.add_argument("--together", action="store_true",
                   help="ask every game's first computer move at once (see above)")
    a = p.parse_args()
    if a.together:
        return together(a)
    terrains = [t["key"] for t in call(a.port, "GET", "/api/meta")["terrains"]]
    latencies, ids = [], []
    for i in range(a.games):
        g = call(a.port, "POST", "/api/games",
                 {"terrain": terrains[i % len(terrains)], "level": a.level, "seed": i})
        gid = g["id"]
        ids.append(gid)
        decided = 0
        while decided < a.decisions and g["view"]["to_move"] != "over":
            if g["thinking"]:
                time.sleep(0.02)
                g = call(a.port, "GET", f"/api/games/{gid}")
            elif g["view"]["to_move"] in ("bot", "chance"):
                g = call(a.port, "POST", f"/api/games/{gid}/bot")
            else:
                d = g["legal"][0]["options"][0]["notation"]
                t = time.perf_counter()
                g = call(a.port, "POST", f"/api/games/{gid}/decision", {"decision": d})
                latencies.append((time.perf_counter() - t) * 1000)
                decided += 1
    still_open = sum(1 for gid in ids if call(a.port, "GET", f"/api/games/{gid}")["id"] == gid)
    rss, hwm = memory(a.pid)
    latencies.sort()
    print(f"games open: {still_open} (level {a.level})")
    print(f"decisions applied: {len(latencies)}; latency ms: median {statistics.median(latencies):.2f}, "
          f"p95 {latencies[int(0.95 * (len(latencies) - 1))]:.2f}, max {latencies[-1]:.2f}")
    print(f"server memory: VmRSS {rss}, peak VmHWM {hwm}")

if __name__ == "__main__":
    main()

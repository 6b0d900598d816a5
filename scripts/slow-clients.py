#!/usr/bin/env python3
"""Slow clients against a running `toybattle serve` on this machine (loopback only, bounded).

Opens N connections that never finish their request (half stop in their headers, half in their
body), then times a normal `GET /api/meta` while they stay open, and how long the server takes
to close the slow ones. Everything is bounded: at most 2,000 connections, each read waits at
most --wait seconds, and the script closes every connection before it ends.

    scripts/slow-clients.py --port 8137 --connections 300 --wait 30

Python standard library only. Prints one line of figures.
"""

import argparse
import socket
import time

HOST = "127.0.0.1"  # loopback only


def slow_connection(port, in_body):
    s = socket.create_connection((HOST, port), timeout=5)
    if in_body:
        start = (
            f"POST /api/replay HTTP/1.1\r\nHost: {HOST}:{port}\r\n"
            "Content-Type: application/json\r\nContent-Length: 100\r\n\r\n{\"format\":"
        )
    else:
        start = f"GET /api/meta HTTP/1.1\r\nHost: {HOST}:{port}\r\nX-Slow: "
    s.sendall(start.encode())
    return s


def normal_request(port, wait):
    """Seconds until a whole answer's status line arrived, or None after `wait` seconds."""
    began = time.monotonic()
    s = socket.create_connection((HOST, port), timeout=wait)
    try:
        s.settimeout(wait)
        s.sendall(f"GET /api/meta HTTP/1.1\r\nHost: {HOST}:{port}\r\nConnection: close\r\n\r\n".encode())
        first = s.recv(64)
        return time.monotonic() - began if first.startswith(b"HTTP/1.1 200") else None
    except OSError:
        return None
    finally:
        s.close()


def closed_within(conns, began, wait):
    """Seconds from `began` until the server had closed every connection, or None."""
    deadline = began + wait
    for s in conns:
        while True:
            left = deadline - time.monotonic()
            if left <= 0:
                return None
            s.settimeout(left)
            try:
                if not s.recv(4096):
                    break
            except ConnectionResetError:
                break
            except OSError:
                return None
    return time.monotonic() - began


def main():
    p = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    p.add_argument("--port", type=int, required=True)
    p.add_argument("--connections", type=int, default=300)
    p.add_argument("--wait", type=float, default=30.0)
    a = p.parse_args()
    n = max(0, min(a.connections, 2000))
    conns = []
    try:
        began = time.monotonic()
        conns = [slow_connection(a.port, k % 2 == 1) for k in range(n)]
        answered = normal_request(a.port, a.wait)
        closed = closed_within(conns, began, a.wait)
        show = lambda t: "none within %.0f s" % a.wait if t is None else "%.2f s" % t
        print(f"slow connections: {n}; normal request answered: {show(answered)}; "
              f"all slow connections closed by the server: {show(closed)}")
    finally:
        for s in conns:
            s.close()


if __name__ == "__main__":
    main()

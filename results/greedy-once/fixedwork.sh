#!/bin/sh
# usage: fixedwork.sh BINARY PRESET  -> total user CPU seconds of analysing every position once
B=$1; P=$2
/usr/bin/time -f "%U" sh -c "for f in positions/*.json; do $B analyze --position \$f --bot $P --json > /dev/null || exit 1; done" 2>&1 | tail -1

#!/usr/bin/env bash
# Builds the fuzz targets of fuzz/ and runs each for a while; fails if any finds a crash.
#
# Usage (as root on a fresh Debian machine with Rust, or anywhere cargo works), from anywhere:
#   scripts/ci-fuzz.sh [SECONDS_PER_TARGET]     (default 60)
#
# Installs cargo-fuzz from crates.io if missing. Runs on a stable toolchain without sanitizers
# (`-s none`): a panic, an out-of-bounds index or an overflow check is still a crash, since the
# targets are built with debug assertions. Each target starts from the committed seeds in
# fuzz/corpus/TARGET and adds what it finds there (ignored by git). A crash leaves its input in
# fuzz/artifacts/TARGET/; it is printed, and `cargo fuzz run -s none TARGET FILE` replays it.
set -euo pipefail

SECONDS_PER_TARGET=${1:-60}
ROOT=$(cd "$(dirname "$0")/.." && pwd)
cd "$ROOT"

if ! command -v cargo >/dev/null; then
  echo "ci-fuzz: cargo is needed (install Rust first)" >&2
  exit 2
fi
if ! cargo fuzz --version >/dev/null 2>&1; then
  # libFuzzer's C++ sources are compiled by the libfuzzer-sys build script.
  if command -v apt-get >/dev/null && ! command -v c++ >/dev/null; then
    apt-get update -qq && DEBIAN_FRONTEND=noninteractive apt-get install -y -qq build-essential
  fi
  cargo install cargo-fuzz --locked
fi

cargo fuzz build -s none
failed=()
for target in $(cargo fuzz list); do
  mkdir -p "fuzz/corpus/$target" "fuzz/artifacts/$target"
  echo "== $target: ${SECONDS_PER_TARGET}s"
  if ! cargo fuzz run -s none "$target" -- -max_total_time="$SECONDS_PER_TARGET" \
      -print_final_stats=1 2>"fuzz/artifacts/$target.log"; then
    failed+=("$target")
    tail -n 40 "fuzz/artifacts/$target.log"
    for artifact in "fuzz/artifacts/$target"/*; do
      [[ -e "$artifact" ]] || continue
      echo "-- crash input $artifact (base64):"
      base64 "$artifact"
    done
  else
    grep -E '^stat::number_of_executed_units|Done [0-9]+ runs' "fuzz/artifacts/$target.log" || true
  fi
done

if ((${#failed[@]})); then
  echo "ci-fuzz: crashes in: ${failed[*]}" >&2
  exit 1
fi
echo "ci-fuzz: every target ran ${SECONDS_PER_TARGET}s without a crash"

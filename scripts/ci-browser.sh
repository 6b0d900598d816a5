#!/usr/bin/env bash
# The real-browser test of the web page: headless Chromium, driven through WebDriver, plays a whole
# game against the `beginner` level by clicking and saves screenshots to target/tmp/web-browser-*.png.
# Works on a fresh Debian machine as root: installs Debian's chromium and chromium-driver when
# missing. Only loopback addresses are used (the test's server and chromedriver).
set -euo pipefail
cd "$(dirname "$0")/.."

if ! command -v chromium >/dev/null || ! command -v chromedriver >/dev/null; then
    export DEBIAN_FRONTEND=noninteractive
    apt-get update
    apt-get install -y --no-install-recommends chromium chromium-driver
fi

# --release: the same build as README's test command, not a second profile.
cargo test --release --test web_browser -- --ignored

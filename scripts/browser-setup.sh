#!/usr/bin/env bash
# Make a headless browser available for the HTML report's browser tests: Debian's chromium
# package (Playwright drives it as it is; no browser is ever downloaded from elsewhere).
#
# Idempotent: when chromium is on PATH it only says so. On failure it prints one line saying
# what could not be done and exits non-zero; `make test` ignores that, and the browser tests
# then skip with the reason.
#
# Environment: VWT_CHROMIUM (a chromium binary to use instead; the tests read it too).
set -euo pipefail

say() { echo "browser-setup: $*"; }
fail() {
    echo "browser-setup: $*" >&2
    exit 1
}

if [[ -n "${VWT_CHROMIUM:-}" ]]; then
    [[ -x "$VWT_CHROMIUM" ]] || fail "VWT_CHROMIUM=$VWT_CHROMIUM is not an executable"
    say "using $VWT_CHROMIUM"
    exit 0
fi
if command -v chromium >/dev/null 2>&1; then
    say "chromium present: $(chromium --version 2>/dev/null | head -1)"
    exit 0
fi
command -v apt-get >/dev/null 2>&1 || fail "no chromium and no apt-get: install chromium, or set VWT_CHROMIUM"
[[ $EUID -eq 0 ]] || fail "cannot install chromium: not root (run 'sudo apt-get install -y chromium' once)"
say "installing Debian's chromium (about a minute)"
export DEBIAN_FRONTEND=noninteractive
if ! apt-get install -y --no-install-recommends chromium >/var/log/vwt-browser-setup.log 2>&1; then
    apt-get update >>/var/log/vwt-browser-setup.log 2>&1 || true
    apt-get install -y --no-install-recommends chromium >>/var/log/vwt-browser-setup.log 2>&1 \
        || fail "apt-get install chromium failed (see /var/log/vwt-browser-setup.log)"
fi
say "chromium installed: $(chromium --version 2>/dev/null | head -1)"

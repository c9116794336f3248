#!/usr/bin/env bash
# Install the real third-party MCP servers the tests run against, at pinned versions, into
# .mcp-servers/ at the repository root (or $VWT_MCP_SERVERS): Node.js and npm from Debian's
# packages when missing, then each server with `npm install --prefix` from the npm registry.
# Tests run them as `node DIR/node_modules/<package>/<bin>`; nothing is fetched at test time.
#
# Idempotent: when every pinned version is present it only checks and exits. On failure it
# prints one line saying what could not be done and exits non-zero; `make test` ignores that,
# and the tests that need a server skip with the reason.
set -euo pipefail

ROOT="$(cd "$(dirname "${BASH_SOURCE[0]}")/.." && pwd)"
DIR="${VWT_MCP_SERVERS:-$ROOT/.mcp-servers}"
# package@version, one per server. Bump a version here to move the tests to it.
SERVERS=(
    "@modelcontextprotocol/server-filesystem@2026.8.31"
)
LOCK="/tmp/vwt-mcp-servers-setup.$EUID.lock"

say() { echo "mcp-servers-setup: $*"; }
fail() {
    echo "mcp-servers-setup: $*" >&2
    exit 1
}

installed_version() { # the version of package $1 under $DIR, or nothing
    local manifest="$DIR/node_modules/$1/package.json"
    [[ -f "$manifest" ]] && node -e 'console.log(require(process.argv[1]).version)' "$manifest"
}

missing() {
    local spec name version
    for spec in "${SERVERS[@]}"; do
        name="${spec%@*}"
        version="${spec##*@}"
        [[ "$(installed_version "$name" 2>/dev/null || true)" == "$version" ]] || echo "$spec"
    done
}

ensure_node() {
    command -v node >/dev/null && command -v npm >/dev/null && return 0
    [[ $EUID -eq 0 ]] || fail "node and npm are missing and this is not root (sudo apt-get install nodejs npm)"
    say "installing nodejs and npm with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null || fail "apt-get update failed; cannot install nodejs npm"
    apt-get install -y -qq nodejs npm >/dev/null || fail "apt-get install nodejs npm failed"
}

main() {
    ensure_node
    if [[ -z "$(missing)" ]]; then
        say "ready: ${SERVERS[*]} in $DIR"
        return 0
    fi
    exec 9>"$LOCK"
    flock -w 600 9 || fail "another mcp-servers-setup holds $LOCK"
    local todo
    todo=$(missing)
    if [[ -n "$todo" ]]; then
        mkdir -p "$DIR"
        say "installing $(echo "$todo" | xargs) into $DIR"
        # shellcheck disable=SC2086 # one word per package spec
        timeout 600 npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error $todo ||
            fail "npm install of $(echo "$todo" | xargs) failed"
    fi
    [[ -z "$(missing)" ]] || fail "still missing after the install: $(missing | xargs)"
    say "ready: ${SERVERS[*]} in $DIR"
}

main "$@"

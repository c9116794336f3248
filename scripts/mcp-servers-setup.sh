#!/usr/bin/env bash
# Install the real third-party MCP servers the tests run against, at pinned versions, into
# .mcp-servers/ at the repository root (or $VWT_MCP_SERVERS): Node.js and npm from Debian's
# packages when missing, then each server with `npm install --prefix` from the npm registry.
# Tests run them as `node DIR/node_modules/<package>/<bin>`; nothing is fetched at test time.
#
# Besides, each folder of scripts/mcp-servers/ (a package.json and its package-lock.json: a
# server release with its whole dependency tree pinned) is installed with `npm ci` into
# DIR/<folder>/; the task families written as folders name them as {servers}/<folder>/...
# (docs/folder-families.md). The file-operations family's two filesystem-server releases
# are installed this way.
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
PINNED="$ROOT/scripts/mcp-servers"

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

pinned_missing() { # the folders of $PINNED whose lock file is not the one installed in $DIR
    local src name
    for src in "$PINNED"/*/; do
        name=$(basename "$src")
        cmp -s "$src/package-lock.json" "$DIR/$name/package-lock.json" &&
            [[ -f "$DIR/$name/node_modules/.package-lock.json" ]] || echo "$name"
    done
}

install_pinned() { # npm ci of folder $1 of $PINNED into $DIR/$1
    local name=$1
    mkdir -p "$DIR/$name"
    cp "$PINNED/$name/package.json" "$PINNED/$name/package-lock.json" "$DIR/$name/"
    say "installing $name (npm ci of its lock file) into $DIR/$name"
    timeout 600 npm ci --prefix "$DIR/$name" --no-audit --no-fund --loglevel=error ||
        fail "npm ci of $name failed"
}

main() {
    ensure_node
    local ready="${SERVERS[*]} and $(ls "$PINNED" | xargs) in $DIR"
    if [[ -z "$(missing)" && -z "$(pinned_missing)" ]]; then
        say "ready: $ready"
        return 0
    fi
    exec 9>"$LOCK"
    flock -w 600 9 || fail "another mcp-servers-setup holds $LOCK"
    local todo name
    todo=$(missing)
    if [[ -n "$todo" ]]; then
        mkdir -p "$DIR"
        say "installing $(echo "$todo" | xargs) into $DIR"
        # shellcheck disable=SC2086 # one word per package spec
        timeout 600 npm install --prefix "$DIR" --no-audit --no-fund --loglevel=error $todo ||
            fail "npm install of $(echo "$todo" | xargs) failed"
    fi
    for name in $(pinned_missing); do
        install_pinned "$name"
    done
    [[ -z "$(missing)" ]] || fail "still missing after the install: $(missing | xargs)"
    [[ -z "$(pinned_missing)" ]] || fail "still missing after the install: $(pinned_missing | xargs)"
    say "ready: $ready"
}

main "$@"

#!/usr/bin/env bash
# Installs each framework harness (docs/harnesses.md) into an environment of its own, not vwt's:
# DIR/<harness id>/ for every scripts/frameworks/<harness id>.txt, where DIR is $VWT_FRAMEWORKS
# or .frameworks at the repository's root. Each list pins every distribution; they install
# with --no-deps from PyPI (the only network this needs) and are checked with `pip check`.
#
# Idempotent: an environment whose list is unchanged since it was installed is left alone.
# On failure it prints one line per framework that could not be installed (the reason is also
# kept in DIR/<harness id>.failed, which the tests that need it quote when they skip) and
# exits 1; the other frameworks are still installed.
set -u
ROOT=$(cd "$(dirname "$0")/.." && pwd)
DEST=${VWT_FRAMEWORKS:-$ROOT/.frameworks}
PY=${VWT_FRAMEWORKS_PYTHON:-python3}
mkdir -p "$DEST" || { echo "frameworks-setup: cannot create $DEST" >&2; exit 1; }
status=0
for list in "$ROOT"/scripts/frameworks/*.txt; do
    id=$(basename "$list" .txt)
    env="$DEST/$id"
    if [ -x "$env/bin/python" ] && cmp -s "$list" "$env/.vwt-requirements"; then
        continue
    fi
    rm -rf "$env" "$DEST/$id.failed"
    log=$(
        {
            "$PY" -m venv "$env" &&
                "$env/bin/python" -m pip install --quiet --disable-pip-version-check \
                    --no-deps --no-input -r "$list" &&
                "$env/bin/python" -m pip check --disable-pip-version-check
        } 2>&1
    )
    if [ $? -eq 0 ]; then
        cp "$list" "$env/.vwt-requirements"
        echo "frameworks-setup: installed $id in $env"
    else
        reason=$(printf '%s\n' "$log" | grep -v '^WARNING' | grep -v '^\s*$' | tail -n 1)
        printf '%s\n' "$log" > "$DEST/$id.failed"
        rm -rf "$env"
        echo "frameworks-setup: could not install $id (${reason:-unknown error}); its tests skip" >&2
        status=1
    fi
done
exit $status

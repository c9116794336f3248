#!/usr/bin/env bash
# Make the Docker sandbox usable: the engine installed and answering, and the image
# vwt-sandbox:bookworm (Debian minbase + python3 and nodejs, run as nobody 65534:65534 by default, with
# the repository's scripts/sandbox-image/ at /opt/vwt/ and the MCP SDK of
# scripts/sandbox-site.txt with its dependencies at /opt/vwt-site/) built locally. Never pulls
# from a Docker registry; the SDK's wheels come from PyPI through the host's pip.
#
# Two steps: a base image (debootstrap, about a minute) and the image itself, the base plus
# /opt/vwt and /opt/vwt-site (seconds, plus the wheels' download). The image's recipe id
# includes digests of scripts/sandbox-image/ and scripts/sandbox-site.txt, so a change there
# rebuilds only the second step.
#
# Idempotent: when everything is present it only asks the engine two questions and exits.
# On failure it prints one line saying what could not be done and exits non-zero; `make test`
# ignores that, and the Docker tests then skip with the reason.
#
# Environment: VWT_SANDBOX_IMAGE (image name), VWT_DEBIAN_MIRROR (debootstrap mirror),
# VWT_DOCKERD_LOG (where a dockerd started here logs), VWT_PIP_PYTHON (the interpreter whose
# pip downloads the SDK's wheels; default python3; the Makefile passes its venv's).
set -euo pipefail

IMAGE="${VWT_SANDBOX_IMAGE:-vwt-sandbox:bookworm}"
BASE_IMAGE="$IMAGE-base"
# Bump when build_base changes, so existing base images are rebuilt.
BASE_RECIPE=3
# Bump when build_image changes.
LAYER_RECIPE=4
OPT_SOURCE="$(cd "$(dirname "${BASH_SOURCE[0]}")" && pwd)/sandbox-image"
OPT_TARGET=/opt/vwt
SITE_REQUIREMENTS="$(dirname "$OPT_SOURCE")/sandbox-site.txt"
SITE_TARGET=/opt/vwt-site
# The image's interpreter (Debian bookworm's python3), for which the wheels are chosen.
SITE_PYTHON_VERSION=3.11
PIP_PYTHON="${VWT_PIP_PYTHON:-python3}"
SUITE=bookworm
DOCKERD_LOG="${VWT_DOCKERD_LOG:-/var/log/vwt-dockerd.log}"
BUILD_LOG=/var/log/vwt-sandbox-build.log
LOCK="/tmp/vwt-sandbox-setup.$EUID.lock"
DAEMON_WAIT_S=60

say() { echo "sandbox-setup: $*"; }
fail() {
    echo "sandbox-setup: $*" >&2
    exit 1
}

need_root() {
    [[ $EUID -eq 0 ]] || fail "cannot $1: not root (run 'sudo make sandbox' once, then retry)"
}

engine_answers() { timeout 15 docker info >/dev/null 2>&1; }

recipe_of() {
    timeout 15 docker image inspect --format '{{ index .Config.Labels "org.vwt.sandbox.recipe" }}' \
        "$1" 2>/dev/null || true
}

# The content of scripts/sandbox-image/ (paths and bytes; caches excluded), as 16 hex digits.
opt_digest() {
    [[ -d "$OPT_SOURCE" ]] || fail "$OPT_SOURCE is missing"
    (cd "$OPT_SOURCE" && find . -name __pycache__ -prune -o -type f -print0 |
        LC_ALL=C sort -z | xargs -0 -r sha256sum) | sha256sum | cut -c1-16
}

site_digest() {
    [[ -f "$SITE_REQUIREMENTS" ]] || fail "$SITE_REQUIREMENTS is missing"
    sha256sum <"$SITE_REQUIREMENTS" | cut -c1-16
}

# The SDK and its dependencies, as wheels for the image's CPython on this machine's
# architecture (glibc wheels up to bookworm's 2.36), unpacked into directory $1.
download_site() {
    local dir=$1 arch platforms=()
    arch=$(uname -m)
    for tag in manylinux2014 manylinux_2_17 manylinux_2_28 manylinux_2_34; do
        platforms+=(--platform "${tag}_$arch")
    done
    say "installing $(grep -v '^#' "$SITE_REQUIREMENTS" | xargs) for CPython $SITE_PYTHON_VERSION into $SITE_TARGET"
    "$PIP_PYTHON" -m pip install --quiet --no-compile --disable-pip-version-check --target "$dir" \
        --only-binary=:all: --implementation cp --python-version "$SITE_PYTHON_VERSION" \
        "${platforms[@]}" -r "$SITE_REQUIREMENTS" >>"$BUILD_LOG" 2>&1 ||
        fail "pip could not fetch the MCP SDK's wheels (see $BUILD_LOG); is PyPI reachable?"
}

apt_install() {
    need_root "install $*"
    say "installing $* with apt-get"
    export DEBIAN_FRONTEND=noninteractive
    apt-get update -qq >/dev/null || fail "apt-get update failed; cannot install $*"
    apt-get install -y -qq "$@" >/dev/null || fail "apt-get install $* failed"
}

ensure_engine() {
    if ! command -v docker >/dev/null || ! command -v dockerd >/dev/null; then
        apt_install docker.io
    fi
    engine_answers && return 0
    local answer
    answer=$(timeout 15 docker info 2>&1 || true)
    if [[ $EUID -ne 0 && "$answer" == *"permission denied"* ]]; then
        fail "cannot reach the Docker engine as $(id -un): permission denied on its socket" \
            "(add the user to the docker group, or run as root)"
    fi
    need_root "start dockerd"
    say "starting dockerd in the background (log: $DOCKERD_LOG)"
    # fd 9 holds the setup lock; the daemon must not keep it.
    setsid dockerd >>"$DOCKERD_LOG" 2>&1 </dev/null 9>&- &
    local waited=0
    until engine_answers; do
        ((waited < DAEMON_WAIT_S)) ||
            fail "dockerd did not answer within ${DAEMON_WAIT_S}s; see $DOCKERD_LOG"
        sleep 1
        waited=$((waited + 1))
    done
    say "dockerd is up after ${waited}s"
}

debian_mirror() {
    if [[ -n "${VWT_DEBIAN_MIRROR:-}" ]]; then
        echo "$VWT_DEBIAN_MIRROR"
        return
    fi
    # Use the mirror apt already reaches (deb822 first, then one-line format).
    local uri
    uri=$(grep -hs '^URIs:' /etc/apt/sources.list.d/*.sources | awk '{print $2}' |
        grep -v security | head -n1 || true)
    [[ -n "$uri" ]] || uri=$(grep -hs '^deb ' /etc/apt/sources.list | awk '{print $2}' |
        grep -v security | head -n1 || true)
    echo "${uri:-http://deb.debian.org/debian}"
}

build_base() {
    need_root "build $BASE_IMAGE (debootstrap needs root)"
    command -v debootstrap >/dev/null || apt_install debootstrap
    local root mirror
    root=$(mktemp -d /var/tmp/vwt-sandbox-rootfs.XXXXXX)
    trap 'rm -rf "$root"' EXIT
    mirror=$(debian_mirror)
    say "building $BASE_IMAGE: debootstrap minbase+python3+nodejs from $mirror (about a minute; log: $BUILD_LOG)"
    timeout 1200 debootstrap --variant=minbase --include=python3,nodejs "$SUITE" "$root" "$mirror" \
        >"$BUILD_LOG" 2>&1 || fail "debootstrap failed ($(tail -n1 "$BUILD_LOG")); see $BUILD_LOG"
    # Package caches are build leftovers, not part of the sandbox.
    rm -rf "$root"/var/cache/apt/archives/*.deb "$root"/var/lib/apt/lists/*
    tar --numeric-owner -C "$root" -c . |
        docker import \
            --change 'ENV PATH=/usr/local/sbin:/usr/local/bin:/usr/sbin:/usr/bin:/sbin:/bin' \
            --change 'ENV LANG=C.UTF-8' \
            --change 'USER 65534:65534' \
            --change "LABEL org.vwt.sandbox.recipe=$BASE_RECIPE" \
            --change 'CMD ["sleep", "infinity"]' \
            - "$BASE_IMAGE" >>"$BUILD_LOG" 2>&1 || fail "docker import failed; see $BUILD_LOG"
    rm -rf "$root"
    trap - EXIT
    say "built $BASE_IMAGE"
}

# The base plus scripts/sandbox-image/ at /opt/vwt/ and the SDK at /opt/vwt-site/, both
# byte-compiled by the image's python3: root-owned,
# directories 0755 and files 0644 (0755 if executable), so the sandbox user reads but never
# changes them.
build_image() {
    local recipe=$1 container previous site node_version
    previous=$(docker image inspect --format '{{.Id}}' "$IMAGE" 2>/dev/null || true)
    site=$(mktemp -d /var/tmp/vwt-sandbox-site.XXXXXX)
    trap 'rm -rf "$site"' EXIT
    download_site "$site/$(basename "$SITE_TARGET")"
    say "building $IMAGE: $BASE_IMAGE + $OPT_SOURCE at $OPT_TARGET + the SDK at $SITE_TARGET"
    container=$(docker create --network none "$BASE_IMAGE") || fail "docker create $BASE_IMAGE failed"
    trap 'docker rm --force "$container" >/dev/null 2>&1; rm -rf "$site"' EXIT
    tar -C "$(dirname "$OPT_SOURCE")" --exclude=__pycache__ --owner=0 --group=0 \
        --numeric-owner --mode='u=rwX,go=rX,u-s,g-s' \
        --transform "s,^$(basename "$OPT_SOURCE"),$(basename "$OPT_TARGET")," \
        -c "$(basename "$OPT_SOURCE")" |
        docker cp - "$container:$(dirname "$OPT_TARGET")" ||
        fail "could not copy $OPT_SOURCE into $IMAGE"
    tar -C "$site" --exclude=__pycache__ --owner=0 --group=0 --numeric-owner \
        --mode='u=rwX,go=rX,u-s,g-s' -c "$(basename "$SITE_TARGET")" |
        docker cp - "$container:$(dirname "$SITE_TARGET")" ||
        fail "could not copy the MCP SDK into $IMAGE"
    # Byte-compiled by the image's own interpreter, in place: the sandbox user cannot write
    # __pycache__ there, so without them every server start in a container compiled the SDK
    # again (1.1 s of each batch's start, against 0.6 s with them: bench/sandbox_startup.py).
    docker start "$container" >/dev/null || fail "could not start a container of $BASE_IMAGE"
    docker exec --user 0:0 "$container" python3 -m compileall -q -j 0 "$OPT_TARGET" "$SITE_TARGET" \
        >>"$BUILD_LOG" 2>&1 || fail "could not byte-compile $OPT_TARGET and $SITE_TARGET (see $BUILD_LOG)"
    docker stop --time 1 "$container" >/dev/null || fail "could not stop the build container"
    node_version=$(timeout 60 docker run --rm --network none "$BASE_IMAGE" node --version 2>/dev/null || true)
    docker commit \
        --change "ENV VWT_SANDBOX_OPT=$OPT_TARGET" \
        --change "LABEL org.vwt.sandbox.node=$node_version" \
        --change "LABEL org.vwt.sandbox.recipe=$recipe" \
        --change "LABEL org.vwt.sandbox.mcp=$(grep -v '^#' "$SITE_REQUIREMENTS" | xargs)" \
        "$container" "$IMAGE" >/dev/null || fail "docker commit of $IMAGE failed"
    docker rm --force "$container" >/dev/null
    rm -rf "$site"
    trap - EXIT
    # The image this one replaces, once untagged, is a leftover (unless a container uses it).
    if [[ -n "$previous" && "$(docker image inspect --format '{{len .RepoTags}}' "$previous" 2>/dev/null)" == 0 ]]; then
        docker image rm "$previous" >/dev/null 2>&1 || true
    fi
    say "built $IMAGE"
}

main() {
    local recipe
    recipe="$BASE_RECIPE.$LAYER_RECIPE-$(opt_digest)-$(site_digest)"
    if engine_answers && [[ "$(recipe_of "$IMAGE")" == "$recipe" ]]; then
        say "ready: engine answers, image $IMAGE present"
        return 0
    fi
    # Two concurrent `make test` runs must not build the image twice.
    exec 9>"$LOCK"
    flock -w 1800 9 || fail "another sandbox-setup holds $LOCK"
    ensure_engine
    if [[ "$(recipe_of "$IMAGE")" == "$recipe" ]]; then
        say "ready: engine answers, image $IMAGE present"
        return 0
    fi
    if [[ "$(recipe_of "$BASE_IMAGE")" != "$BASE_RECIPE" && "$(recipe_of "$IMAGE")" == "$BASE_RECIPE" ]]; then
        # An image of the earlier one-step recipe is exactly this base.
        docker tag "$IMAGE" "$BASE_IMAGE" || fail "docker tag $IMAGE $BASE_IMAGE failed"
    fi
    [[ "$(recipe_of "$BASE_IMAGE")" == "$BASE_RECIPE" ]] || build_base
    [[ "$(recipe_of "$BASE_IMAGE")" == "$BASE_RECIPE" ]] || fail "$BASE_IMAGE missing after the build"
    build_image "$recipe"
    [[ "$(recipe_of "$IMAGE")" == "$recipe" ]] || fail "image $IMAGE missing after the build"
    say "ready: engine answers, image $IMAGE present"
}

main "$@"

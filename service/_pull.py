"""Pulling a published release from the service: the files it names, checked, moved in at once.

The service lists the release's files (``GET /api/v1/release/files``: path, size, SHA-256)
and serves each at ``/release/<path>``. Both sides derive the set of files from the release
itself (:func:`release_names`): ``release.json``, the files it pins (commitment, reveal,
trials, artifacts, interface files), the trace of every trial, and the optional
``report.html``. The puller trusts none of the answers: every path must be a plain relative
one, counts and sizes are capped, each download must have the listed size and SHA-256, and
the listing must name exactly the release's files. Everything is written to a temporary
directory beside the target, which is renamed into place only when complete; ``vwt report
verify`` then checks the release itself.
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import re
import shutil
import tempfile
import time
from collections.abc import Callable
from pathlib import Path
from typing import NoReturn, Protocol, TypeVar

from pydantic import BaseModel, ConfigDict, Field

from drift import capped_bytes
from reports import (
    ARTIFACTS_DIR,
    CALLS_DIR,
    INTERFACES_DIR,
    MAX_CALLS_BYTES,
    MAX_TRACE_BYTES,
    MAX_TRIALS_BYTES,
    RELEASE_FILE,
    REPORT_FILE,
    TRACES_DIR,
    ReportError,
    calls_name,
    read_release,
    trace_name,
)
from service.errors import ServiceError
from submissions import shown

MAX_PULL_FILES = 200_000
"""Most files a listing may name."""
MAX_PULL_BYTES = 16 << 30
"""Most bytes a listing may add up to."""
RETRIES = 7
"""Rate-limited (429) answers in a row a call waits through (1, 2, 4 … s) before failing."""
_PART = re.compile(r"[A-Za-z0-9_@+-][A-Za-z0-9._@+-]{0,199}")
_SHA256 = re.compile(r"[0-9a-f]{64}")
_DIRS = (TRACES_DIR, CALLS_DIR, ARTIFACTS_DIR, INTERFACES_DIR)
_BAD = "bad_response"
T = TypeVar("T")


class ReleaseFile(BaseModel):
    """One published file of a release, as the service lists it."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str = Field(description="Path relative to the release directory, '/'-separated.")
    size: int = Field(ge=0, description="Size in bytes.")
    sha256: str = Field(description="SHA-256 of the file's bytes, lower-case hex.")


class ReleaseSource(Protocol):
    """Where a release is pulled from (``service.ServiceClient`` is one): its listing and files."""

    def release_files(self) -> list[ReleaseFile]:
        """The published release's files."""

    def release_file(self, path: str, max_bytes: int) -> bytes:
        """The bytes of the file at ``path`` (at most ``max_bytes``)."""


class PulledRelease(BaseModel):
    """What a pull wrote."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: Path = Field(description="The release directory written.")
    cycle: str = Field(description="The release's cycle id (not verified).")
    files: int = Field(description="Files written.")
    bytes: int = Field(description="Bytes written.")


def _plain(name: str) -> bool:
    return name not in ("", ".", "..") and Path(name).name == name


def release_names(folder: Path) -> list[str]:
    """The files the release in ``folder`` names, sorted: ``release.json``, the commitment,
    reveal and trials it pins, its artifacts and interface files, and the trace and model
    calls of every trial in its trials file (``report.html`` is optional and not among them).
    Reads only ``release.json`` and the trials file; checks nothing ``vwt report verify``
    does."""
    r = read_release(folder).release
    refs = (r.commitment, r.reveal, r.trials)
    if not all(_plain(ref.name) for ref in refs):
        raise ReportError(
            "the release names its commitment, reveal or trials file by a path, not a plain "
            "file name",
            "get the release from its operator",
        )
    data, problem = capped_bytes(folder / r.trials.name, MAX_TRIALS_BYTES)
    if problem is not None:
        raise ReportError(f"the release's trials file cannot be read: it {problem}", None)
    traces = set()
    for i, line in enumerate(data.splitlines(), start=1):
        try:
            record = json.loads(line)
            sha, calls = record.get("trace_sha256"), record.get("calls_sha256")
        except (ValueError, AttributeError):
            sha, calls = None, None
        if not isinstance(sha, str) or not _SHA256.fullmatch(sha):
            raise ReportError(
                f"trial record on line {i} of the trials file names no trace",
                "get the release from its operator",
            )
        traces.add(trace_name(sha))
        if isinstance(calls, str) and _SHA256.fullmatch(calls):
            traces.add(calls_name(calls))
    pinned = [ref.name for ref in (*refs, *r.artifacts, *r.interface_files)]
    return sorted({RELEASE_FILE, *pinned, *traces})


@functools.lru_cache(maxsize=4096)
def _digest(path: Path, size: int, mtime_ns: int, inode: int) -> str:
    """SHA-256 of the file at ``path``, cached while its size, mtime and inode stay."""
    digest = hashlib.sha256()
    with open(path, "rb") as f:
        while chunk := f.read(1 << 20):
            digest.update(chunk)
    return digest.hexdigest()


def file_entry(name: str, path: Path) -> ReleaseFile:
    """The listing entry of the published file ``path``, served as ``name`` (its hash is
    cached while the file's size, mtime and inode stay the same)."""
    st = path.stat()
    return ReleaseFile(
        path=name, size=st.st_size, sha256=_digest(path, st.st_size, st.st_mtime_ns, st.st_ino)
    )


def _refused(
    message: str, hint: str = "nothing was written; tell the service's operator"
) -> NoReturn:
    raise ServiceError(message, hint, code=_BAD)


def _safe(entry: ReleaseFile) -> bool:
    parts = entry.path.split("/")
    return (
        len(parts) <= 2
        and all(_PART.fullmatch(p) for p in parts)
        and (len(parts) == 1 or parts[0] in _DIRS)
    )


def _cap(path: str) -> int:
    if "/" not in path:
        return MAX_TRIALS_BYTES
    return MAX_CALLS_BYTES if path.startswith(f"{CALLS_DIR}/") else MAX_TRACE_BYTES


def checked_listing(listing: list[ReleaseFile]) -> dict[str, ReleaseFile]:
    """The listing by path, after the checks every listing must pass: at most
    :data:`MAX_PULL_FILES` files of at most :data:`MAX_PULL_BYTES` in all, each a plain
    relative path (a name, or one under traces/, artifacts/, interfaces/) named once, within
    its size cap, with a SHA-256; ServiceError otherwise."""
    if len(listing) > MAX_PULL_FILES:
        _refused(f"the service lists {len(listing):,} release files, over {MAX_PULL_FILES:,}")
    if sum(e.size for e in listing) > MAX_PULL_BYTES:
        _refused(f"the service's release files add up to over {MAX_PULL_BYTES:,} bytes")
    files: dict[str, ReleaseFile] = {}
    for e in listing:
        if not _safe(e):
            _refused(f"the service lists the release file {shown(e.path)!r}, not a plain path")
        if e.path in files:
            _refused(f"the service lists the release file {e.path} twice")
        if e.size > _cap(e.path) or not _SHA256.fullmatch(e.sha256):
            _refused(f"the service lists {e.path} with a size over its cap or a malformed hash")
        files[e.path] = e
    return files


def _patiently(call: Callable[[], T]) -> T:
    """``call()``, waiting through rate limits: after a 429 answer, wait 1, 2, 4 … s and try
    again, at most :data:`RETRIES` times."""
    for attempt in range(RETRIES):
        try:
            return call()
        except ServiceError as e:
            if e.status != 429:
                raise
            time.sleep(2**attempt)
    return call()


def _fetch(client: ReleaseSource, entry: ReleaseFile, folder: Path) -> None:
    """Download ``entry`` into ``folder``, waiting through rate limits; its size and SHA-256
    must be the listed ones."""
    data = _patiently(lambda: client.release_file(entry.path, entry.size))
    digest = hashlib.sha256(data).hexdigest()
    if len(data) != entry.size or digest != entry.sha256:
        _refused(
            f"the service's {entry.path} is not the file it lists ({len(data):,} bytes, SHA-256 "
            f"{digest[:16]}…; listed {entry.size:,} bytes, {entry.sha256[:16]}…)"
        )
    path = folder.joinpath(*entry.path.split("/"))
    path.parent.mkdir(exist_ok=True)
    path.write_bytes(data)


def _check_target(out: Path) -> None:
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ServiceError(
            f"{shown(str(out))} exists and is not an empty directory", "pass a new --out directory"
        )
    if not out.absolute().parent.is_dir():
        raise ServiceError(
            f"{shown(str(out.absolute().parent))} is not a directory",
            "create it first, or pass --out inside an existing directory",
        )


def _files(paths: list[str]) -> str:
    return f"{len(paths)} file" + ("s" if len(paths) != 1 else "")


def _fetch_listed(
    client: ReleaseSource, files: dict[str, ReleaseFile], name: str, tmp: Path
) -> None:
    if name not in files:
        _refused(f"the service does not list the release's {shown(name)}")
    _fetch(client, files[name], tmp)


def _pull_into(client: ReleaseSource, files: dict[str, ReleaseFile], tmp: Path) -> str:
    """Download the release into ``tmp``: release.json and its trials first, then, once the
    listing is found to name exactly the release's files, the rest; the release's cycle."""
    _fetch_listed(client, files, RELEASE_FILE, tmp)
    release = read_release(tmp).release
    _fetch_listed(client, files, release.trials.name, tmp)
    names = set(release_names(tmp))
    listed = set(files) - {REPORT_FILE}
    if missing := sorted(names - listed):
        _refused(f"the service does not list {_files(missing)} the release names: {missing[0]}…")
    if extra := sorted(listed - names):
        _refused(f"the service lists {_files(extra)} the release does not name: {extra[0]}…")
    for name in sorted(set(files) - {RELEASE_FILE, release.trials.name}):
        _fetch(client, files[name], tmp)
    return release.cycle


def pull_release(client: ReleaseSource, out: Path) -> PulledRelease:
    """Download the cycle's published release from ``client``'s service into the new
    directory ``out`` (absent or empty), checked as the module says; nothing is left behind
    if it fails. Verify it with ``vwt report verify``."""
    _check_target(out)
    files = checked_listing(_patiently(client.release_files))
    tmp = Path(tempfile.mkdtemp(prefix=f".{out.absolute().name}.pull-", dir=out.absolute().parent))
    try:
        try:
            cycle = _pull_into(client, files, tmp)
        except ReportError as e:
            _refused(
                f"the service's release cannot be read: {str(e).replace(f'{tmp}{os.sep}', '')}"
            )
        _check_target(out)
        tmp.chmod(0o755)  # made private; a release is public
        os.replace(tmp, out)
    except BaseException:
        shutil.rmtree(tmp, ignore_errors=True)
        raise
    return PulledRelease(
        path=out, cycle=cycle, files=len(files), bytes=sum(e.size for e in files.values())
    )

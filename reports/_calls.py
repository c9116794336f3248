"""Published call records: each released trial's model calls, for replay by anyone.

``calls/<sha256>.json.gz`` next to ``release.json``, named by the trial record's
``calls_sha256``, is gzip (no time stamp) of the JSON object ``{"v": 1, "document": D,
"blobs": {hash: B, …}}``: ``D`` is the exact text of the trial's call document
(``benchmark.CallDocument``), whose SHA-256 is the file's name, and each ``B`` the exact text of
a blob it names (a message, a tool list), whose SHA-256 is its key. So every file stands alone
and is checked by hashing what it holds; a system prompt or tool list shared by many trials is
repeated in each of their files (and compressed there), not stored once as in the trial store.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import zlib
from collections.abc import Callable, Iterable
from pathlib import Path
from typing import Any

from pydantic import ValidationError

from benchmark import CallDocument, ReplayCall, canonical, expand
from drift import capped_bytes
from reports.errors import ReportError
from runner import TrialRecord

CALLS_DIR = "calls"
"""Directory of the published call records, next to ``release.json``."""
CALLS_FORMAT = 1
"""Format version of a published call file."""
MAX_CALLS_BYTES = 64 * 1024 * 1024
"""Largest call file read, compressed or not (larger is refused)."""

_SHA256 = re.compile(r"[0-9a-f]{64}")
_REPUBLISH = "get the release's calls/ directory exactly as the operator published it"


def calls_name(sha256: str) -> str:
    """The published call file's path, relative to the release directory."""
    return f"{CALLS_DIR}/{sha256}.json.gz"


def call_file(sha256: str, blob_of: Callable[[str], bytes | None]) -> bytes | None:
    """The published file of call document ``sha256`` (reproducible bytes), from the blobs
    ``blob_of`` gives by hash; None if the document or one of its blobs is missing."""
    document = blob_of(sha256)
    if document is None:
        return None
    blobs = {}
    for h in sorted(CallDocument.model_validate_json(document).blob_hashes()):
        blob = blob_of(h)
        if blob is None:
            return None
        blobs[h] = blob.decode()
    body = {"v": CALLS_FORMAT, "document": document.decode(), "blobs": blobs}
    return gzip.compress(canonical(body), compresslevel=9, mtime=0)


def _unpacked(path: Path) -> bytes:
    packed, problem = capped_bytes(path, MAX_CALLS_BYTES)
    if problem is not None:
        raise ReportError(f"call file {path} cannot be read: it {problem}", _REPUBLISH)
    try:
        reader = zlib.decompressobj(wbits=31)  # gzip framing
        data = reader.decompress(packed, MAX_CALLS_BYTES + 1)
        complete = reader.eof and not reader.unconsumed_tail
    except zlib.error as e:
        raise ReportError(f"call file {path} is not gzip data ({e})", _REPUBLISH) from None
    if len(data) > MAX_CALLS_BYTES or not complete:
        raise ReportError(
            f"call file {path} is truncated or over {MAX_CALLS_BYTES:,} bytes", _REPUBLISH
        )
    return data


def _checked(text: Any, sha256: str, what: str, path: Path) -> Any:
    if not isinstance(text, str) or hashlib.sha256(text.encode()).hexdigest() != sha256:
        raise ReportError(f"call file {path}: {what} does not hash to {sha256[:16]}…", _REPUBLISH)
    try:
        return json.loads(text)
    except (ValueError, RecursionError) as e:
        raise ReportError(f"call file {path}: {what} is not JSON ({e})", _REPUBLISH) from None


def read_calls(release_dir: Path, sha256: str) -> tuple[ReplayCall, ...]:
    """The model calls of published call file ``sha256``, every hash checked.

    Raises ReportError if the file is missing, not gzip, too large, malformed, or holds a
    document or blob that does not hash to its name."""
    if not _SHA256.fullmatch(sha256):
        raise ReportError(f"{sha256!r} is not a call record hash", "64 lower-case hex characters")
    folder = release_dir if release_dir.is_dir() else release_dir.parent
    path = folder / calls_name(sha256)
    try:
        body = json.loads(_unpacked(path))
    except (ValueError, RecursionError) as e:
        raise ReportError(f"call file {path} is not JSON ({e})", _REPUBLISH) from None
    if not isinstance(body, dict) or body.get("v") != CALLS_FORMAT:
        raise ReportError(f"call file {path} is not a v{CALLS_FORMAT} call file", _REPUBLISH)
    blobs = body.get("blobs")
    if not isinstance(blobs, dict):
        raise ReportError(f"call file {path} has no blobs", _REPUBLISH)
    try:
        document = CallDocument.model_validate(
            _checked(body.get("document"), sha256, "the call document", path)
        )
    except ValidationError as e:
        problem = e.errors()[0]["msg"]
        raise ReportError(f"call file {path}: malformed document ({problem})", _REPUBLISH) from None
    values = {}
    for h in document.blob_hashes():
        if h not in blobs:
            raise ReportError(f"call file {path} lacks blob {h[:16]}…", _REPUBLISH)
        values[h] = _checked(blobs[h], h, f"blob {h[:16]}…", path)
    try:
        return expand(document, values)
    except ValidationError as e:
        problem = e.errors()[0]["msg"]
        raise ReportError(f"call file {path}: malformed call ({problem})", _REPUBLISH) from None


def check_calls(folder: Path, records: Iterable[TrialRecord]) -> int:
    """Every record's call file (where the record pins one) is published and checks out;
    returns how many distinct files were read."""
    first: dict[str, str] = {}
    for r in records:
        if r.calls_sha256 is not None:
            first.setdefault(r.calls_sha256, r.key)
    for sha, key in sorted(first.items()):
        try:
            read_calls(folder, sha)
        except ReportError as e:
            raise ReportError(f"trial {key[:12]}…: {e}", e.hint) from None
    return len(first)

"""Published traces: each trial's messages, gzip-compressed, named by the SHA-256 its record pins.

``traces/<sha256>.json.gz`` next to ``release.json`` holds the exact trace bytes (the messages
JSON) whose SHA-256 is a trial record's ``trace_sha256``, compressed deterministically (gzip
without a time stamp or a file name): the same trace always makes the same file, and one file
serves every trial with that trace.
"""

from __future__ import annotations

import gzip
import hashlib
import json
import re
import zlib
from pathlib import Path
from typing import Any

from drift import capped_bytes
from reports.errors import ReportError

TRACES_DIR = "traces"
"""Directory of the published traces, next to ``release.json``."""
MAX_TRACE_BYTES = 64 * 1024 * 1024
"""Largest trace read, compressed or not (larger is refused)."""

_SHA256 = re.compile(r"[0-9a-f]{64}")
_REPUBLISH = "get the release's traces/ directory exactly as the operator published it"


def trace_name(sha256: str) -> str:
    """The published trace's path, relative to the release directory."""
    return f"{TRACES_DIR}/{sha256}.json.gz"


def compress_trace(trace: bytes) -> bytes:
    """``trace`` as published: gzip with no time stamp or name, so the bytes are reproducible."""
    return gzip.compress(trace, compresslevel=9, mtime=0)


def _release_dir(path: Path) -> Path:
    return path if path.is_dir() else path.parent


def trace_bytes(release_dir: Path, sha256: str) -> bytes:
    """The exact trace bytes with this SHA-256, from the release's ``traces/``, verified.

    ``release_dir`` is the release's directory (or its ``release.json``). Raises ReportError if
    the trace is missing, not gzip, too large, or does not hash to ``sha256``.
    """
    if not _SHA256.fullmatch(sha256):
        raise ReportError(
            f"{sha256!r} is not a trace hash", "a trace hash is 64 lower-case hex characters"
        )
    path = _release_dir(release_dir) / trace_name(sha256)
    packed, problem = capped_bytes(path, MAX_TRACE_BYTES)
    if problem is not None:
        raise ReportError(f"trace {path} cannot be read: it {problem}", _REPUBLISH)
    try:
        reader = zlib.decompressobj(wbits=31)  # gzip framing
        data = reader.decompress(packed, MAX_TRACE_BYTES + 1)
        complete = reader.eof and not reader.unconsumed_tail
    except zlib.error as e:
        raise ReportError(f"trace {path} is not gzip data ({e})", _REPUBLISH) from None
    if len(data) > MAX_TRACE_BYTES:
        raise ReportError(
            f"trace {path} holds over {MAX_TRACE_BYTES:,} bytes uncompressed", _REPUBLISH
        )
    if not complete:
        raise ReportError(f"trace {path} is truncated gzip data", _REPUBLISH)
    digest = hashlib.sha256(data).hexdigest()
    if digest != sha256:
        raise ReportError(
            f"trace {path} does not match its name: its content hashes to {digest[:16]}…",
            _REPUBLISH,
        )
    return data


def read_trace(release_dir: Path, sha256: str) -> list[dict[str, Any]]:
    """The messages of the published trace ``sha256``, its hash verified (see trace_bytes)."""
    data = trace_bytes(release_dir, sha256)
    return parse_trace(data, str(_release_dir(release_dir) / trace_name(sha256)))


def parse_trace(data: bytes, where: str) -> list[dict[str, Any]]:
    """Trace bytes as its list of messages; ReportError naming ``where`` if they are not."""
    try:
        messages = json.loads(data)
    except (ValueError, RecursionError) as e:
        raise ReportError(f"trace {where} is not JSON ({e})", _REPUBLISH) from None
    if not isinstance(messages, list) or not all(isinstance(m, dict) for m in messages):
        raise ReportError(f"trace {where} is not a list of messages", _REPUBLISH)
    return messages

"""Published traces: deterministic gzip named by the SHA-256 of the exact trace bytes, read back
only if they still hash to their name."""

from __future__ import annotations

import gzip
import hashlib
import json
from pathlib import Path

import pytest

from reports import RELEASE_FILE, TRACES_DIR, ReportError, read_trace
from reports._traces import MAX_TRACE_BYTES, compress_trace, trace_bytes, trace_name

MESSAGES = [
    {"role": "system", "content": "You are an agent."},
    {"role": "user", "content": "Refund the order."},
    {
        "role": "assistant",
        "content": None,
        "tool_calls": [
            {"id": "call_0", "type": "function", "function": {"name": "f", "arguments": "{}"}}
        ],
    },
    {"role": "tool", "tool_call_id": "call_0", "content": '{"ok": true}'},
]
TRACE = json.dumps(MESSAGES, sort_keys=True).encode()  # as the worker stores it
SHA = hashlib.sha256(TRACE).hexdigest()


def publish(folder: Path, sha: str, data: bytes) -> Path:
    """Write ``data`` where the trace ``sha`` is published under ``folder``."""
    path = folder / trace_name(sha)
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_bytes(data)
    return path


def assert_refused(folder: Path, pattern: str, sha: str = SHA) -> None:
    with pytest.raises(ReportError, match=pattern) as e:
        read_trace(folder, sha)
    assert e.value.hint and "traces/" in e.value.hint


def test_a_published_trace_is_deterministic_gzip_named_by_its_hash(tmp_path: Path) -> None:
    packed = compress_trace(TRACE)
    assert packed == compress_trace(TRACE)
    assert packed[:2] == b"\x1f\x8b" and packed[4:8] == b"\0\0\0\0"  # gzip, no time stamp
    assert gzip.decompress(packed) == TRACE
    assert trace_name(SHA) == f"{TRACES_DIR}/{SHA}.json.gz"
    publish(tmp_path, SHA, packed)
    assert read_trace(tmp_path, SHA) == MESSAGES
    # the release.json path names the same directory
    assert read_trace(tmp_path / RELEASE_FILE, SHA) == MESSAGES
    assert trace_bytes(tmp_path, SHA) == TRACE


def test_a_missing_trace_names_its_file(tmp_path: Path) -> None:
    assert_refused(tmp_path, rf"trace .*{TRACES_DIR}/{SHA}\.json\.gz cannot be read: it does not")


def test_a_trace_with_other_content_does_not_match_its_name(tmp_path: Path) -> None:
    publish(tmp_path, SHA, compress_trace(TRACE.replace(b"Refund", b"Charge")))
    assert_refused(tmp_path, rf"{SHA}\.json\.gz does not match its name")


@pytest.mark.parametrize(
    ("data", "problem"),
    [
        (TRACE, "is not gzip data"),
        (compress_trace(TRACE)[:-12], "is truncated gzip data"),
    ],
)
def test_a_trace_that_is_not_whole_gzip_is_refused(
    tmp_path: Path, data: bytes, problem: str
) -> None:
    publish(tmp_path, SHA, data)
    assert_refused(tmp_path, problem)


def test_a_trace_that_inflates_past_the_limit_is_refused(tmp_path: Path) -> None:
    bomb = b"[" + b" " * MAX_TRACE_BYTES + b"]"
    publish(tmp_path, hashlib.sha256(bomb).hexdigest(), compress_trace(bomb))
    assert_refused(tmp_path, "uncompressed", sha=hashlib.sha256(bomb).hexdigest())


@pytest.mark.parametrize("body", [b'{"role": "user"}', b"[1, 2]", b"not json"])
def test_a_trace_that_is_not_a_list_of_messages_is_refused(tmp_path: Path, body: bytes) -> None:
    sha = hashlib.sha256(body).hexdigest()
    publish(tmp_path, sha, compress_trace(body))
    assert_refused(tmp_path, "is not a list of messages|is not JSON", sha=sha)


@pytest.mark.parametrize("sha", ["../../etc/passwd", SHA.upper(), SHA[:63], ""])
def test_only_a_sha256_names_a_trace(tmp_path: Path, sha: str) -> None:
    with pytest.raises(ReportError, match="is not a trace hash"):
        read_trace(tmp_path, sha)

"""Reading untrusted files: regular files only, size-capped, every failure a SubmissionError."""

from __future__ import annotations

from pathlib import Path

from drift import capped_bytes
from submissions._limits import LIMITS_HINT
from submissions._text import shown
from submissions.errors import SubmissionError


def read_capped(path: Path, limit: int, what: str, size_hint: str = LIMITS_HINT) -> bytes:
    """The bytes of the regular file ``path`` (a ``what``), refused if over ``limit`` bytes.

    A directory, device, FIFO, missing or unreadable file, or a path with a NUL byte or too
    long is a SubmissionError too, and a file that grows while read is refused, not read whole.
    """
    where = shown(str(path))
    data, problem = capped_bytes(path, limit)
    if problem is None:
        return data
    if problem.startswith("is larger than"):
        try:
            size = f"{path.stat().st_size:,} bytes"
        except OSError:
            size = "larger"
        raise SubmissionError(
            f"{where}: the {what} is {size}, over the limit of {limit:,}", size_hint
        )
    if problem == "is a directory":
        raise SubmissionError(f"{where}: is a directory, not a {what}", f"pass the {what}")
    if problem == "is not a regular file":
        raise SubmissionError(f"{where}: not a regular file", f"pass the {what}")
    raise SubmissionError(f"{where}: cannot read ({problem.removeprefix('is ')})", "check the path")

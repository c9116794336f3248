"""Reading untrusted files: regular files only, size-capped, every failure a SubmissionError."""

from __future__ import annotations

import stat
from pathlib import Path

from submissions._limits import LIMITS_HINT
from submissions._text import shown
from submissions.errors import SubmissionError


def read_capped(path: Path, limit: int, what: str, size_hint: str = LIMITS_HINT) -> bytes:
    """The bytes of the regular file ``path`` (a ``what``), refused if over ``limit`` bytes.

    A directory, device, FIFO, missing or unreadable file, or a path with a NUL byte or too
    long is a SubmissionError too, and a file that grows while read is refused, not read whole.
    """
    where = shown(str(path))
    try:
        st = path.stat()
        if stat.S_ISDIR(st.st_mode):
            raise SubmissionError(f"{where}: is a directory, not a {what}", f"pass the {what}")
        if not stat.S_ISREG(st.st_mode):
            raise SubmissionError(f"{where}: not a regular file", f"pass the {what}")
        if st.st_size > limit:
            raise SubmissionError(
                f"{where}: the {what} is {st.st_size:,} bytes, over the limit of {limit:,}",
                size_hint,
            )
        with path.open("rb") as f:
            data = f.read(limit + 1)  # the size may have changed since stat
    except (OSError, ValueError) as e:  # ValueError: a NUL byte in the path
        reason = getattr(e, "strerror", None) or str(e)
        raise SubmissionError(f"{where}: cannot read ({reason})", "check the path") from None
    if len(data) > limit:
        raise SubmissionError(
            f"{where}: the {what} is over the limit of {limit:,} bytes", size_hint
        )
    return data

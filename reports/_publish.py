"""Publishing files atomically: a reader sees the old file or the new one, never a part."""

from __future__ import annotations

import os
from pathlib import Path

from reports.errors import ReportError


def _temp(path: Path) -> Path:
    return path.with_name(f".{path.name}.{os.getpid()}.tmp")


def _write_synced(path: Path, data: bytes) -> None:
    with open(path, "wb") as f:
        f.write(data)
        f.flush()
        os.fsync(f.fileno())


def _sync_dir(folder: Path) -> None:
    fd = os.open(folder, os.O_RDONLY)
    try:
        os.fsync(fd)
    finally:
        os.close(fd)


def publish_files(files: list[tuple[Path, bytes]], hint: str) -> None:
    """Write every (path, bytes) pair atomically, all or none of them replaced.

    Each file is first written in full to a temporary file in its own directory and synced;
    only when every one is on disk are they renamed over their targets, in order. An OSError
    (a full disk, say) removes the temporary files, leaves the targets as they were and is
    raised as a one-line ReportError with ``hint``.
    """
    staged: list[tuple[Path, Path]] = []
    current = files[0][0] if files else Path()
    try:
        for current, data in files:
            staged.append((_temp(current), current))
            _write_synced(staged[-1][0], data)
        for temp, current in staged:
            os.replace(temp, current)
        for folder in {path.parent for _, path in staged}:
            current = folder
            _sync_dir(folder)
    except OSError as e:
        for temp, _ in staged:
            temp.unlink(missing_ok=True)
        raise ReportError(f"cannot write {current}: {e.strerror or e}", hint) from None

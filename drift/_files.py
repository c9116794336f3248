"""Files: reading untrusted ones with bounds (regular files only, capped size, capped
nesting), and replacing files atomically.

The lowest package holds this so every layer (tool lists here, operator and publish files in
``conditions``, bundles in ``submissions``, releases in ``reports``) reads files one way and
words its own error.
"""

from __future__ import annotations

import hashlib
import os
import stat
import tempfile
from pathlib import Path
from typing import Any


def capped_bytes(path: Path, max_bytes: int) -> tuple[bytes, str | None]:
    """``(data, None)`` for a regular file of at most ``max_bytes``, else ``(b"", problem)``
    where the problem reads after the path: "does not exist", "is a directory", …

    Directories, devices (``/dev/zero``) and FIFOs are refused before reading; a larger file is
    refused without reading more than ``max_bytes + 1`` bytes.
    """
    try:
        # O_NONBLOCK: opening a FIFO must not wait for a writer (no effect on regular files).
        fd = os.open(path, os.O_RDONLY | os.O_NONBLOCK | getattr(os, "O_CLOEXEC", 0))
    except FileNotFoundError:
        return b"", "does not exist"
    except PermissionError:
        return b"", "is not readable (permission denied)"
    except (OSError, ValueError) as e:  # ValueError: a NUL byte in the path
        return b"", f"cannot be read ({getattr(e, 'strerror', None) or e})"
    mode = os.fstat(fd).st_mode
    if not stat.S_ISREG(mode):
        os.close(fd)
        return b"", "is a directory" if stat.S_ISDIR(mode) else "is not a regular file"
    with os.fdopen(fd, "rb") as f:
        try:
            data = f.read(max_bytes + 1)
        except OSError as e:
            return b"", f"cannot be read ({e.strerror or e})"
    if len(data) > max_bytes:
        return b"", f"is larger than {max_bytes:,} bytes"
    return data, None


def deeper_than(data: Any, max_depth: int) -> bool:
    """Whether the arrays and objects of ``data`` nest deeper than ``max_depth`` levels
    (iteratively: a value too deep for recursive checks is measured without recursion)."""
    stack = [(data, 1)]
    while stack:
        node, depth = stack.pop()
        if isinstance(node, dict):
            node = list(node.values())
        if not isinstance(node, list | tuple):
            continue
        if depth > max_depth:
            return True
        stack.extend((child, depth + 1) for child in node)
    return False


def write_atomic(path: Path, data: bytes, mode: int = 0o644) -> None:
    """Replace ``path`` with ``data`` atomically: a temporary file in the same directory,
    given ``mode`` whatever the umask, synced, then renamed over ``path``. A reader sees the
    old file or the new one, never a part; on failure the temporary file is removed and the
    OSError raised."""
    fd, tmp = tempfile.mkstemp(dir=path.parent, prefix=f".{path.name}.", suffix=".tmp")
    try:
        os.fchmod(fd, mode)
        with os.fdopen(fd, "wb") as f:
            f.write(data)
            f.flush()
            os.fsync(f.fileno())
        os.replace(tmp, path)
    except BaseException:
        Path(tmp).unlink(missing_ok=True)
        raise


def create_private_file(path: Path) -> None:
    """Create ``path`` empty with mode 0600 whatever the umask, unless it exists."""
    try:
        fd = os.open(path, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
    except FileExistsError:
        return
    try:
        os.fchmod(fd, 0o600)
    finally:
        os.close(fd)


class FolderProblem(Exception):
    """Why a folder cannot be read as untrusted input (:func:`read_folder`): the message names
    the path inside the folder and the rule it breaks."""


def read_folder(
    root: Path, *, max_files: int, max_file_bytes: int, max_total: int, max_depth: int = 16
) -> dict[str, bytes]:
    """Every file under the directory ``root``, by its path relative to it (POSIX form), read
    once and bounded: regular files and directories only (a link, even one that stays inside,
    a device or a FIFO is refused without being followed or opened), at most ``max_files``
    files of at most ``max_file_bytes`` each and ``max_total`` in all, nested at most
    ``max_depth`` levels, names printable UTF-8 without a backslash. Raises
    :class:`FolderProblem` naming the offending path."""
    if root.is_symlink() or not root.is_dir():
        raise FolderProblem(f"{root} is not a directory")
    files: dict[str, bytes] = {}
    total = 0
    stack: list[tuple[Path, str, int]] = [(root, "", 0)]
    while stack:
        here, prefix, depth = stack.pop()
        if depth > max_depth:
            raise FolderProblem(f"{prefix.rstrip('/')}: nested deeper than {max_depth} levels")
        with os.scandir(here) as entries:
            found = sorted(entries, key=lambda e: e.name)
        for entry in found:
            rel = prefix + entry.name
            if not entry.name.isprintable() or "\\" in entry.name:
                raise FolderProblem(f"{rel!r}: a name must be printable and have no backslash")
            if entry.is_symlink():
                raise FolderProblem(f"{rel}: is a link (only regular files and folders count)")
            if entry.is_dir(follow_symlinks=False):
                stack.append((Path(entry.path), rel + "/", depth + 1))
                continue
            if not entry.is_file(follow_symlinks=False):
                raise FolderProblem(f"{rel}: is not a regular file")
            if len(files) >= max_files:
                raise FolderProblem(f"{rel}: more than {max_files} files")
            data, problem = capped_bytes(Path(entry.path), max_file_bytes)
            if problem is not None:
                raise FolderProblem(f"{rel}: {problem}")
            total += len(data)
            if total > max_total:
                raise FolderProblem(f"{rel}: the files add up to more than {max_total:,} bytes")
            files[rel] = data
    return dict(sorted(files.items()))


def folder_digest(files: dict[str, bytes]) -> str:
    """SHA-256 (hex) of a folder's content as :func:`read_folder` gives it: of one line
    ``<sha256 of the file>  <path>`` per file (two spaces, as ``sha256sum`` prints), sorted by
    path, each ending in a newline. In a shell: ``cd DIR && find . -type f -printf '%P\\0' |
    LC_ALL=C sort -z | xargs -0 sha256sum | sha256sum``."""
    listing = "".join(
        f"{hashlib.sha256(data).hexdigest()}  {path}\n" for path, data in sorted(files.items())
    )
    return hashlib.sha256(listing.encode()).hexdigest()

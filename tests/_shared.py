"""Fixtures' expensive products built once per test session, shared by every pytest-xdist worker.

A built cycle takes one to three minutes; under ``-n 4`` each worker used to build its own of
the same one. :func:`built_once` builds a directory once for the whole session (the first worker
to ask builds it under a file lock; the others wait for it) in a place of that session only,
so nothing from an earlier session, or an earlier checkout, is ever reused. Callers copy what it
returns before they change anything.
"""

from __future__ import annotations

import fcntl
import os
import re
import shutil
from collections.abc import Callable
from pathlib import Path

import pytest


def _session_dir(factory: pytest.TempPathFactory) -> Path:
    """A directory of this test session that all its xdist workers share."""
    base = factory.getbasetemp()
    run = os.environ.get("PYTEST_XDIST_TESTRUNUID")
    # a worker's base is <session>/popen-gwN; without xdist the base is the session's own
    root = base.parent / f"shared-{run}" if run else base / "shared"
    root.mkdir(exist_ok=True)
    return root


def built_once(factory: pytest.TempPathFactory, name: str, build: Callable[[Path], Path]) -> Path:
    """``build(dir)`` run once per test session for ``name`` (a fresh empty ``dir``; it
    returns the path within it that callers get), its result shared by every worker."""
    root = _session_dir(factory)
    slug = re.sub(r"[^A-Za-z0-9_.-]+", "_", name)
    done = root / f"{slug}.done"
    with (root / f"{slug}.lock").open("w") as lock:
        fcntl.flock(lock, fcntl.LOCK_EX)  # released when the file closes
        if not done.exists():
            work = root / slug
            shutil.rmtree(work, ignore_errors=True)  # a builder that failed part way
            work.mkdir()
            result = build(work)
            done.write_text(str(result.relative_to(work)))
        return root / slug / done.read_text()

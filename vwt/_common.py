"""What every command shares: consoles, the --home option, and turning user errors into exits."""

from __future__ import annotations

import errno
import functools
import os
import sqlite3
import sys
import time
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import (
    BarColumn,
    MofNCompleteColumn,
    Progress,
    SpinnerColumn,
    TextColumn,
    TimeElapsedColumn,
    TimeRemainingColumn,
)

console = Console()
err_console = Console(stderr=True)

USER_ERRORS = (
    ("adapt.errors", "AdaptError"),
    ("benchmark.errors", "BenchmarkError"),
    ("conditions.errors", "ConditionsError"),
    ("drift.errors", "DriftError"),
    ("reports.errors", "ReportError"),
    ("runner.errors", "RunnerError"),
    ("service.errors", "ServiceError"),
    ("submissions.errors", "SubmissionError"),
)
"""Errors that are the user's to fix (module, class): printed without a traceback, exit code
2. Named, not imported: importing a package's errors imports the package, which a command
that never uses it should not wait for."""


def is_user_error(error: BaseException) -> bool:
    """Whether ``error`` is one of the ``USER_ERRORS`` (a package not imported yet cannot have
    raised its own)."""
    return any(
        isinstance(error, getattr(sys.modules[module], name))
        for module, name in USER_ERRORS
        if module in sys.modules
    )


EXIT_USER_ERROR = 2

Home = Annotated[
    Path,
    typer.Option(
        "--home",
        envvar="VWT_HOME",
        help="Directory holding everything of one release cycle.",
        show_default=True,
    ),
]
DEFAULT_HOME = Path(".vwt")

P = ParamSpec("P")
R = TypeVar("R")


def print_user_error(message: str, hint: str | None) -> None:
    """Print ``error: message`` and, if given, ``hint: hint`` on stderr, one line each."""
    err_console.print(
        f"[bold red]error:[/] {escape(_one_line(message))}", highlight=False, soft_wrap=True
    )
    if hint:
        err_console.print(
            f"[dim]hint:[/] {escape(_one_line(hint))}", highlight=False, soft_wrap=True
        )


def _one_line(text: str) -> str:
    return " ".join(text.split()) if "\n" in text or "\r" in text else text


def system_error(error: BaseException) -> tuple[str, str] | None:
    """``(message, hint)`` for an OS-level error that the user's input or machine caused (a NUL
    byte or an over-long path on the command line, a full disk); None for any other error."""
    if isinstance(error, ValueError) and "embedded null byte" in str(error):
        return (
            "an argument contains a NUL byte (\\0), which no path or name may hold",
            "retype the argument without the NUL character",
        )
    if isinstance(error, sqlite3.OperationalError) and "database or disk is full" in str(error):
        return "no space left on the device (the database could not grow)", _DISK_HINT
    if isinstance(error, sqlite3.DatabaseError) and any(
        word in str(error) for word in ("malformed", "not a database", "corrupt")
    ):
        # the stores name their file themselves; this is what reached SQLite first (the ledger)
        return f"the cycle's database is corrupt ({error})", _CORRUPT_HINT
    if not isinstance(error, OSError):
        return None
    where = f": {_short(error.filename)}" if error.filename is not None else ""
    if error.errno == errno.ENAMETOOLONG:
        return f"a path is too long for the file system{where}", "use a shorter path"
    if error.errno in (errno.ENOSPC, errno.EDQUOT):
        return f"no space left on the device{where}", _DISK_HINT
    return None


_DISK_HINT = "free some disk space, then run the same command again"
_CORRUPT_HINT = (
    "restore the home's vwt.sqlite from a backup, or save what is readable with `sqlite3 "
    "vwt.sqlite .recover | sqlite3 recovered.sqlite` and move recovered.sqlite in its place "
    "(the ledger's checkpoint then tells whether anything was lost)"
)


def _short(filename: object, limit: int = 80) -> str:
    text = os.fsdecode(filename) if isinstance(filename, str | bytes) else str(filename)
    return text if len(text) <= limit else f"{text[: limit // 2]}…{text[-limit // 2 :]}"


def user_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Print a user error as 'error: …' plus its hint, and exit 2 instead of a traceback.

    User errors are the packages' error classes and the OS errors of :func:`system_error`.
    """

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except Exception as e:
            if is_user_error(e):
                print_user_error(str(e), getattr(e, "hint", None))
                raise typer.Exit(EXIT_USER_ERROR) from None
            if isinstance(e, SYSTEM_ERRORS):
                exit_on_system_error(e)
            raise

    return wrapper


SYSTEM_ERRORS = (OSError, ValueError, sqlite3.DatabaseError)
"""Error classes that may hold a :func:`system_error` (and otherwise are programming errors)."""


def exit_on_system_error(error: BaseException) -> None:
    """Print ``error`` and exit 2 if it is a :func:`system_error`; return otherwise."""
    known = system_error(error)
    if known is not None:
        print_user_error(*known)
        raise typer.Exit(EXIT_USER_ERROR) from None


RayAddress = Annotated[
    str | None,
    typer.Option(
        "--ray-address",
        envvar="RAY_ADDRESS",
        show_envvar=True,
        help="Run the trials on the existing Ray cluster at this address (e.g. head:6379 or "
        "ray://head:10001) instead of a private local runtime. vwt's code reaches the "
        "cluster's workers through Ray's runtime environment; only this process writes the "
        "store. Also read from VWT_RAY_ADDRESS.",
    ),
]


def use_ray_address(address: str | None) -> None:
    """Make the runner join the cluster at ``address`` (when given) instead of starting one."""
    if address and address.strip():
        from runner import ADDRESS_ENV  # here: a command may end before it needs the runner

        os.environ[ADDRESS_ENV] = address.strip()


FamilyDirs = Annotated[
    list[Path] | None,
    typer.Option(
        "--families",
        help="A task family written as a folder (family.yaml, tasks as JSON lines), or a "
        "folder of such folders; repeatable. Validated before anything runs. See "
        "docs/folder-families.md.",
        file_okay=False,
    ),
]


def use_families(dirs: list[Path] | None) -> list[str]:
    """Load the folder families of ``dirs`` (``--families``) into this process; their ids."""
    if not dirs:
        return []
    from benchmark import use_family_folders

    return [f.id for f in use_family_folders(dirs)]


def family_folder_paths(dirs: list[Path] | None) -> list[Path]:
    """Every family folder ``dirs`` (``--families``) names."""
    if not dirs:
        return []
    from benchmark import family_folders

    return [folder for d in dirs for folder in family_folders(d)]


PLAIN_PROGRESS_EVERY = 10.0
"""Seconds between the plain progress lines printed when output is not a terminal."""


def _clock(seconds: float) -> str:
    whole = int(seconds)
    return f"{whole // 3600}:{whole % 3600 // 60:02d}:{whole % 60:02d}"


class PlainProgress:
    """Progress as plain lines, for output that is not a terminal (a log file, a pipe): the
    first report at once, then at most one line every ``every`` seconds, and the last one."""

    def __init__(
        self,
        what: str,
        out: Console,
        *,
        every: float = PLAIN_PROGRESS_EVERY,
        clock: Callable[[], float] = time.monotonic,
    ) -> None:
        self.what, self.out, self.every, self.clock = what, out, every, clock
        self.started = clock()
        self.first_done: float | None = None
        self.printed: float | None = None
        self.finished = False

    def __call__(self, done: int, total: int) -> None:
        """Report ``done`` of ``total``; prints when a line is due."""
        now = self.clock()
        if done and self.first_done is None:
            self.first_done = now
        due = self.printed is None or now - self.printed >= self.every
        if self.finished or not (due or done >= total):
            return
        self.printed = now
        self.finished = done >= total
        line = f"{self.what}: {done}/{total}"
        if total:
            line += f" ({done / total:.0%})"
        line += f" · elapsed {_clock(now - self.started)}"
        if self.first_done is not None and now > self.first_done and done < total:
            rate = done / (now - self.first_done)
            line += f" · {rate:.1f}/s · ETA {_clock((total - done) / rate)}"
        self.out.print(line, highlight=False, soft_wrap=True)


@contextmanager
def trial_progress(what: str = "trials") -> Iterator[Callable[[int, int], None]]:
    """Progress of a run; yields the callback the runner reports (done, total) to.

    On a terminal a transient bar: shown at once (a spinner turns until the runner reports its
    total), then the count, the rate, the time elapsed and the estimated time left, each
    labelled. Otherwise (a log file, a pipe, captured output) plain lines (``PlainProgress``):
    the first at once, then one every 10 s, and the last."""
    if not console.is_terminal:
        yield PlainProgress(what, console)
        return
    with Progress(
        SpinnerColumn(),
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TextColumn("{task.fields[rate]}"),
        TextColumn("elapsed"),
        TimeElapsedColumn(),
        TextColumn("ETA"),
        TimeRemainingColumn(),
        console=console,
        transient=True,
    ) as bar:
        job = bar.add_task(what, total=None, rate="")
        bar.refresh()  # the first frame now, not at the first refresh tick
        started: list[float] = []

        def report(done: int, total: int) -> None:
            now = time.monotonic()
            if done and not started:
                started.append(now)
            rate = ""
            if started and now > started[0]:
                rate = f"{done / (now - started[0]):.1f}/s"
            bar.update(job, completed=done, total=total, rate=rate)

        yield report

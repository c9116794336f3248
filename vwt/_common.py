"""What every command shares: consoles, the --home option, and turning user errors into exits."""

from __future__ import annotations

import functools
from collections.abc import Callable, Iterator
from contextlib import contextmanager
from pathlib import Path
from typing import Annotated, ParamSpec, TypeVar

import typer
from rich.console import Console
from rich.markup import escape
from rich.progress import BarColumn, MofNCompleteColumn, Progress, TimeElapsedColumn

from benchmark.errors import BenchmarkError
from conditions.errors import ConditionsError
from drift.errors import DriftError
from reports.errors import ReportError
from runner.errors import RunnerError
from submissions.errors import SubmissionError

console = Console()
err_console = Console(stderr=True)

USER_ERRORS = (
    BenchmarkError,
    ConditionsError,
    DriftError,
    ReportError,
    RunnerError,
    SubmissionError,
)
"""Errors that are the user's to fix: printed without a traceback, exit code 2."""

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


def user_errors(fn: Callable[P, R]) -> Callable[P, R]:
    """Print a user error as 'error: …' plus its hint, and exit 2 instead of a traceback."""

    @functools.wraps(fn)
    def wrapper(*args: P.args, **kwargs: P.kwargs) -> R:
        try:
            return fn(*args, **kwargs)
        except USER_ERRORS as e:
            err_console.print(
                f"[bold red]error:[/] {escape(str(e))}", highlight=False, soft_wrap=True
            )
            hint = getattr(e, "hint", None)
            if hint:
                err_console.print(f"[dim]hint:[/] {escape(hint)}", highlight=False, soft_wrap=True)
            raise typer.Exit(EXIT_USER_ERROR) from None

    return wrapper


@contextmanager
def trial_progress() -> Iterator[Callable[[int, int], None]]:
    """A transient progress bar; yields the callback the runner reports (done, total) to."""
    with Progress(
        "[progress.description]{task.description}",
        BarColumn(),
        MofNCompleteColumn(),
        TimeElapsedColumn(),
        console=console,
        transient=True,
    ) as bar:
        job = bar.add_task("trials", total=None)
        yield lambda done, total: bar.update(job, completed=done, total=total)

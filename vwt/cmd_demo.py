"""`vwt demo`: a whole release cycle on the embedded default."""

from __future__ import annotations

import time
from pathlib import Path
from typing import Annotated

import typer
from rich.markup import escape

from reports import ReleaseStatement, render_release
from runner import SandboxKind
from vwt._common import RayAddress, console, trial_progress, use_ray_address, user_errors
from vwt._demo import demo_spec, run_demo

DEMO_HOME = Path(".vwt-demo")
DEMO_CONDITIONS = 16
"""Targets the demo commits to: the 8 single-axis changes of the default catalogue and 8 drawn
pairs of its 22 (all 30 would take the demo past five minutes on 2 cores)."""


def adapted_highlights(release: ReleaseStatement) -> list[str]:
    """Per submission: in how many targets adapting raised or lowered its gain (the
    difference's interval excludes 0), and the mean difference."""
    by: dict[str, list[float]] = {}
    up: dict[str, int] = {}
    down: dict[str, int] = {}
    for c in release.cells:
        if c.adaptation is None:
            continue
        d = c.adaptation.difference
        by.setdefault(c.submission, []).append(d.value)
        up[c.submission] = up.get(c.submission, 0) + (d.excludes_zero and d.value > 0)
        down[c.submission] = down.get(c.submission, 0) + (d.excludes_zero and d.value < 0)
    return [
        f"adapted {escape(name)}: mean Δ {sum(v) / len(v):+.2f} over {len(v)} targets; "
        f"reliably up in {up[name]}, down in {down[name]}"
        for name, v in by.items()
    ]


@user_errors
def demo(
    home: Annotated[
        Path, typer.Option("--home", help="Directory for the demo cycle (must not hold one).")
    ] = DEMO_HOME,
    force: Annotated[
        bool, typer.Option("--force", help="Start over if HOME already holds a cycle.")
    ] = False,
    tasks: Annotated[
        int | None, typer.Option("--tasks", min=1, help="Tasks per split (default: the spec's).")
    ] = None,
    k: Annotated[int | None, typer.Option("--k", min=1, help="Trials per task.")] = None,
    max_conditions: Annotated[
        int,
        typer.Option(
            "--max-conditions",
            min=1,
            help="Cap on target conditions: every single-axis one is kept, pairs are drawn.",
        ),
    ] = DEMO_CONDITIONS,
    sandbox: Annotated[
        SandboxKind, typer.Option("--sandbox", help="Where environment backends run.")
    ] = SandboxKind.auto,
    full: Annotated[
        bool,
        typer.Option(
            "--full",
            help="Run the full embedded cycle: the default plus the code-maintenance family, "
            "whose trials run test suites in the sandbox (several times longer).",
        ),
    ] = False,
    cache: Annotated[
        bool,
        typer.Option(
            "--cache",
            help="Answer model requests already answered in HOME (this cycle's or one --force "
            "superseded) from their recorded replies; prints how many. See docs/recording.md.",
        ),
    ] = False,
    ray_address: RayAddress = None,
) -> None:
    """Run a whole release cycle offline on the embedded default and print the matrix.

    Commits to hidden targets, submits the reference submissions (no artifacts, a prompt
    recipe, a typed skill, retrieved trajectories), runs them frozen against the no-artifact
    baseline on Ray, adapts each to each target with its procedure (metered, every read
    logged) and runs the adapted bundles, reveals and verifies the conditions, and writes a
    signed release. Models are simulated.
    """
    use_ray_address(ray_address)
    started = time.perf_counter()
    spec = demo_spec(tasks, k, full=full)
    with trial_progress() as progress:
        result = run_demo(
            home,
            spec,
            force=force,
            max_conditions=max_conditions,
            sandbox=sandbox.value,
            cache=cache,
            say=lambda msg: console.print(f"[green]✓[/] {msg}", highlight=False),
            progress=progress,
        )
    render_release(result.release.release, console)
    for line in adapted_highlights(result.release.release):
        console.print(line, highlight=False)
    console.print(f"commitment: {result.commitment}")
    console.print(f"reveal:     {result.reveal}")
    console.print(f"release:    {result.release_path}")
    console.print(f"[dim]done in {time.perf_counter() - started:.0f} s[/]")

"""`vwt families`: the task families in play and where each comes from, and the verifier
red-team gate over them."""

from __future__ import annotations

from typing import Annotated, Any

import typer
from rich.markup import escape
from rich.table import Table

from benchmark import FAMILIES, Family, RedTeamReport, family_origin, redteam
from vwt._common import FamilyDirs, console, print_user_error, use_families, user_errors
from vwt._json_out import AsJson, emit_json

app = typer.Typer(
    help="The task families: list them, or run the verifier red-team gate (the reference "
    "solution passes, planted wrong answers fail).",
    no_args_is_help=True,
)

KIND_SAMPLE = 100
"""Dev tasks whose kinds `families list` shows (families cycle through their kinds)."""
SHOWN_FAILURES = 20
"""Failures `families redteam` prints before summarising the rest."""


def _kinds(fam: Family) -> list[str]:
    """The kinds among the first dev tasks, in order of first appearance."""
    n = min(KIND_SAMPLE, fam.split_size("dev") or KIND_SAMPLE)
    return list(dict.fromkeys(t.kind for t in fam.tasks("dev", n, 0)))


def _family_json(fam: Family) -> dict[str, Any]:
    origin = family_origin(fam.id)
    return {
        "id": fam.id,
        "origin": {
            "entry_point": origin.entry_point,
            "distribution": origin.distribution,
            "folder": origin.folder,
        },
        "env": fam.env_id,
        "generator_version": fam.generator_version,
        "verifier_version": fam.verifier_version,
        "kinds": _kinds(fam),
        "splits": [{"name": s, "evaluated": s != fam.examples_split} for s in fam.splits],
        "tools": len(fam.base_tools().tools),
        "interface_versions": sorted(fam.interface_versions()),
    }


def _splits(fam: dict[str, Any]) -> str:
    return ", ".join(
        s["name"] if s["evaluated"] else f"{s['name']} (examples, never evaluated)"
        for s in fam["splits"]
    )


@app.command("list")
@user_errors
def list_cmd(as_json: AsJson = False, families: FamilyDirs = None) -> None:
    """List every task family: where it comes from, environment, kinds, splits, tools and
    interface versions.

    Families are found through the 'vwt.families' entry points of installed packages, vwt's
    own included (docs/plugins.md), and in the folders --families names
    (docs/folder-families.md); "from" names the distribution (--json: and the entry
    point's object), the folder, or says the family was registered in code. The examples
    split holds worked examples for building artifacts and is never evaluated. --json prints
    {"families": [{id, origin: {entry_point, distribution, folder}, env, generator_version,
    verifier_version, kinds, splits: [{name, evaluated}], tools, interface_versions}]}.
    """
    use_families(families)
    families_json = [_family_json(FAMILIES[i]) for i in sorted(FAMILIES)]
    if as_json:
        emit_json({"families": families_json})
        return
    table = Table("family", "from", "env", "kinds", "splits", "tools", "interface versions")
    for f in families_json:
        table.add_row(
            escape(f["id"]),
            escape(f["origin"]["distribution"] or str(family_origin(f["id"]))),
            escape(f["env"]),
            escape(", ".join(f["kinds"])),
            escape(_splits(f)),
            str(f["tools"]),
            escape(", ".join(f["interface_versions"])),
        )
    console.print(table)


def _print_report(report: RedTeamReport) -> None:
    table = Table("family", "verifier", "splits", "tasks", "planted", "distinct", "checks", "gate")
    for f in report.families:
        table.add_row(
            escape(f.family),
            escape(f.verifier_version),
            escape(", ".join(f.splits)),
            str(f.tasks),
            str(f.planted),
            str(len(f.names)),
            escape(", ".join(f.checks)),
            "[green]passed[/]" if f.passed else f"[bold red]{len(f.failures)} failures[/]",
        )
    console.print(table)
    failures = report.failures()
    for failure in failures[:SHOWN_FAILURES]:
        console.print(f"[red]FAIL[/] {escape(failure.describe())}", highlight=False)
    if len(failures) > SHOWN_FAILURES:
        console.print(f"… and {len(failures) - SHOWN_FAILURES} more (--json lists every one)")


@app.command("redteam")
@user_errors
def redteam_cmd(
    family: Annotated[
        list[str] | None,
        typer.Option("--family", help="Check only this family (repeatable); all by default."),
    ] = None,
    tasks: Annotated[
        int, typer.Option("--tasks", min=1, help="First tasks of each evaluated split to check.")
    ] = 20,
    seed: Annotated[
        int,
        typer.Option(
            "--seed",
            min=0,
            help="Cycle seed the sealed and adaptation splits are drawn from (`vwt run` "
            "checks its cycle's own).",
        ),
    ] = 0,
    as_json: AsJson = False,
    families: FamilyDirs = None,
    sandbox: Annotated[
        str,
        typer.Option(
            "--sandbox",
            help="Where a folder family's answers run (auto|local|docker): its server and "
            "verifier commands are untrusted, so auto needs Docker; local runs them unisolated.",
        ),
    ] = "auto",
) -> None:
    """Run the verifier red-team gate: on the first --tasks tasks of every evaluated split of
    each family, the reference solution passes the verifier and every planted wrong answer
    (wrong amount, wrong unit, wrong record, missing step, extra side effect, ...) fails it;
    each family plants at least 8 distinct wrong answers.

    A folder family (--families DIR) plants its wrong answers in its task lines; they and its
    reference calls run through its own server in the sandbox, on every release it names,
    and its verifier (built-in comparison or its command) judges the end state there.
    --families checks only the folder families unless --family names others too.

    Exits 1 when any family fails, naming family, task and planted answer. `vwt run frozen`
    and `vwt run adapted` refuse to start while the gate fails for a family their cycle uses.
    --json prints the report: tasks_per_split, passed, families [{family, verifier_version,
    splits, tasks, planted, names, checks, failures [{family, task, planted, problem}],
    passed}].
    """
    from runner import gate_sandboxes

    loaded = use_families(families)
    report = redteam(family or (loaded or None), tasks, seed, sandbox=gate_sandboxes(sandbox))
    if as_json:
        emit_json(report.model_dump(mode="json"))
    else:
        _print_report(report)
    if not report.passed:
        failed = [f.family for f in report.families if not f.passed]
        first = report.failures()[0]
        print_user_error(
            f"the red-team gate fails for {', '.join(failed)}: {first.describe()}",
            "a verifier that passes a planted wrong answer would score it as a success: fix "
            "the verifier (or the planted answer) before running a cycle",
        )
        raise typer.Exit(1)

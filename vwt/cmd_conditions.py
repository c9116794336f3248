"""`vwt conditions`: generate, list, commit to, reveal and verify target conditions."""

from __future__ import annotations

from pathlib import Path
from typing import Annotated, Any

import typer
from rich.table import Table

from conditions import (
    CommittedEvaluation,
    Condition,
    Cycle,
    fingerprint,
    verify_commitment,
    verify_commitment_and_reveal,
)
from vwt._common import DEFAULT_HOME, Home, console, user_errors
from vwt._json_out import AsJson, emit_json

app = typer.Typer(
    help="Operators: generate, list, commit to and reveal target conditions. "
    "Anyone: verify a published commitment and reveal.",
    no_args_is_help=True,
)


def _table(*headers: str) -> Table:
    # Ids are what operators copy into --condition, so they never wrap or get cut.
    table = Table()
    for h in headers:
        table.add_column(h, no_wrap=h == "id", min_width=14 if h == "id" else None, overflow="fold")
    return table


def _size(e: CommittedEvaluation) -> str:
    return f"evaluation size {e.tasks_per_split} tasks per split × k = {e.k}"


def _row(cid: str, c: Condition) -> list[str]:
    interfaces = ", ".join(f"{env}={v}" for env, v in sorted(c.tool_interface.items()))
    family = c.task_family.label
    return [cid, f"{c.model.model} (v{c.model.version})", c.provider, interfaces, family, c.harness]


@app.command()
@user_errors
def generate(
    home: Home = DEFAULT_HOME,
    max_conditions: Annotated[
        int | None,
        typer.Option(
            "--max-conditions",
            min=1,
            help="Cap the count; every single-axis condition is kept, pairs are drawn "
            "per stratum with a secret seed (kept in the private HOME/operator/targets.json).",
        ),
    ] = None,
) -> None:
    """Generate target conditions: each axis varied alone, then each pair (draft only)."""
    cycle = Cycle.open(home)
    cycle.generate(max_conditions)
    manifest = cycle.target_set().manifest
    drawn = "; pairs drawn with a secret seed" if manifest.draw_seed is not None else ""
    console.print(
        f"{sum(manifest.strata.values())} target conditions for cycle {cycle.id} "
        f"(of {manifest.candidates} realisable{drawn}); ids keyed with secret salts"
    )
    for stratum, n in manifest.strata.items():
        console.print(f"  {stratum}: {n}")
    console.print(f"catalogue sha256: {manifest.catalogue_hash}")
    console.print("next: vwt conditions list, then vwt conditions commit", highlight=False)


@app.command("list")
@user_errors
def list_(
    home: Home = DEFAULT_HOME,
    as_json: AsJson = False,
) -> None:
    """List the target conditions with their keyed ids (operator only: private until the reveal).

    The ids are keyed with secret salts, so they reveal nothing about the conditions.
    """
    cycle = Cycle.open(home)
    targets = cycle.targets()
    if as_json:
        facts = {
            "cycle": cycle.id,
            "state": cycle.state.value,
            "source": {"id": cycle.source.id, "condition": cycle.source.model_dump(mode="json")},
            "targets": [
                {
                    "id": t.id,
                    "varied": list(t.varied),
                    "condition": t.condition.model_dump(mode="json"),
                }
                for t in targets
            ],
        }
        emit_json(facts, indent=None)
        return
    table = _table("id", "varied", "model", "provider", "tool interface", "family", "harness")
    src = _row(cycle.source.id, cycle.source)
    table.add_row(src[0], "(source)", *src[1:])
    for t in targets:
        row = _row(t.id, t.condition)
        table.add_row(row[0], "+".join(t.varied), *row[1:])
    console.print(table)


@app.command()
@user_errors
def commit(
    home: Home = DEFAULT_HOME,
    public_seed: Annotated[
        bool,
        typer.Option(
            "--public-seed",
            help="Commit although the cycle seed is public (the embedded default's): anyone "
            "can regenerate the sealed tasks. Recorded in the ledger.",
        ),
    ] = False,
) -> None:
    """Commit to the target conditions and write the signed public commitment."""
    cycle = Cycle.open(home)
    path = cycle.commit(public_seed=public_seed)
    c = verify_commitment(path).commitment
    console.print(f"committed to {c.tree_size} conditions of cycle {c.cycle}: root {c.root}")
    console.print(f"committed {_size(c.evaluation)}")
    console.print(f"publish {path}; key fingerprint {cycle.fingerprint}")
    _warn_if_underpowered(cycle)
    console.print("next: vwt cycle advance open", highlight=False)


def _warn_if_underpowered(cycle: Cycle) -> None:
    """One warning line when the committed size cannot detect a gain of 0.15 in some cell
    (the plan's assumptions, docs/planning.md): a warning, the commitment stands."""
    from reports import plan_cycle

    plan = plan_cycle(cycle.spec)
    if not plan.detects:
        worst = max(c.correlated.mde for c in plan.conditions)
        console.print(
            f"warning: at {plan.tasks_per_split} tasks × k = {plan.k} some cells cannot detect "
            f"a gain of 0.15 (detectable: {worst:.2f} with correlated arms); see `vwt cycle "
            "plan` before the next cycle",
            highlight=False,
        )


@app.command()
@user_errors
def reveal(
    home: Home = DEFAULT_HOME,
    condition: Annotated[
        list[str] | None,
        typer.Option(
            "--condition",
            help="Reveal only this condition id (repeatable); all of them when omitted.",
        ),
    ] = None,
    out: Annotated[
        Path | None,
        typer.Option("--out", help="Where to write the reveal. Default: HOME/public/reveal.json."),
    ] = None,
    accept_invalid: Annotated[
        bool,
        typer.Option(
            "--accept-invalid",
            help="Reveal although some adapted trials are invalid (none may be missing); "
            "recorded in the ledger with their count.",
        ),
    ] = False,
) -> None:
    """Reveal the committed conditions (all, or chosen ones) with their inclusion proofs."""
    cycle = Cycle.open(home)
    path = cycle.reveal(condition or None, out, accept_invalid=accept_invalid)
    checked = verify_commitment_and_reveal(cycle.paths.commitment, path)
    console.print(
        f"{checked.scope} reveal of {len(checked.conditions)} of {checked.tree_size} "
        f"conditions written to {path} (verified against the commitment)"
    )
    console.print(f"cycle {cycle.id} is now {cycle.state}")


def verify_facts(commitment: Path, reveal: Path | None, key: str | None) -> dict[str, Any]:
    """What `vwt conditions verify --json` prints: the verified facts, one shape either way.

    Without a reveal, ``scope`` is None and ``conditions`` empty. ``evaluation`` is the
    committed size, ``{"tasks_per_split": n, "k": k}``.
    """
    if reveal is not None:
        return {"ok": True, **verify_commitment_and_reveal(commitment, reveal, key).model_dump()}
    c = verify_commitment(commitment, key).commitment
    return {
        "ok": True,
        "cycle": c.cycle,
        "root": c.root,
        "commitment": c.digest(),
        "tree_size": c.tree_size,
        "opens_at": c.opens_at,
        "closes_at": c.closes_at,
        "public_key": c.public_key,
        "fingerprint": fingerprint(c.public_key),
        "evaluation": c.evaluation.model_dump(mode="json"),
        "scope": None,
        "conditions": [],
    }


@app.command()
@user_errors
def verify(
    commitment: Annotated[
        Path, typer.Option("--commitment", help="The published commitment.json.", dir_okay=False)
    ],
    reveal: Annotated[
        Path | None,
        typer.Option(
            "--reveal",
            help="The published reveal.json; without it only the commitment is checked.",
            dir_okay=False,
        ),
    ] = None,
    key: Annotated[
        str | None,
        typer.Option(
            "--key",
            help="The operator's public key (base64) or fingerprint, to pin who must have signed.",
        ),
    ] = None,
    as_json: AsJson = False,
) -> None:
    """Verify a commitment and reveal from the two files alone; exit 0 only if all checks hold."""
    if as_json:
        emit_json(verify_facts(commitment, reveal, key), indent=None)
        return
    if reveal is None:
        c = verify_commitment(commitment, key).commitment
        console.print(
            f"OK: commitment for cycle {c.cycle}: {c.tree_size} conditions, root {c.root}, "
            f"{_size(c.evaluation)}, signed by key {fingerprint(c.public_key)}; no condition "
            "checked (no --reveal)"
        )
        return
    result = verify_commitment_and_reveal(commitment, reveal, key)
    table = _table("index", "id", "model", "provider", "tool interface", "family", "harness")
    for rc in result.conditions:
        table.add_row(str(rc.index), *_row(rc.id, rc.condition))
    console.print(table)
    what = "every committed condition" if result.scope == "full" else "the listed conditions"
    console.print(
        f"OK: {result.scope} reveal for cycle {result.cycle}: {len(result.conditions)} of "
        f"{result.tree_size} conditions proven in the commitment (root {result.root}, "
        f"{_size(result.evaluation)}); signatures valid, key {result.fingerprint}; "
        f"this reveal opens {what}"
    )

"""A sim model asked to rewrite a playbook for changed tools: it carries into the text what it
reads (renames with read_schema, a changed unit with read_conventions too) and nothing else, and
the rewrite changes what a follower does under the drift."""

from __future__ import annotations

from typing import Any

import pytest

from adapt._procedures import rewrite_request
from benchmark import family, interface_version, serve
from benchmark.harness import AgentArtifacts, Recipe
from benchmark.sim import sim_model
from benchmark.sim._engine import next_move
from drift import classify
from submissions import reference_dir
from tests.benchmark.sim._experiment import run_arm, use_model

FAM = family("support_ops")
UNITS = interface_version(FAM.env_id, "support-ops@2-units")
PLAYBOOK = (reference_dir("prompt-recipe") / "refund-playbook.md").read_text()


def _request(playbook: str) -> list[dict[str, object]]:
    served = serve(FAM.env_id, UNITS)
    report = classify(FAM.base_tools(), served.tools)
    changes = [f"{c.tool} {c.path}: {c.kind} ({c.drift_class}): {c.reason}" for c in report.changes]
    return rewrite_request(playbook, served.tools.to_mcp(), changes, [])


def _rewritten(model: str, playbook: str = PLAYBOOK) -> str:
    move = next_move(sim_model(model), 0, _request(playbook), [])
    assert move.tool is None and move.text.startswith("<recipe>\n"), move
    return move.text.removeprefix("<recipe>\n").removesuffix("\n</recipe>")


@pytest.mark.parametrize(
    ("traits", "expected"),
    [
        ({}, "issue_refund with order_id, amount (in dollars) and reason"),
        ({"read_conventions": 0.0}, "issue_refund with order_id, amount (the dollar amount x 100)"),
        (
            {"read_schema": 0.0},
            "issue_refund with order_id, amount_cents (the dollar amount x 100)",
        ),
    ],
    ids=["reads-both", "reads-names-only", "reads-neither"],
)
def test_a_rewrite_carries_what_the_model_reads(
    monkeypatch: pytest.MonkeyPatch, traits: dict[str, Any], expected: str
) -> None:
    model = use_model(monkeypatch, "rewriter", **traits)
    text = _rewritten(model)
    assert expected in text
    untouched = [line for line in PLAYBOOK.splitlines() if "issue_refund" not in line]
    assert [line for line in text.splitlines() if "issue_refund" not in line] == untouched


def test_only_what_the_playbook_says_changes_not_its_wording(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = use_model(monkeypatch, "rewriter")
    reworded = PLAYBOOK.replace("Call issue_refund with", "Then refund through issue_refund using")
    text = _rewritten(model, reworded)
    assert "Then refund through issue_refund using order_id, amount (in dollars)" in text
    unrelated = "1. Look the order up.\n2. Close the ticket with close_ticket.\n"
    assert _rewritten(model, unrelated) == unrelated.strip()


def test_following_the_rewrite_removes_the_old_unit_failures(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = use_model(
        monkeypatch, "follower", read_conventions=0.0, on_conflict="artifact", follows=("numbered",)
    )
    rewritten = _rewritten(use_model(monkeypatch, "rewriter"))
    frozen = run_arm(
        model,
        fam=FAM,
        interface=UNITS,
        tasks=12,
        artifacts=AgentArtifacts(recipes=(Recipe(name="r", text=PLAYBOOK),)),
    )
    adapted = run_arm(
        model,
        fam=FAM,
        interface=UNITS,
        tasks=12,
        artifacts=AgentArtifacts(recipes=(Recipe(name="r", text=rewritten),)),
    )
    assert frozen.critical > 0, frozen.outcomes
    assert adapted.critical == 0 and adapted.success > frozen.success, adapted.outcomes

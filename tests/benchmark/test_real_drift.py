"""The built-in versions modelled on real releases, through the oracle, the real backends and
the typed-skill runtime.

Oracle: an old reading with effect is flagged, the same effect reached the new way is not.
Backends: the options a version exposes are parameters of the canonical backend that @1 never
sends, so @1 behaves as it always did. Runtime: a typed skill stops safely on the
schema-visible changes and cannot see the schema-silent ones.
"""

from __future__ import annotations

import asyncio
import json
from pathlib import Path
from typing import Any

import pytest

from benchmark import Family, Task, TrialEnvironment, check_call, family, served_interface
from benchmark.harness import TypedSkill, check_interface
from drift import ServedInterface, ToolCall, classify
from tests.benchmark._helpers import start_backend

ROOT = Path(__file__).resolve().parents[2]
SKILLS = ROOT / "submissions" / "reference" / "typed-skill"
SUPPORT, RECON = family("support_ops"), family("reconciliation")
SUPPORT_TASKS = SUPPORT.tasks("dev", 20, 5)
RECON_TASKS = RECON.tasks("dev", 30, 5)

FLAGGED = {
    "support-ops@2-credit": "issue_refund",
    "support-ops@2-format": "issue_refund",
    "support-ops@2-base0": "issue_refund",
    "reconciliation@2-roles": "merge_customers",
}
"""Versions whose old reading lands on a call with effect, and that call's tool."""


def _served(version_id: str) -> ServedInterface:
    return served_interface(version_id.split("@")[0], version_id)


def _naive(served: ServedInterface, call: ToolCall) -> ToolCall | None:
    (op,) = served.version.ops
    return op.naive_call(call)


@pytest.mark.parametrize("version_id", sorted(FLAGGED))
def test_the_old_reading_with_effect_is_flagged_and_the_new_one_is_not(version_id: str) -> None:
    served = _served(version_id)
    fam, tasks = (
        (RECON, RECON_TASKS) if version_id.startswith("recon") else (SUPPORT, SUPPORT_TASKS)
    )
    flagged = 0
    for task in tasks:
        for ref in task.reference_calls:
            correct = served.from_canonical(ref)
            served.validate(correct)
            assert check_call(fam, task, served, correct) is None, (task.kind, correct)
            naive = _naive(served, ref)
            if ref.name != FLAGGED[version_id] or naive is None:
                continue
            flag = check_call(fam, task, served, naive)
            assert flag is not None, (task.kind, naive)
            assert fam.effect_key(flag.intended) == fam.effect_key(ref)
            flagged += 1
    assert flagged >= 2


@pytest.mark.parametrize("version_id", ["support-ops@2-recent", "reconciliation@2-any"])
def test_a_change_to_what_a_lookup_returns_has_no_call_with_effect_to_flag(version_id: str) -> None:
    served = _served(version_id)
    (op,) = served.version.ops
    fam = RECON if version_id.startswith("recon") else SUPPORT
    task = (RECON_TASKS if fam is RECON else SUPPORT_TASKS)[0]
    lookup = {"find_customer": {"email": "a@b.co"}, "find_customers": {"query": "ada okafor"}}
    call = ToolCall(name=op.tool, arguments=lookup[op.tool])  # type: ignore[attr-defined]
    assert call.name not in fam.effectful_tools
    assert check_call(fam, task, served, call) is None


def test_the_support_backend_serves_the_new_options_and_keeps_the_old_behaviour() -> None:
    state = next(t for t in SUPPORT_TASKS if t.kind == "late_delivery").initial_state
    state = json.loads(json.dumps(state))
    order_id = next(iter(state["orders"]))
    backend = SUPPORT.backend(state)
    old = backend.call("get_order", {"order_id": order_id})
    assert old == backend.call("get_order", {"order_id": order_id, "amount_format": "minor_units"})
    new = backend.call("get_order", {"order_id": order_id, "amount_format": "decimal"})
    assert new["shipping"] == old["shipping_cents"] / 100 and "shipping_cents" not in new
    assert new["items"][0]["unit_price"] == old["items"][0]["unit_price_cents"] / 100
    before = backend.dump()
    backend.call("issue_refund", {"order_id": order_id, "amount_cents": 5, "reason": "goodwill"})
    assert "store_credit" not in backend.dump()["refunds"][0]  # @1's refunds look as they did
    backend.call(
        "issue_refund",
        {"order_id": order_id, "amount_cents": 5, "reason": "goodwill", "store_credit": True},
    )
    assert backend.dump()["refunds"][1]["store_credit"] is True
    assert before["refunds"] == []


def test_the_reconciliation_search_combines_terms_all_by_default_any_when_asked() -> None:
    task = next(t for t in RECON_TASKS if t.kind == "merge_duplicates")
    backend = RECON.backend(task.initial_state)
    first = next(iter(task.initial_state["customers"].values()))
    surname = first["name"].split(" ")[1]
    query = f"nobody-such {surname}"
    with pytest.raises(Exception, match="no customer matches"):
        backend.call("find_customers", {"query": query})
    found = backend.call("find_customers", {"query": query, "match": "any"})
    assert first["customer_id"] in found["customer_ids"]
    email = first["email"]
    assert backend.call("find_customers", {"query": email}) == backend.call(
        "find_customers", {"query": email, "match": "any"}
    )  # one term: all and any select the same


async def _run(
    tmp: Path, fam: Family, served: ServedInterface, task: Task, calls: list[ToolCall]
) -> tuple[list[Any], Any, list[Any]]:
    backend = await start_backend(fam, tmp)
    env = TrialEnvironment(fam, task, served, backend, "s")
    await env.start()
    results = [await env.call(c) for c in calls]
    verdict = await env.verify()
    await backend.close()
    return results, verdict, env.critical


@pytest.mark.parametrize(
    "version_id",
    [
        "support-ops@2-credit",
        "support-ops@2-format",
        "support-ops@2-base0",
        "support-ops@2-recent",
        "reconciliation@2-roles",
        "reconciliation@2-any",
    ],
)
def test_reference_calls_sent_the_new_way_reach_the_reference_end_state(
    version_id: str, tmp_path: Path
) -> None:
    served = _served(version_id)
    fam, tasks = (
        (RECON, RECON_TASKS) if version_id.startswith("recon") else (SUPPORT, SUPPORT_TASKS)
    )
    tool = getattr(served.version.ops[0], "tool", "")
    task = next(
        (t for t in tasks if any(c.name == tool for c in t.reference_calls)),
        tasks[0],
    )
    calls = [served.from_canonical(c) for c in task.reference_calls]
    results, verdict, critical = asyncio.run(_run(tmp_path, fam, served, task, calls))
    assert not any(r.is_error for r in results), [r.content for r in results]
    assert verdict.passed and critical == []


def _skill(name: str) -> TypedSkill:
    return TypedSkill.model_validate_json((SKILLS / f"{name}.skill.json").read_text())


@pytest.mark.parametrize(
    ("version_id", "skill", "stops"),
    [
        ("support-ops@2-credit", "refund-ticket", True),
        ("support-ops@2-format", "refund-ticket", True),
        ("support-ops@2-recent", "refund-ticket", True),
        ("reconciliation@2-roles", "reconcile-books", True),
        ("support-ops@2-base0", "refund-ticket", False),
        ("reconciliation@2-any", "reconcile-books", False),
    ],
)
def test_the_typed_skill_runtime_stops_on_what_a_schema_shows_only(
    version_id: str, skill: str, stops: bool
) -> None:
    served = _served(version_id)
    check = check_interface(_skill(skill), {served.version.env: served})
    assert (check.stop is not None) is stops, check
    base = served_interface(served.version.env, f"{served.version.env}@1")
    silent = classify(base.tools, served.tools).changes == []
    assert silent is not stops  # what it cannot see, the classifier cannot show either

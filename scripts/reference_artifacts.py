"""Regenerate the reference submissions' artifacts that are derived from the built-in families.

- typed-skill: the tools and schema digest each skill's contract declares (``requires``, in the
  ``vwt-contract`` metadata of its ``SKILL.md``), from the served ``<env>@1`` interface of the
  environment it names. Everything else the skill says (steps, codes, units, verifier, body)
  stays.
- retrieved-trajectories: solved episodes from each family's public examples split (never
  evaluated, so the memories hold no task they are evaluated on) — the reference calls, with the
  lookups a real agent needs before them. Support operations: two of each refund kind (the
  memory stays refunds-only on purpose: that is what lets a refunds-only submission show no gain
  on account changes); reconciliation and research evidence: two of each kind.

Run after changing a family's tools or generator: ``.venv/bin/python
scripts/reference_artifacts.py``. It prints the files it rewrote.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

from benchmark import Task, family, served_interface
from benchmark.harness import SKILL_FILE, AgentSkill, Episode, TrajectorySet, TypedSkill
from benchmark.reconciliation import KINDS as RECONCILIATION_KINDS
from benchmark.research import KINDS as RESEARCH_KINDS
from benchmark.support_ops import KINDS, REFUND_KINDS
from drift import ToolCall
from submissions import reference_dir

EPISODES_PER_KIND = 2
SKILLS = ("refund-ticket", "reconcile-books", "answer-with-citation")


def typed_skill(skill: AgentSkill) -> str:
    """``skill``'s ``SKILL.md``, its contract declaring the tools and digest of its
    environment's ``@1`` as served today."""
    assert skill.contract is not None
    (requirement,) = skill.contract.requires
    served = served_interface(requirement.env, f"{requirement.env}@1")
    now = requirement.model_copy(
        update={"tools": tuple(served.tools.to_mcp()), "schema_digest": served.digest}
    )
    data = skill.contract.model_dump(mode="json", exclude_unset=True)
    data["requires"] = [now.model_dump(mode="json", exclude_unset=True)]
    contract = TypedSkill.model_validate(data)  # the harness must accept what is written
    return skill.with_contract(contract).skill_md


def _call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(name=name, arguments=arguments)


def support_episode(task: Task) -> Episode:
    """The solved episode of refund task ``task``: lookups, then the reference calls."""
    refund = task.reference_calls[0]
    lookups = []
    if task.kind == "damaged_by_email":
        (customer,) = task.initial_state["customers"].values()
        lookups.append(_call("find_customer", email=customer["email"]))
    if task.kind != "duplicate_charge":  # the amount is not in the text: read it
        lookups.append(_call("get_order", order_id=refund.arguments["order_id"]))
    return Episode(instruction=task.instruction, calls=(*lookups, *task.reference_calls))


def reconciliation_episode(task: Task) -> Episode:
    """Reconciliation task ``task`` solved: a merge looks the kept record's email up first, and
    an installment or interest whose amount the text does not state reads it first."""
    first = task.reference_calls[0].arguments
    lookups = []
    if task.kind == "merge_duplicates":
        email = task.initial_state["customers"][first["customer_id"]]["email"]
        lookups.append(_call("find_customers", query=email))
    if "$" not in task.instruction and task.kind == "split_payment":
        lookups.append(_call("get_invoice", invoice_id=first["invoice_id"]))
    if "$" not in task.instruction and task.kind == "interest_credit":
        line = task.reference_calls[1].arguments["record_id"]
        lookups.append(_call("get_statement_line", line_id=line))
    return Episode(instruction=task.instruction, calls=(*lookups, *task.reference_calls))


def research_episode(task: Task) -> Episode:
    """Research task ``task`` answered: search for its subject, read the cited document, then
    the reference claim and submission."""
    subject = task.initial_state["question"]["terms"][0]
    doc = task.reference_calls[0].arguments["doc_id"]
    lookups = (_call("search_documents", query=subject), _call("read_document", doc_id=doc))
    return Episode(instruction=task.instruction, calls=(*lookups, *task.reference_calls))


MEMORIES: dict[str, tuple[str, tuple[str, ...], tuple[str, ...], Callable[[Task], Episode]]] = {
    "episodes.json": ("support_ops", KINDS, REFUND_KINDS, support_episode),
    "reconciliation-episodes.json": (
        "reconciliation",
        RECONCILIATION_KINDS,
        RECONCILIATION_KINDS,
        reconciliation_episode,
    ),
    "research-episodes.json": (
        "research_evidence",
        RESEARCH_KINDS,
        RESEARCH_KINDS,
        research_episode,
    ),
}
"""Memory file → (family, its kinds, the kinds remembered, how a task is solved)."""


def episodes(name: str, path: str) -> TrajectorySet:
    """The memory ``name`` at ``path``: the first example tasks of each remembered kind."""
    family_id, kinds, remembered, solve = MEMORIES[path]
    fam = family(family_id)
    examples = fam.tasks(str(fam.examples_split), EPISODES_PER_KIND * len(kinds), 0)
    return TrajectorySet(
        name=name, episodes=tuple(solve(t) for t in examples if t.kind in remembered)
    )


def _write(path: Path, data: dict[str, Any] | str) -> None:
    text = data if isinstance(data, str) else json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if path.read_text() != text:
        path.write_text(text)
        print(f"rewrote {path}")


def main() -> None:
    for skill in SKILLS:
        path = reference_dir("typed-skill") / "skills" / skill / SKILL_FILE
        _write(path, typed_skill(AgentSkill(skill_md=path.read_text())))
    for file in MEMORIES:
        path = reference_dir("retrieved-trajectories") / file
        memory = json.loads(path.read_text())
        _write(path, episodes(memory["name"], file).model_dump(mode="json"))


if __name__ == "__main__":
    main()

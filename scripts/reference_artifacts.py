"""Regenerate the reference submissions' artifacts that are derived from the support-ops family.

- typed-skill: the tools and schema digest the skill declares (``requires``), from the served
  ``support-ops@1`` interface. Everything the skill says (steps, codes, units, verifier) stays.
- retrieved-trajectories: two solved episodes of each refund kind from the public examples
  split (never evaluated, so the memory holds no task it is evaluated on) —
  the reference calls, with the lookups a real agent needs before them. The memory stays
  refunds-only on purpose: that is what lets a refunds-only submission show no gain on
  account changes.

Run after changing the support-ops tools or generator: ``.venv/bin/python
scripts/reference_artifacts.py``. It prints the files it rewrote.
"""

from __future__ import annotations

import json
from pathlib import Path
from typing import Any

from benchmark import Task, family, served_interface
from benchmark.harness import Episode, TrajectorySet, TypedSkill
from benchmark.support_ops import KINDS, REFUND_KINDS
from drift import ToolCall
from submissions import reference_dir

EPISODES_PER_KIND = 2


def typed_skill(skill: dict[str, Any]) -> dict[str, Any]:
    """``skill`` declaring the tools and digest of ``support-ops@1`` as served today."""
    served = served_interface("support-ops", "support-ops@1")
    (requirement,) = skill["requires"]
    requirement.update(tools=served.tools.to_mcp(), schema_digest=served.digest)
    TypedSkill.model_validate(skill)  # the harness must accept what is written
    return skill


def episode(task: Task) -> Episode:
    """The solved episode of refund task ``task``: lookups, then the reference calls."""
    refund = task.reference_calls[0]
    lookups = []
    if task.kind == "damaged_by_email":
        (customer,) = task.initial_state["customers"].values()
        lookups.append(ToolCall(name="find_customer", arguments={"email": customer["email"]}))
    if task.kind != "duplicate_charge":  # the amount is not in the text: read it
        order_id = refund.arguments["order_id"]
        lookups.append(ToolCall(name="get_order", arguments={"order_id": order_id}))
    return Episode(instruction=task.instruction, calls=(*lookups, *task.reference_calls))


def episodes(name: str) -> TrajectorySet:
    """The memory ``name``: the first example tasks of each refund kind, in split order."""
    fam = family("support_ops")
    examples = fam.tasks(str(fam.examples_split), EPISODES_PER_KIND * len(KINDS), 0)
    return TrajectorySet(
        name=name, episodes=tuple(episode(t) for t in examples if t.kind in REFUND_KINDS)
    )


def _write(path: Path, data: dict[str, Any]) -> None:
    text = json.dumps(data, indent=2, ensure_ascii=False) + "\n"
    if path.read_text() != text:
        path.write_text(text)
        print(f"rewrote {path}")


def main() -> None:
    skill_path = reference_dir("typed-skill") / "refund-ticket.skill.json"
    _write(skill_path, typed_skill(json.loads(skill_path.read_text())))
    memory_path = reference_dir("retrieved-trajectories") / "episodes.json"
    memory = json.loads(memory_path.read_text())
    _write(memory_path, episodes(memory["name"]).model_dump(mode="json"))


if __name__ == "__main__":
    main()

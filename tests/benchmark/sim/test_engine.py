"""What the engine reads: artifacts wherever the harness puts them (system prompt or user turn),
and the request without them."""

from __future__ import annotations

from collections import Counter
from pathlib import Path

import pytest

from benchmark import family
from benchmark.harness import AgentArtifacts, Recipe
from benchmark.harness._artifacts import render_recipe
from benchmark.sim import next_move, sim_model
from benchmark.support_ops import REFUND_KINDS
from tests.benchmark.sim._experiment import Arm, run_arm, tool_calls, use_model

PLAYBOOK = (
    Path(__file__).parents[3] / "submissions" / "reference" / "prompt-recipe" / "refund-playbook.md"
).read_text()
RIGHT_CODES = (
    "duplicate_charge for double charges, damaged for broken items, late_delivery for late orders"
)
WRONG_CODES = (
    "damaged for double charges, late_delivery for broken items, duplicate_charge for late orders"
)
FAMILY = family("support_ops")
TOOLS = [t.to_openai() for t in FAMILY.base_tools().tools]


def _recipe(codes: str) -> Recipe:
    text = PLAYBOOK.replace(RIGHT_CODES, codes)
    assert codes in text
    return Recipe(name="playbook", text=text)


def _reasons(arm: Arm) -> Counter[tuple[str, str]]:
    """(task id, reason code) of every refund the arm made."""
    return Counter(
        (task.id, args["reason"])
        for task, result in zip(arm.tasks, arm.results, strict=True)
        for name, args in tool_calls(result)
        if name == "issue_refund"
    )


def test_a_recipe_in_the_user_turn_is_read_as_in_the_system_prompt(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    spec = sim_model(use_model(monkeypatch, "recipe-reader", follows=("numbered",), map_enums=0))
    task = next(t for t in FAMILY.tasks("sealed", 10, 3) if t.kind == "duplicate_charge")
    recipe = render_recipe(_recipe(WRONG_CODES))
    in_system = [
        {"role": "system", "content": f"Preamble.\n\n{recipe}"},
        {"role": "user", "content": task.instruction},
    ]
    in_user = [
        {"role": "system", "content": "Preamble."},
        {"role": "user", "content": f"{task.instruction}\n\n{recipe}"},
    ]
    moves = [next_move(spec, 5, m, TOOLS) for m in (in_system, in_user)]
    assert moves[0] == moves[1]
    assert moves[0].tool == "issue_refund" and moves[0].arguments is not None
    assert moves[0].arguments["reason"] == "damaged"  # the recipe's (wrong) code, not a default


def test_the_same_recipe_gives_the_same_refund_codes_under_harness_v1_and_v3(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    model = use_model(monkeypatch, "recipe-reader", follows=("numbered",), map_enums=0)
    arms = {
        (codes, harness): run_arm(
            model,
            kinds=REFUND_KINDS,
            tasks=8,
            harness=harness,
            artifacts=AgentArtifacts(recipes=(_recipe(codes),)),
        )
        for codes in (RIGHT_CODES, WRONG_CODES)
        for harness in ("harness-v1", "harness-v3")
    }
    for codes in (RIGHT_CODES, WRONG_CODES):
        v1, v3 = _reasons(arms[codes, "harness-v1"]), _reasons(arms[codes, "harness-v3"])
        assert v1 == v3 and sum(v1.values()) == 8
    right, wrong = (_reasons(arms[c, "harness-v1"]) for c in (RIGHT_CODES, WRONG_CODES))
    assert right != wrong
    assert arms[RIGHT_CODES, "harness-v3"].success > arms[WRONG_CODES, "harness-v3"].success

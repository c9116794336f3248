"""Counterfactual experiments on the sim models (issue 8, "Done when").

Each experiment changes one thing — what an artifact says, the format it says it in, the
served schema, a model's skill or its sampling noise — runs real trials (litellm, harness,
backend, verifier, oracle) with and without the change, and checks that outcomes move the way
the change means and only then. Controlled models (``use_model``) make the skill at stake
explicit; ``TYPICAL`` is a mid-range model whose other skills are uncertain, so that a change
has to stand out from noise.
"""

from __future__ import annotations

import math
from collections import Counter
from pathlib import Path
from typing import Any

import pytest

from benchmark import Task, interface_version
from benchmark.harness import AgentArtifacts, AgentSkill, Recipe, TypedSkill
from benchmark.support_ops import KINDS, REFUND_KINDS
from drift import (
    AnyOperator,
    DefaultFlip,
    EnumMeaningChange,
    FractionPercent,
    IdentifierSwap,
    SignConvention,
    TimezoneChange,
    UnitChange,
)
from tests._skills import reference_contract
from tests.benchmark.sim._experiment import Arm, run_arm, tool_calls, use_model, version

REFERENCE = Path(__file__).parents[3] / "submissions" / "reference"
PLAYBOOK = (REFERENCE / "prompt-recipe" / "refund-playbook.md").read_text()
SKILL = reference_contract("refund-ticket")
RIGHT_CODES = (
    "duplicate_charge for double charges, damaged for broken items, late_delivery for late orders"
)
WRONG_CODES = (
    "damaged for double charges, late_delivery for broken items, duplicate_charge for late orders"
)
REWORDED = """How to refund a support ticket

1. Finish with close_ticket, resolution "refunded", once the refund is issued.
2. Use issue_refund with order_id, amount_cents (dollars x 100) and reason: late_delivery for \
late orders, duplicate_charge for double charges, damaged for broken items.
3. get_order shows the shipping fee and the prices of the line items; prices are in cents.
4. When the ticket names only an email, look the customer up with find_customer and use the \
last (most recent) order id; otherwise use the order on the ticket.
"""
UNITS = interface_version("support-ops", "support-ops@2-units")
GET_ORDER_IN_CENTS = (
    "1. Call get_order to read the order; get_order returns prices in cents.\n"
    "2. Call issue_refund with the order, the amount and the reason.\n"
)
REFUND_IN_CENTS = (
    "1. Call get_order to read the order.\n2. Call issue_refund with amount_cents in cents.\n"
)

TYPICAL: dict[str, Any] = {
    "read_numbers": 0.9,
    "map_enums": 0.5,
    "know_procedure": 0.5,
    "read_schema": 0.85,
    "read_conventions": 0.55,
    "recover": 0.6,
    "load_skills": 0.3,
    "notice_conflicts": 0.35,
    "on_conflict": "schema",
    "temperature": 0.15,
    "follows": {
        "numbered": 0.95,
        "bullets": 0.85,
        "headings": 0.3,
        "tables": 0.3,
        "prose": 0.6,
        "skill": 0.9,
        "episode": 0.85,
    },
}


def _recipe(text: str) -> AgentArtifacts:
    return AgentArtifacts(recipes=(Recipe(name="playbook", text=text),))


def _skill(skill: TypedSkill) -> AgentArtifacts:
    return AgentArtifacts(skills=(AgentSkill.from_typed(skill),))


def _called(arm: Arm, tool: str) -> list[dict[str, Any]]:
    """The arguments of every call of ``tool`` in ``arm``."""
    return [args for r in arm.results for name, args in tool_calls(r) if name == tool]


def _reasons(arm: Arm, kind: str) -> Counter[str]:
    """The reason codes of the refunds ``arm`` made on tasks of ``kind``."""
    return Counter(
        args["reason"]
        for task, result in zip(arm.tasks, arm.results, strict=True)
        if task.kind == kind
        for name, args in tool_calls(result)
        if name == "issue_refund"
    )


def _traces(arm: Arm) -> list[tuple[Any, ...]]:
    """Per trial: the calls made and the final answer."""
    return [(tuple(map(repr, tool_calls(r))), r.run.final) for r in arm.results]


def test_a_wrong_reason_code_map_scores_clearly_below_the_right_one(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    wrong_map = PLAYBOOK.replace(RIGHT_CODES, WRONG_CODES)
    assert wrong_map != PLAYBOOK
    model = use_model(monkeypatch, "typical", **TYPICAL)
    right = run_arm(model, kinds=REFUND_KINDS, artifacts=_recipe(PLAYBOOK), arm="right")
    wrong = run_arm(model, kinds=REFUND_KINDS, artifacts=_recipe(wrong_map), arm="wrong")
    assert right.success >= wrong.success + 0.5, (right.outcomes, wrong.outcomes)
    # the codes are the permuted ones, not a fallback
    assert _reasons(wrong, "duplicate_charge").most_common(1)[0][0] == "damaged"
    assert _reasons(wrong, "late_delivery").most_common(1)[0][0] == "duplicate_charge"


def test_rewording_the_right_recipe_changes_little(monkeypatch: pytest.MonkeyPatch) -> None:
    model = use_model(monkeypatch, "typical", **TYPICAL)
    right = run_arm(model, kinds=REFUND_KINDS, artifacts=_recipe(PLAYBOOK), arm="right")
    reworded = run_arm(model, kinds=REFUND_KINDS, artifacts=_recipe(REWORDED), arm="reworded")
    assert abs(right.success - reworded.success) <= 0.125, (right.outcomes, reworded.outcomes)
    assert right.success >= 0.75


def test_never_close_the_ticket_is_obeyed_in_a_format_the_model_follows(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    never = PLAYBOOK + "\n- Never close the ticket.\n"
    both = use_model(monkeypatch, "numbers-and-bullets", follows=("numbered", "bullets"))
    numbered = use_model(monkeypatch, "numbers-only", follows=("numbered",))

    plain, forbidding = (
        run_arm(both, kinds=REFUND_KINDS, artifacts=_recipe(text)) for text in (PLAYBOOK, never)
    )
    assert forbidding.success <= plain.success - 0.5, (plain.outcomes, forbidding.outcomes)
    assert not _called(forbidding, "close_ticket")
    assert len(_called(forbidding, "issue_refund")) == len(forbidding.results)  # the rest holds

    blind_plain, blind_never = (
        run_arm(numbered, kinds=REFUND_KINDS, artifacts=_recipe(text)) for text in (PLAYBOOK, never)
    )
    assert _traces(blind_never) == _traces(blind_plain)


def test_a_unit_stated_for_get_order_prices_does_not_set_the_refund_unit(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    follower = use_model(monkeypatch, "artifact-follower", notice_conflicts=1.0)
    typical = use_model(monkeypatch, "typical-follower", **{**TYPICAL, "on_conflict": "artifact"})
    prices = _recipe(GET_ORDER_IN_CENTS)
    # both arms in one arm's draws (common random numbers): only the recipe differs
    # the follower reads the schema's unit, and the recipe says nothing to override it
    none = run_arm(follower, kinds=REFUND_KINDS, interface=UNITS)
    told = run_arm(follower, kinds=REFUND_KINDS, interface=UNITS, artifacts=prices)
    assert none.critical == told.critical == 0, told.outcomes
    assert told.success == 1.0
    # the typical follower misses the change on its own now and then: no more often when told
    none = run_arm(typical, kinds=REFUND_KINDS, interface=UNITS)
    told = run_arm(typical, kinds=REFUND_KINDS, interface=UNITS, artifacts=prices)
    assert 0 < told.critical <= none.critical, (none.outcomes, told.outcomes)


def test_a_refund_unit_stated_in_an_artifact_gives_criticals_unless_the_schema_is_trusted(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    follower = use_model(monkeypatch, "artifact-follower", notice_conflicts=1.0)
    truster = use_model(monkeypatch, "schema-truster", notice_conflicts=1.0, on_conflict="schema")
    cents = _recipe(REFUND_IN_CENTS)
    followed = run_arm(follower, kinds=REFUND_KINDS, interface=UNITS, artifacts=cents)
    trusted = run_arm(truster, kinds=REFUND_KINDS, interface=UNITS, artifacts=cents)
    assert followed.critical >= len(followed.results) // 2, followed.outcomes
    assert trusted.critical == 0, trusted.outcomes
    assert trusted.success >= 0.9


def test_a_perfect_unit_reader_has_no_criticals_under_the_unit_change(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    # otherwise typical: it misreads amounts and picks wrong codes, but never the unit
    reader = use_model(
        monkeypatch,
        "unit-reader",
        **{**TYPICAL, "read_schema": 1.0, "read_conventions": 1.0, "temperature": 0.0},
    )
    misser = use_model(
        monkeypatch,
        "unit-misser",
        **{**TYPICAL, "read_conventions": 0.0, "recover": 0.0, "temperature": 0.0},
    )
    read = run_arm(reader, kinds=REFUND_KINDS, interface=UNITS, tasks=48)
    missed = run_arm(misser, kinds=REFUND_KINDS, interface=UNITS, tasks=48)
    assert read.critical == 0, read.outcomes
    assert read.outcomes["failure"] > 0  # it does get details wrong: not flagged critical
    assert missed.critical >= len(missed.results) // 4, missed.outcomes


def test_a_typed_skills_success_depends_on_its_content(monkeypatch: pytest.MonkeyPatch) -> None:
    # knows no codes of its own and does not retry: the skill's content is what it acts on
    model = use_model(monkeypatch, "skill-reader", map_enums=0.0, recover=0.0, follows=("skill",))
    all_goodwill = SKILL.model_copy(update={"codes": dict.fromkeys(SKILL.codes, "goodwill")})
    in_dollars = SKILL.model_copy(update={"units": {"amount_cents": "dollars"}})
    reference = run_arm(model, kinds=REFUND_KINDS, artifacts=_skill(SKILL), arm="reference")
    goodwill = run_arm(model, kinds=REFUND_KINDS, artifacts=_skill(all_goodwill), arm="goodwill")
    dollars = run_arm(model, kinds=REFUND_KINDS, artifacts=_skill(in_dollars), arm="dollars")
    assert reference.success >= 0.9, reference.outcomes
    assert goodwill.success <= reference.success - 0.5, goodwill.outcomes
    assert {a["reason"] for a in _called(goodwill, "issue_refund")} == {"goodwill"}
    assert dollars.success <= reference.success - 0.5, dollars.outcomes


BALANCE = ("account_credit", "account_debit")
OPERATORS = [
    pytest.param(
        UnitChange(
            tool="adjust_balance",
            field="amount_cents",
            old_unit="cents",
            new_unit="dollars",
            scale=100,
        ),
        BALANCE,
        id="unit-adjust_balance",
    ),
    pytest.param(
        UnitChange(
            tool="issue_refund",
            field="amount_cents",
            new_name="amount",
            old_unit="cents",
            new_unit="dollars",
            scale=100,
        ),
        REFUND_KINDS,
        id="unit-issue_refund",
    ),
    pytest.param(SignConvention(tool="adjust_balance", field="amount_cents"), BALANCE, id="sign"),
    pytest.param(
        FractionPercent(tool="set_discount", field="rate"), ("loyalty_discount",), id="percent"
    ),
    pytest.param(
        EnumMeaningChange(tool="issue_refund", field="reason", a="damaged", b="duplicate_charge"),
        REFUND_KINDS,
        id="enum-meaning",
    ),
    pytest.param(
        TimezoneChange(tool="schedule_callback", field="callback_at", new_offset="-05:00"),
        ("escalate_callback",),
        id="timezone",
    ),
    pytest.param(
        IdentifierSwap(tool="issue_refund", field="order_id", pivot=5, result_key="order_id"),
        REFUND_KINDS,
        id="identifier",
    ),
    pytest.param(
        DefaultFlip(tool="issue_refund", field="notify_customer", old_default=True),
        REFUND_KINDS,
        id="default-flip",
    ),
]


@pytest.mark.parametrize(("op", "kinds"), OPERATORS)
def test_each_changing_operator_is_critical_for_a_model_that_misses_it_only(
    monkeypatch: pytest.MonkeyPatch, op: AnyOperator, kinds: tuple[str, ...]
) -> None:
    misser = use_model(monkeypatch, "convention-misser", read_conventions=0.0, recover=0.0)
    reader = use_model(monkeypatch, "convention-reader")
    missed = run_arm(misser, interface=version(op), kinds=kinds)
    read = run_arm(reader, interface=version(op), kinds=kinds)
    assert missed.critical >= len(missed.results) // 2, missed.outcomes
    assert {f.operator for r in missed.results for f in r.critical} == {op.describe()}
    assert read.critical == 0, read.outcomes
    assert read.success == 1.0, read.outcomes


def test_sampling_noise_differs_between_arms_only_at_a_temperature(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    warm = use_model(monkeypatch, "warm", **TYPICAL)
    cold = use_model(monkeypatch, "cold", **{**TYPICAL, "temperature": 0.0})
    differ = {}
    for model in (warm, cold):
        baseline, aa = (run_arm(model, tasks=48, arm=arm) for arm in ("baseline", "a/a"))
        assert {t.kind for t in baseline.tasks} == set(KINDS)
        differ[model] = sum(a != b for a, b in zip(_traces(baseline), _traces(aa), strict=True))
    assert 0 < differ[warm] <= 48 // 3, differ  # noise, but most trials shared
    assert differ[cold] == 0, differ


def _totals(task: Task) -> set[int]:
    """Amounts an order of the task's customer shows: each line's total and each shipping fee."""
    orders = task.initial_state["orders"].values()
    lines = {i["unit_price_cents"] * i["quantity"] for o in orders for i in o["items"]}
    return lines | {o["shipping_cents"] for o in orders}


def _transposed(a: int, b: int) -> bool:
    """Whether ``b``'s digits are ``a``'s with one adjacent pair swapped."""
    x, y = str(a), str(b)
    diff = [i for i in range(len(x)) if len(x) == len(y) and x[i] != y[i]]
    return len(diff) == 2 and diff[1] == diff[0] + 1 and x[diff[0]] == y[diff[1]]


def assert_misread_like_a_person(task: Task, amount: int) -> None:
    """A wrong amount is a transposed digit of the right one or another amount on the orders,
    never a scale of the right one."""
    right = task.reference_calls[0].arguments["amount_cents"]
    assert amount != round(0.9 * right)
    assert _transposed(right, amount) or amount in _totals(task) - {right}, (
        task.instruction,
        right,
        amount,
    )


def test_misreading_is_one_detail_the_way_people_do_and_never_when_read(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    sloppy = run_arm(
        use_model(monkeypatch, "sloppy", read_numbers=0.0), kinds=REFUND_KINDS, tasks=48
    )
    careful = run_arm(use_model(monkeypatch, "careful"), kinds=REFUND_KINDS, tasks=48)
    wrong = []
    for task, result in zip(sloppy.tasks, sloppy.results, strict=True):
        right = task.reference_calls[0].arguments["amount_cents"]
        for name, args in tool_calls(result):
            if name == "issue_refund" and args["amount_cents"] != right:
                assert_misread_like_a_person(task, args["amount_cents"])
                wrong.append(args["amount_cents"] / right)
    assert len(wrong) >= len(sloppy.results) // 4
    assert len({round(math.log(r), 3) for r in wrong}) > len(wrong) // 2  # no fixed scale
    assert careful.success == 1.0, careful.outcomes
    for task, result in zip(careful.tasks, careful.results, strict=True):
        want = task.reference_calls[0].arguments
        refunds = [
            (a["order_id"], a["amount_cents"]) for n, a in tool_calls(result) if n == "issue_refund"
        ]
        assert refunds == [(want["order_id"], want["amount_cents"])], task.instruction

"""The drift oracle flags an effect that only the old meaning explains."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pytest

from benchmark import (
    Family,
    Planted,
    Task,
    VerifierResult,
    check_call,
    family,
    served_interface,
)
from drift import (
    DefaultFlip,
    EnumMeaningChange,
    FractionPercent,
    IdentifierSwap,
    InterfaceVersion,
    Operator,
    ServedInterface,
    SignConvention,
    TimezoneChange,
    Tool,
    ToolCall,
    ToolSet,
    UnitChange,
)

# --- support-ops: the unit change of support-ops@2-units ------------------------------------

FAMILY = family("support_ops")
TASK = next(
    t
    for t in FAMILY.tasks("sealed", 20, 9)
    if any(c.name == "issue_refund" for c in t.reference_calls)
)
REFUND = next(c for c in TASK.reference_calls if c.name == "issue_refund")
CENTS = REFUND.arguments["amount_cents"]
MISREAD = CENTS + CENTS // 10 + 1  # another detail read: off, but within a factor 2


def _units_call(amount: float, **changes: Any) -> ToolCall:
    args = {k: v for k, v in REFUND.arguments.items() if k != "amount_cents"}
    return ToolCall(name="issue_refund", arguments={**args, "amount": amount, **changes})


def test_old_unit_is_critical_and_new_unit_is_not() -> None:
    served = served_interface("support-ops", "support-ops@2-units")
    flag = check_call(FAMILY, TASK, served, _units_call(CENTS))
    assert flag is not None
    assert flag.intended.arguments["amount_cents"] == CENTS
    assert flag.effect.arguments["amount_cents"] == CENTS * 100
    assert "dollars" in flag.operator
    assert check_call(FAMILY, TASK, served, _units_call(CENTS / 100)) is None


def test_misread_amount_in_the_old_unit_is_critical() -> None:
    served = served_interface("support-ops", "support-ops@2-units")
    call = _units_call(MISREAD)
    flag = check_call(FAMILY, TASK, served, call)
    assert flag is not None
    assert flag.call == call
    assert flag.intended.arguments["amount_cents"] == MISREAD
    assert flag.effect.arguments["amount_cents"] == MISREAD * 100


def test_misread_amount_in_the_new_unit_is_a_failure_not_critical() -> None:
    served = served_interface("support-ops", "support-ops@2-units")
    assert check_call(FAMILY, TASK, served, _units_call(MISREAD / 100)) is None


def test_old_unit_on_another_order_or_code_is_critical() -> None:
    served = served_interface("support-ops", "support-ops@2-units")
    other = f"{REFUND.arguments['order_id']}9"
    assert check_call(FAMILY, TASK, served, _units_call(CENTS, order_id=other)) is not None
    assert check_call(FAMILY, TASK, served, _units_call(CENTS, reason="goodwill")) is not None


def test_preserving_drift_and_reads_are_never_critical() -> None:
    served = served_interface("support-ops", "support-ops@2-rename")
    args = dict(REFUND.arguments)
    renamed = {"order_number": args.pop("order_id"), **args}
    assert (
        check_call(FAMILY, TASK, served, ToolCall(name="issue_refund", arguments=renamed)) is None
    )
    units = served_interface("support-ops", "support-ops@2-units")
    read = ToolCall(name="get_order", arguments={"order_id": REFUND.arguments["order_id"]})
    assert check_call(FAMILY, TASK, units, read) is None


# --- every changing operator, over a toy family the oracle knows nothing about --------------

TOOL = "apply_change"
TOOLS = ToolSet(
    tools=(
        Tool(
            name=TOOL,
            description="Change an account.",
            input_schema={
                "type": "object",
                "properties": {
                    "account_id": {"type": "string", "description": "Account id."},
                    "amount_cents": {
                        "type": "integer",
                        "description": "Balance change in cents; negative values debit.",
                    },
                    "rate": {"type": "number", "description": "Discount as a fraction, 0-1."},
                    "kind": {"type": "string", "enum": ["credit", "debit", "hold"]},
                    "due_at": {"type": "string", "description": "When, local time in UTC."},
                    "notify": {"type": "boolean", "description": "Tell the customer."},
                },
                "required": ["account_id", "amount_cents", "rate", "kind", "due_at"],
                "additionalProperties": False,
            },
        ),
        Tool(
            name="get_account",
            description="Read an account.",
            input_schema={"type": "object", "properties": {"account_id": {"type": "string"}}},
        ),
    )
)
REFERENCE = ToolCall(
    name=TOOL,
    arguments={
        "account_id": "ACC-1234",
        "amount_cents": -2499,
        "rate": 0.15,
        "kind": "credit",
        "due_at": "2024-05-01T15:00:00",
    },
)
TOY_TASK = Task(
    id="toy/dev/0",
    family="toy",
    split="dev",
    index=0,
    seed=0,
    generator_version="toy-1",
    kind="change",
    instruction="Debit $24.99 from ACC-1234 with a 15% discount, as a credit, at 15:00 UTC.",
    initial_state={},
    reference_calls=(REFERENCE,),
)


class Toy(Family):
    """One effectful tool whose every argument is part of the effect."""

    id = "toy"
    env_id = "toy"
    generator_version = "toy-1"
    verifier_version = "toy-1"
    splits = ("dev",)
    effectful_tools = (TOOL,)

    def generate(self, split: str, index: int, seed: int) -> Task:
        return TOY_TASK

    def base_tools(self) -> ToolSet:
        return TOOLS

    def interface_versions(self) -> dict[str, InterfaceVersion]:
        return {}

    def backend_file(self) -> Path:
        raise NotImplementedError("the toy family has no backend")

    def verify(self, task: Task, end_state: dict[str, Any]) -> VerifierResult:
        raise NotImplementedError("the toy family has no backend to verify")

    def end_state(self, task: Task, calls: Sequence[ToolCall]) -> dict[str, Any]:
        raise NotImplementedError("the toy family has no backend")

    def planted(self, task: Task) -> list[Planted]:
        raise NotImplementedError("the toy family has no verifier to red-team")

    def effect_key(self, call: ToolCall) -> tuple[Any, ...]:
        a = call.arguments
        fields = ("account_id", "amount_cents", "rate", "kind", "due_at")
        return (call.name, *(a.get(f) for f in fields), a.get("notify", False))


TOY = Toy()


def _served(*ops: Operator) -> ServedInterface:
    version = InterfaceVersion(id="toy@2", env="toy", label="2", parent="toy@1", ops=ops)
    return ServedInterface(TOOLS, version)


def _call(*drop: str, **changes: Any) -> ToolCall:
    args = {k: v for k, v in REFERENCE.arguments.items() if k not in drop}
    return ToolCall(name=TOOL, arguments={**args, **changes})


# (operator, the call of an agent keeping the old meaning, the call of one reading it right)
CASES = [
    pytest.param(
        UnitChange(
            tool=TOOL,
            field="amount_cents",
            new_name="amount",
            old_unit="cents",
            new_unit="dollars",
            scale=100,
        ),
        _call("amount_cents", amount=-2499),
        _call("amount_cents", amount=-24.99),
        id="unit",
    ),
    pytest.param(
        SignConvention(tool=TOOL, field="amount_cents"),
        _call(amount_cents=-2499),
        _call(amount_cents=2499),
        id="sign",
    ),
    pytest.param(
        FractionPercent(tool=TOOL, field="rate", to_percent=True),
        _call(rate=0.15),
        _call(rate=15),
        id="percent",
    ),
    pytest.param(
        EnumMeaningChange(tool=TOOL, field="kind", a="credit", b="debit"),
        _call(kind="credit"),
        _call(kind="debit"),
        id="enum",
    ),
    pytest.param(
        TimezoneChange(tool=TOOL, field="due_at", new_offset="-05:00"),
        _call(due_at="2024-05-01T15:00:00"),
        _call(due_at="2024-05-01T10:00:00"),
        id="timezone",
    ),
    pytest.param(
        IdentifierSwap(tool=TOOL, field="account_id", pivot=1001),
        _call(account_id="ACC-1234"),
        _call(account_id="ACC-9767"),
        id="identifier",
    ),
    pytest.param(
        DefaultFlip(tool=TOOL, field="notify", old_default=False),
        _call(),
        _call(notify=False),
        id="default",
    ),
]


@pytest.mark.parametrize(("op", "old", "right"), CASES)
def test_each_changing_operator_flags_its_old_reading_only(
    op: Operator, old: ToolCall, right: ToolCall
) -> None:
    served = _served(op)
    assert TOY.effect_key(served.to_canonical(right)) == TOY.effect_key(REFERENCE)
    flag = check_call(TOY, TOY_TASK, served, old)
    assert flag is not None
    assert flag.operator == op.describe()
    assert TOY.effect_key(flag.intended) == TOY.effect_key(REFERENCE)
    assert TOY.effect_key(flag.effect) != TOY.effect_key(REFERENCE)
    assert check_call(TOY, TOY_TASK, served, right) is None


def test_a_misread_amount_under_a_flipped_sign_is_critical() -> None:
    served = _served(SignConvention(tool=TOOL, field="amount_cents"))
    flag = check_call(TOY, TOY_TASK, served, _call(amount_cents=-2250))
    assert flag is not None
    assert flag.intended.arguments["amount_cents"] == -2250
    assert flag.effect.arguments["amount_cents"] == 2250


def test_a_misread_amount_in_the_new_convention_is_not_critical() -> None:
    served = _served(SignConvention(tool=TOOL, field="amount_cents"))
    assert check_call(TOY, TOY_TASK, served, _call(amount_cents=2250)) is None


def test_an_old_reading_more_than_twice_off_explains_nothing() -> None:
    served = _served(SignConvention(tool=TOOL, field="amount_cents"))
    assert check_call(TOY, TOY_TASK, served, _call(amount_cents=-5100)) is None
    assert check_call(TOY, TOY_TASK, served, _call(amount_cents=-4900)) is not None


def test_an_effect_less_than_ten_times_further_off_is_not_critical() -> None:
    halves = UnitChange(
        tool=TOOL, field="amount_cents", old_unit="cents", new_unit="half-cents", scale=0.5
    )
    served = _served(halves)
    assert check_call(TOY, TOY_TASK, served, _call(amount_cents=-2499)) is None


def test_an_old_reading_is_critical_whatever_else_the_call_gets_wrong() -> None:
    served = _served(SignConvention(tool=TOOL, field="amount_cents"))
    call = _call(amount_cents=-2499, kind="hold")
    assert check_call(TOY, TOY_TASK, served, call) is not None


def test_the_oracle_looks_only_at_effectful_tools() -> None:
    served = _served(IdentifierSwap(tool="get_account", field="account_id", pivot=1001))
    read = ToolCall(name="get_account", arguments={"account_id": "ACC-1234"})
    assert check_call(TOY, TOY_TASK, served, read) is None

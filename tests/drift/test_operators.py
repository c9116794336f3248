"""Property tests of every drift operator's adapters over generated tool sets and calls."""

from __future__ import annotations

import numpy as np
import pytest
from hypothesis import HealthCheck, given, reject, settings
from hypothesis import strategies as st

from drift import OPERATOR_TYPES, DriftError, Operator, ServedInterface, ToolCall, ToolSet
from drift._version import InterfaceVersion
from tests.drift._strategies import calls, effect, tool_sets

PRESERVING = [c for c in OPERATOR_TYPES if c.drift_class == "preserving"]
# drawn from any tool list; the kinds applied by name only: tests/drift/test_real_ops.py
CHANGING = [c for c in OPERATOR_TYPES if c.drift_class == "changing" and c.drawn]
SETTINGS = settings(
    max_examples=25,
    deadline=None,
    derandomize=True,
    suppress_health_check=[HealthCheck.filter_too_much],
)


def _drawn(cls: type[Operator], tools: ToolSet, seed: int) -> tuple[Operator, ServedInterface]:
    try:
        op = cls.draw(tools, np.random.default_rng(seed), {})
        version = InterfaceVersion(id="t@2", env="t", label="2", ops=(op,))
        return op, ServedInterface(tools, version)
    except DriftError:
        reject()


RESULTS = st.dictionaries(
    st.sampled_from(["next_offset", "status", "order_id", "amount_cents", "total"]),
    st.one_of(st.integers(1, 500), st.sampled_from(["open", "closed", "ORD-00042", "b286", None])),
)


def test_every_kind_is_tested() -> None:
    assert set(PRESERVING) | set(CHANGING) == {c for c in OPERATOR_TYPES if c.drawn}
    assert len(PRESERVING) == 10 and len(CHANGING) == 7


@pytest.mark.parametrize("cls", PRESERVING, ids=lambda c: c.__name__)
@SETTINGS
@given(data=st.data(), tools=tool_sets(), seed=st.integers(0, 2**16))
def test_preserving_round_trip(
    cls: type[Operator], data: st.DataObject, tools: ToolSet, seed: int
) -> None:
    op, served = _drawn(cls, tools, seed)
    call = data.draw(calls(tools))
    new = op.call_to_new(call)
    served.validate(new)
    assert effect(tools, op.call_to_prev(new)) == effect(tools, call)
    result = data.draw(RESULTS)
    assert op.result_to_prev(call, op.result_to_new(call, result)) == result
    assert op.naive_call(call) is None and op.old_reading(new) is None


@pytest.mark.parametrize("cls", CHANGING, ids=lambda c: c.__name__)
@SETTINGS
@given(data=st.data(), tools=tool_sets(), seed=st.integers(0, 2**16))
def test_changing_old_reading(
    cls: type[Operator], data: st.DataObject, tools: ToolSet, seed: int
) -> None:
    op, served = _drawn(cls, tools, seed)
    call = data.draw(calls(tools))
    correct = op.call_to_new(call)
    served.validate(correct)
    assert effect(tools, op.call_to_prev(correct)) == effect(tools, call)
    old = op.old_reading(correct)
    assert old is None or effect(tools, old) != effect(tools, call)
    naive = op.naive_call(call)
    if naive is None:
        return
    misread = op.old_reading(naive)
    assert misread is not None and effect(tools, misread) == effect(tools, call)
    assert effect(tools, op.call_to_prev(naive)) != effect(tools, call)
    result = data.draw(RESULTS)
    assert op.result_to_prev(call, op.result_to_new(call, result)) == result


@SETTINGS
@given(data=st.data(), tools=tool_sets(), seed=st.integers(0, 2**16))
def test_composed_preserving_version_reaches_the_same_backend_call(
    data: st.DataObject, tools: ToolSet, seed: int
) -> None:
    rng = np.random.default_rng(seed)
    ops, current = [], tools
    for i in rng.permutation(len(PRESERVING))[:4]:
        try:
            op = PRESERVING[int(i)].draw(current, rng, {})
            current = op.apply(current)
        except DriftError:
            continue
        ops.append(op)
    served = ServedInterface(tools, InterfaceVersion(id="t@3", env="t", label="3", ops=tuple(ops)))
    call = data.draw(calls(tools))
    new = served.from_canonical(call)
    served.validate(new)
    assert effect(tools, served.to_canonical(new)) == effect(tools, call)
    assert served.old_readings(new) == []


def test_old_readings_through_a_later_rename() -> None:
    tools = ToolSet.model_validate(
        {
            "tools": [
                {
                    "name": "pay",
                    "inputSchema": {
                        "type": "object",
                        "properties": {
                            "amount_cents": {"type": "integer", "description": "Amount, in cents."}
                        },
                    },
                }
            ]
        }
    )
    from drift import RenameField, UnitChange

    version = InterfaceVersion(
        id="p@3",
        env="p",
        label="3",
        ops=(
            UnitChange(
                tool="pay",
                field="amount_cents",
                new_name="amount",
                old_unit="cents",
                new_unit="dollars",
                scale=100,
            ),
            RenameField(tool="pay", field="amount", new_name="value"),
        ),
    )
    served = ServedInterface(tools, version)
    sent = ToolCall(name="pay", arguments={"value": 1250})
    assert served.to_canonical(sent).arguments == {"amount_cents": 125000}
    assert served.old_readings(sent) == [
        (0, ToolCall(name="pay", arguments={"amount_cents": 1250}))
    ]
    right = served.from_canonical(ToolCall(name="pay", arguments={"amount_cents": 1250}))
    assert right.arguments == {"value": 12.5}

"""The support-operations family: refunds and ticket handling over a simulated order system."""

from __future__ import annotations

from pathlib import Path
from typing import Any

from benchmark._task import Family, Task, VerifierResult
from benchmark.errors import BenchmarkError
from benchmark.support_ops import _generator
from benchmark.support_ops._backend import Backend
from benchmark.support_ops._tools import EFFECTFUL_TOOLS, ENV_ID, base_tools, interface_versions
from drift import InterfaceVersion, ToolCall, ToolSet

VERIFIER_VERSION = "support_ops-verifier-1"
_SPLIT_BASES = {"dev": 10000, "sealed": 50000, "adapt": 80000}
_MAX_TASKS = 10000  # ids of one split stay below the next split's base


def _normalise(state: dict[str, Any]) -> dict[str, Any]:
    """The parts of a state the verifier judges: refunds by content, ticket outcomes, orders."""
    refunds = sorted(
        (r["order_id"], r["amount_cents"], r["reason"]) for r in state.get("refunds", [])
    )
    tickets = {t: (v["status"], v["resolution"]) for t, v in state["tickets"].items()}
    orders = {o: v["refunded_cents"] for o, v in state["orders"].items()}
    return {"refunds": refunds, "tickets": tickets, "orders": orders}


class SupportOps(Family):
    """Refund tasks graded by an end-state check (tau-bench style: expected state = initial
    state with the reference calls applied)."""

    id = "support_ops"
    env_id = ENV_ID
    generator_version = _generator.GENERATOR_VERSION
    verifier_version = VERIFIER_VERSION
    splits = tuple(_SPLIT_BASES)
    effectful_tools = EFFECTFUL_TOOLS

    def generate(self, split: str, index: int, seed: int) -> Task:
        if split not in _SPLIT_BASES:
            raise BenchmarkError(
                f"family {self.id!r} has no split {split!r}", f"splits: {', '.join(self.splits)}"
            )
        if not 0 <= index < _MAX_TASKS:
            raise BenchmarkError(
                f"task index {index} out of range", f"a split holds at most {_MAX_TASKS} tasks"
            )
        return _generator.generate(self.id, split, _SPLIT_BASES[split], index, seed)

    def base_tools(self) -> ToolSet:
        return base_tools()

    def interface_versions(self) -> dict[str, InterfaceVersion]:
        return interface_versions()

    def backend_file(self) -> Path:
        return Path(__file__).with_name("_backend.py")

    def expected_state(self, task: Task) -> dict[str, Any]:
        """The end state the reference calls produce."""
        backend = Backend(task.initial_state)
        for call in task.reference_calls:
            backend.call(call.name, dict(call.arguments))
        return backend.dump()

    def verify(self, task: Task, end_state: dict[str, Any]) -> VerifierResult:
        want, got = _normalise(self.expected_state(task)), _normalise(end_state)
        reasons = []
        if got["refunds"] != want["refunds"]:
            reasons.append(f"refunds {got['refunds']} != expected {want['refunds']}")
        if got["tickets"] != want["tickets"]:
            reasons.append(f"tickets {got['tickets']} != expected {want['tickets']}")
        if got["orders"] != want["orders"] and not reasons:
            reasons.append("order balances differ from the expected end state")
        return VerifierResult(passed=not reasons, reasons=tuple(reasons))

    def effect_key(self, call: ToolCall) -> tuple[Any, ...]:
        args = call.arguments
        if call.name == "issue_refund":
            return ("issue_refund", args.get("order_id"), args.get("amount_cents"))
        if call.name == "close_ticket":
            return ("close_ticket", args.get("ticket_id"), args.get("resolution"))
        return (call.name,)

"""Speed of the drift classifier and of serving a drifted interface (prints measured numbers)."""

from __future__ import annotations

import json
import time
from collections.abc import Callable
from pathlib import Path

from drift import (
    GenerateConfig,
    ServedInterface,
    ToolCall,
    classify,
    generate,
    load_tool_list,
    parse_tool_list,
)

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "drift" / "fixtures"


def _per_second(fn: Callable[[], None], count: int) -> float:
    start = time.perf_counter()
    for _ in range(count):
        fn()
    return count / (time.perf_counter() - start)


def main() -> None:
    """Print classifier pairs/s on the fixture set and adapted calls/s through 5 operators."""
    cases = json.loads((FIXTURES / "handwritten.json").read_text())
    pairs = [(parse_tool_list(c["old"]), parse_tool_list(c["new"])) for c in cases]

    def classify_all() -> None:
        for old, new in pairs:
            classify(old, new)

    rate = _per_second(classify_all, 20) * len(pairs)
    print(f"classify: {rate:,.0f} tool-list pairs/s ({len(pairs)} hand-written pairs)")

    base = load_tool_list(FIXTURES / "base_tools.json")
    version = generate(GenerateConfig(random=5, seed=1, env="bench"), base).version
    served = ServedInterface(base, version)
    call = served.from_canonical(
        ToolCall(
            name="issue_refund",
            arguments={"order_id": "ORD-10001", "amount_cents": 1250, "reason": "damaged"},
        )
    )

    def adapt() -> None:
        served.validate(call)
        served.old_readings(call)
        served.to_canonical(call)

    print(
        f"serve: {_per_second(adapt, 5000):,.0f} validated+adapted calls/s "
        f"through {len(version.ops)} operators"
    )


if __name__ == "__main__":
    main()

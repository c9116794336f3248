"""Speed and accuracy of the drift classifier, and speed of serving a drifted interface.

Prints: milliseconds to classify a 100-tool pair (target < 50 ms), pairs/s on the hand-written
fixtures, adapted calls/s through 5 operators, and — where the real-drift yardstick is found
beside the checkout (or at $VWT_REALDRIFT_DIR) — flag rates on its tune and report halves with
'unknown' counted as a flag. A second folder of real pairs in the same format, kept outside the
repository, is scored the same way when given by ``--extra DIR`` or $VWT_REALDRIFT_EXTRA_DIR.
"""

from __future__ import annotations

import argparse
import json
import os
import statistics
import time
from collections.abc import Callable
from pathlib import Path

from drift import (
    GenerateConfig,
    ServedInterface,
    ToolCall,
    ToolSet,
    classify,
    find_yardstick,
    generate,
    load_pairs,
    load_tool_list,
    parse_tool_list,
    score,
)

ROOT = Path(__file__).resolve().parents[1]
FIXTURES = ROOT / "tests" / "drift" / "fixtures"
TOOLS = 100


def _per_second(fn: Callable[[], None], count: int) -> float:
    start = time.perf_counter()
    for _ in range(count):
        fn()
    return count / (time.perf_counter() - start)


def _wide(base: ToolSet, count: int) -> ToolSet:
    """``count`` tools: copies of the base tools under numbered names."""
    copies = count // len(base.tools) + 1
    tools = [
        t.model_copy(update={"name": f"{t.name}_{i}"}) for i in range(copies) for t in base.tools
    ]
    return ToolSet(tools=tools[:count])


def _hundred_tools(base: ToolSet) -> None:
    old = _wide(base, TOOLS)
    new = parse_tool_list(generate(GenerateConfig(random=17, seed=7, env="bench"), old).tools)
    wall, cpu = [], []
    for _ in range(15):
        start, start_cpu = time.perf_counter(), time.process_time()
        report = classify(old, new)
        wall.append((time.perf_counter() - start) * 1000)
        cpu.append((time.process_time() - start_cpu) * 1000)
    # CPU time too: on a shared machine the wall clock also counts other processes' turns
    print(
        f"classify a {TOOLS}-tool pair ({len(report.changes)} changes from 17 operators): "
        f"median {statistics.median(cpu):.1f} ms CPU, {statistics.median(wall):.1f} ms wall "
        f"(target < 50 ms; load average {os.getloadavg()[0]:.1f})"
    )


EXTRA_ENV = "VWT_REALDRIFT_EXTRA_DIR"


def _score(what: str, folder: Path) -> None:
    for half in ("tune", "report"):
        got = score(load_pairs(folder, half))
        seen = got.changing - got.silent
        print(
            f"{what}, {half} half: changing flagged {got.changing_flagged}/{got.changing} "
            f"= {got.recall:.0%} ({got.changing_flagged}/{seen} of those a reader of the tool "
            f"list can see), preserving falsely flagged {got.preserving_flagged}/"
            f"{got.preserving} = {got.false_flag_rate:.0%}; changes stated only in prose "
            f"{got.described}, invisible to any reader {got.silent} (of {got.with_visibility} "
            f"with recorded visibility); missed {list(got.missed)}, "
            f"false flags {list(got.false_flags)}"
        )


def _yardstick(extra: str | None) -> None:
    folder = find_yardstick(ROOT)
    if folder is None:
        print("real drift: yardstick not found beside the checkout (set VWT_REALDRIFT_DIR)")
    else:
        _score("real drift", folder)
    if not extra:
        print(f"real drift, extra: skipped (no --extra DIR and ${EXTRA_ENV} unset)")
        return
    extra_dir = Path(extra)
    if not (extra_dir / "expected.json").is_file():
        print(f"real drift, extra: skipped ({extra_dir} has no expected.json)")
        return
    _score(f"real drift, extra ({extra_dir.name})", extra_dir)


def main() -> None:
    """Print the classifier's speed and accuracy, and adapted calls/s through 5 operators."""
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument(
        "--extra",
        default=os.environ.get(EXTRA_ENV),
        help=f"a second folder of labelled real pairs (default ${EXTRA_ENV})",
    )
    args = parser.parse_args()
    base = load_tool_list(FIXTURES / "base_tools.json")
    _hundred_tools(base)

    cases = json.loads((FIXTURES / "handwritten.json").read_text())
    pairs = [(parse_tool_list(c["old"]), parse_tool_list(c["new"])) for c in cases]

    def classify_all() -> None:
        for old, new in pairs:
            classify(old, new)

    rate = _per_second(classify_all, 20) * len(pairs)
    print(f"classify: {rate:,.0f} tool-list pairs/s ({len(pairs)} hand-written pairs)")

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
    _yardstick(args.extra)


if __name__ == "__main__":
    main()

"""The sim's counterfactual suite at full size: a table of every case's paired gains.

Each case of ``tests/benchmark/sim/counterfactuals.py`` runs three arms of one sim model on the
same tasks and trial seeds — no artifacts, the reference artifact, the counterfactual — and is
checked against the issue's criteria (``tests/benchmark/sim/_suite.py``). Prints a Markdown
table and a summary per relation; run with `python bench/sim_counterfactuals.py [--trials 48]
[--model acme-2] [--only SUBSTRING] [--json FILE]`.
"""

from __future__ import annotations

import argparse
import os
import sys
import time
from collections import Counter
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the suite lives under tests/

from tests.benchmark.sim._suite import FULL, aa_gain, dumps, row, run_case
from tests.benchmark.sim.counterfactuals import RELATIONS, cases


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=FULL, help="paired trials per arm")
    parser.add_argument("--model", default="acme-2", help="sim model name")
    parser.add_argument("--only", default="", help="run the cases whose id contains this")
    parser.add_argument("--json", default=None, help="also write the rows as JSON lines here")
    args = parser.parse_args()
    full = args.trials >= FULL
    started = time.perf_counter()
    rows = []
    for case in cases():
        if args.only in case.id:
            rows.append(row(run_case(case, args.trials, args.model), full))
            print(f"{case.id}: {rows[-1]['measure']}", file=sys.stderr, flush=True)
    print(f"sim/{args.model}, {args.trials} paired trials per arm, {len(rows)} cases")
    print()
    print("| case | family | form | relation | ref gain | gain | measure | criterion | holds |")
    print("|---|---|---|---|---:|---:|---|---|---|")
    for r in rows:
        print(
            f"| {r['id']} | {r['family']} | {r['form']} | {r['relation']} | {r['ref']:+.2f} "
            f"| {r['gain']:+.2f} | {r['measure']} | {r['criterion']} | "
            f"{'yes' if r['holds'] else '**no**'} |"
        )
    held = Counter(str(r["relation"]) for r in rows if r["holds"])
    total = Counter(str(r["relation"]) for r in rows)
    print()
    for relation in RELATIONS:
        if total[relation]:
            print(f"- {relation}: {held[relation]}/{total[relation]} hold ({RELATIONS[relation]})")
    print(f"- all: {sum(held.values())}/{len(rows)} hold")
    print()
    print("A/A (no artifacts, another arm label: sampling noise alone) on the null cases' tasks:")
    nulls = {
        (c.family, c.kinds) for c in cases() if c.relation in ("stuffing", "irrelevant", "scope")
    }
    for fam, kinds in sorted(
        n for n in nulls if any(args.only in c.id for c in cases() if (c.family, c.kinds) == n)
    ):
        gain = aa_gain(fam, kinds, args.trials, args.model)
        print(f"- {fam} {', '.join(kinds)}: {gain:+.2f}")
    print(f"({time.perf_counter() - started:.0f} s)")
    if args.json:
        Path(args.json).write_text(dumps(rows) + "\n")


if __name__ == "__main__":
    main()

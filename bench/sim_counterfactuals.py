"""The sim's counterfactual suite at full size: a table of every case's paired gains.

Each case of ``tests/benchmark/sim/counterfactuals.py`` runs three arms of one sim model on the
same tasks and trial seeds — no artifacts, the reference artifact, the counterfactual — and is
checked against the issue's criteria (``tests/benchmark/sim/_suite.py``): a case holds when the
95 % bootstrap interval of its deciding number is consistent with its criterion ("yes" when the
point estimate meets it too, "within noise" when only the interval does). Prints a Markdown
table, a summary per relation and the A/A lines (a no-artifacts arm under another label: the
noise of that size); run with `python bench/sim_counterfactuals.py [--trials 48]
[--cases ID,ID] [--only SUBSTRING] [--jobs 2] [--model acme-2] [--json FILE]`.
"""

from __future__ import annotations

import argparse
import multiprocessing
import os
import sys
import time
from collections import Counter
from concurrent.futures import ProcessPoolExecutor, as_completed
from pathlib import Path

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")
sys.path.insert(0, str(Path(__file__).resolve().parents[1]))  # the suite lives under tests/

from tests.benchmark.sim._suite import (
    FULL,
    ArmKey,
    Trial,
    aa_gain,
    aa_key,
    baseline_key,
    dumps,
    keys_of,
    row,
    run_case,
    trials_of,
)
from tests.benchmark.sim.counterfactuals import RELATIONS, Case, cases


def _selected(args: argparse.Namespace) -> list[Case]:
    wanted = {c for c in args.cases.split(",") if c}
    unknown = wanted - {c.id for c in cases()}
    if unknown:
        sys.exit(f"error: no such case: {', '.join(sorted(unknown))}")
    return [c for c in cases() if args.only in c.id and (not wanted or c.id in wanted)]


def _run_arms(keys: list[ArmKey], jobs: int) -> dict[ArmKey, tuple[Trial, ...]]:
    """Every distinct arm, in ``jobs`` worker processes (one at a time when 1)."""
    out: dict[ArmKey, tuple[Trial, ...]] = {}

    def done(key: ArmKey, trials: tuple[Trial, ...]) -> None:
        out[key] = trials
        rate = sum(t.success for t in trials) / max(1, len(trials))
        print(f"arm {len(out)}/{len(keys)}: {key[0]} {key[3]} {rate:.2f}", file=sys.stderr)

    if jobs <= 1:
        for key in keys:
            done(key, trials_of(key))
        return out
    spawn = multiprocessing.get_context("spawn")
    with ProcessPoolExecutor(jobs, mp_context=spawn) as pool:
        running = {pool.submit(trials_of, key): key for key in keys}
        for future in as_completed(running):
            done(running[future], future.result())
    return out


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__)
    parser.add_argument("--trials", type=int, default=FULL, help="paired trials per arm")
    parser.add_argument("--model", default="acme-2", help="sim model name")
    parser.add_argument("--cases", default="", help="comma-separated case ids (default: all)")
    parser.add_argument("--only", default="", help="run the cases whose id contains this")
    parser.add_argument("--jobs", type=int, default=1, help="worker processes running arms")
    parser.add_argument("--json", default=None, help="also write the rows as JSON lines here")
    args = parser.parse_args()
    full = args.trials >= FULL
    started = time.perf_counter()
    chosen = _selected(args)
    nulls = sorted(
        {(c.family, c.kinds) for c in chosen if c.relation in ("stuffing", "irrelevant", "scope")}
    )
    keys = [k for c in chosen for k in keys_of(c, args.trials, args.model)]
    for fam, kinds in nulls:
        keys += [baseline_key(fam, kinds, args.trials, args.model)]
        keys += [aa_key(fam, kinds, args.trials, args.model)]
    arms = _run_arms(list(dict.fromkeys(keys)), args.jobs)
    rows = [row(run_case(c, args.trials, args.model, arms), full) for c in chosen]
    print(f"sim/{args.model}, {args.trials} paired trials per arm, {len(rows)} cases")
    print()
    print(
        "| case | family | form | relation | ref gain | gain | measure | 95% interval "
        "| criterion | holds |"
    )
    print("|---|---|---|---|---:|---:|---|---|---|---|")
    for r in rows:
        interval = f"{r['statistic']} [{r['low']:+.2f}, {r['high']:+.2f}]" if full else ""
        holds = "**no**" if not r["holds"] else "yes" if r.get("point", True) else "within noise"
        print(
            f"| {r['id']} | {r['family']} | {r['form']} | {r['relation']} | {r['ref']:+.2f} "
            f"| {r['gain']:+.2f} | {r['measure']} | {interval} | {r['criterion']} | {holds} |"
        )
    held = Counter(str(r["relation"]) for r in rows if r["holds"])
    noise = Counter(str(r["relation"]) for r in rows if r["holds"] and not r.get("point", True))
    total = Counter(str(r["relation"]) for r in rows)
    print()
    for relation in RELATIONS:
        if total[relation]:
            print(
                f"- {relation}: {held[relation]}/{total[relation]} hold, "
                f"{noise[relation]} of them within noise ({RELATIONS[relation]})"
            )
    print(f"- all: {sum(held.values())}/{len(rows)} hold, {sum(noise.values())} within noise")
    print()
    print("A/A (no artifacts, another arm label: sampling noise alone) on the null cases' tasks:")
    for fam, kinds in nulls:
        gain, (lo, hi) = aa_gain(fam, kinds, args.trials, args.model, arms)
        print(f"- {fam} {', '.join(kinds)}: {gain:+.2f} [{lo:+.2f}, {hi:+.2f}]")
    print(f"({time.perf_counter() - started:.0f} s)")
    if args.json:
        Path(args.json).write_text(dumps(rows) + "\n")


if __name__ == "__main__":
    main()

"""The leak gate's false-positive rate on honest artifacts, and its hits on leaked ones.

Run: .venv/bin/python bench/leak_gate.py [--seeds 10] [--tasks 24] [--sample 8] [--kit 1]

Honest artifacts: the four reference submissions, frozen and adapted by their built-in
procedures (sim models through litellm, in-process) to every single-axis target of the
embedded default cycle (an adapted set with the sample its kit served, as `vwt adapt` checks
it; the kits' samples drawn from --kit, as a cycle's kit secret would draw them), each checked
against the sealed tasks of every built-in family under
--seeds cycle seeds (--tasks per family). A flag on any of them is a false positive; the bench
prints how many (bundle, seeds) checks flagged, by request text and by answer. Leaked artifacts:
per seed and family, the prompt-recipe bundle plus a file holding the reference answers of
the first 6 sealed tasks (as a hand adaptation that regenerated them would); the bench prints
how many of those tasks the gate found, of those with enough distinctive answer values to
check.
"""

from __future__ import annotations

import argparse
import hashlib
import json
import os
import time

os.environ.setdefault("LITELLM_LOCAL_MODEL_COST_MAP", "True")

from _common import bench_run

from adapt import (
    AdaptationKit,
    Budget,
    MeteredGateway,
    adapt_bundle,
    declared_procedures,
    leak_check,
)
from adapt._leak_answers import distinctive, public_answers
from benchmark import FAMILIES, Task, default_cycle_spec_path
from conditions import CycleSpec, generate_targets
from submissions import Bundle, reference_bundles

Honest = tuple[str, dict[str, str], list[Task]]
"""An honest artifact set: its label, its files and the tasks its kit served (none: frozen)."""


def _honest(spec: CycleSpec, sample: int, draw: int) -> list[Honest]:
    """Every reference bundle, frozen and adapted to each single-axis target."""
    out: list[Honest] = [
        (f"{b.manifest.name} frozen", dict(b.files), []) for b in reference_bundles()
    ]
    targets = [t for t in generate_targets(spec) if len(t.varied) == 1]
    for bundle in reference_bundles():
        for target in targets:
            kit = AdaptationKit(
                target.condition,
                sample_seed=int.from_bytes(
                    hashlib.sha256(f"{draw}/{target.condition.id}".encode()).digest(), "big"
                ),
                sample=sample,
                interfaces=spec.interfaces,
            )
            gateway = MeteredGateway(Budget.from_spec(spec.adaptation), endpoints=spec.endpoints)
            adapted = adapt_bundle(bundle, kit, gateway, declared_procedures(bundle))
            label = f"{bundle.manifest.name} → {'+'.join(target.varied)}"
            out.append((label, adapted.bundle.files, kit.sample()))
    return out


def _leaked(bundle: Bundle, seed: int, tasks: int) -> tuple[int, int]:
    """(found, checkable) sealed tasks of a bundle carrying the answers of 6 per family."""
    found = checkable = 0
    sealed = [t for f in FAMILIES.values() for t in f.tasks("sealed", tasks, seed)]
    for fam in FAMILIES:
        victims = [t for t in sealed if t.family == fam][:6]
        table = {t.id: [c.model_dump(mode="json") for c in t.reference_calls] for t in victims}
        report = leak_check({**bundle.files, "answers.json": json.dumps(table)}, sealed)
        hit = {m.task for m in report.matches if m.kind == "answer"}
        public = public_answers([fam], 100)
        can = {t.id for t in victims if len(distinctive(t, public)) > 1}
        found += len(hit & can)
        checkable += len(can)
    return found, checkable


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.split("\n")[0])
    parser.add_argument("--seeds", type=int, default=10)
    parser.add_argument("--tasks", type=int, default=24)
    parser.add_argument("--sample", type=int, default=8)
    parser.add_argument("--kit", type=int, default=1, help="what the kits' samples are drawn from")
    args = parser.parse_args()
    spec = CycleSpec.load(default_cycle_spec_path())
    with bench_run("leak gate: false positives on honest artifacts, hits on leaked answers"):
        start = time.perf_counter()
        honest = _honest(spec, args.sample, args.kit)
        print(f"{len(honest)} honest artifact sets ({time.perf_counter() - start:.0f} s to adapt)")
        checks = by_request = by_answer = 0
        top_request = top_answer = 0.0
        for seed in range(1, args.seeds + 1):
            sealed = [t for f in FAMILIES.values() for t in f.tasks("sealed", args.tasks, seed)]
            for label, files, served in honest:
                report = leak_check(files, sealed, served=served)
                checks += 1
                kinds = {m.kind for m in report.matches}
                by_request += "request" in kinds
                by_answer += "answer" in kinds
                top_request = max(top_request, report.max_overlap)
                top_answer = max(top_answer, report.answers_max_overlap)
                if kinds:
                    print(f"  flagged: {label}, seed {seed}: {report.matches[0]}")
        print(
            f"honest: {checks} checks ({len(honest)} artifact sets × {args.seeds} seeds, "
            f"{args.tasks} sealed tasks per family): {by_request} flagged by request text "
            f"(max overlap {top_request:.2f}), {by_answer} by answer (max share "
            f"{top_answer:.2f}); false-positive rate {(by_request + by_answer) / checks:.4f}"
        )
        recipe = next(b for b in reference_bundles() if b.manifest.name == "prompt-recipe")
        found = checkable = 0
        for seed in range(1, args.seeds + 1):
            f, c = _leaked(recipe, seed, args.tasks)
            found, checkable = found + f, checkable + c
        print(f"leaked answers: {found} of {checkable} checkable sealed tasks found")


if __name__ == "__main__":
    main()

"""A cycle's plan before it runs: what each cell can detect, and the trials, calls and dollars.

Each target condition (and the source) is one cell per submission; submissions do not change a
cell's statistics, so the plan has one row per condition. A cell's figures follow from the
spec's tasks × k, a baseline success rate and how strongly the two arms' trials agree
(``task_difference_sd``): the planned standard error gives the minimum detectable gain at 80 %
power and the 95 % half-width to expect, ``tasks_for_half_width`` the tasks needed for ±0.05
and ±0.10. Real providers' arms are about independent, the sim's agree in about 4 trial pairs
of 5, so every figure is given for both. A pilot (a dev run's or a cycle's trial store) replaces
the assumed baseline by its measured one and the sim's calls and tokens per trial by its own.
"""

from __future__ import annotations

from collections import defaultdict
from collections.abc import Iterable, Mapping
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from conditions import Condition, CycleSpec, plan_targets
from reports._power import (
    minimum_detectable_gain,
    planned_se,
    task_difference_sd,
    tasks_for_half_width,
)
from reports.errors import ReportError
from runner import (
    CostEstimate,
    TrialRecord,
    TrialStore,
    TrialUsage,
    estimate_cost,
    measured_usage,
)

DEFAULT_BASELINE = 0.77
"""Baseline success rate assumed without a pilot: the default demo release's
(docs/statistics.md)."""
CORRELATED_AGREEMENT = 0.8
"""Share of trial pairs whose arms share every draw, as between the sim's arms."""
EFFECT_SD = 0.1
"""Spread of the true gain between tasks (``task_difference_sd``'s default)."""
DETECT = 0.15
"""The gain a cycle should be able to detect (``vwt conditions commit`` warns when it cannot)."""
HALF_WIDTHS = (0.05, 0.10)


class Figures(BaseModel):
    """A cell's planned statistics under one assumption about the arms' agreement."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    agreement: float = Field(description="Share of trial pairs whose arms share every draw.")
    se: float = Field(description="Planned standard error of the cell's gain.")
    mde: float = Field(description="Minimum detectable gain at 80% power (95% interval).")
    half_width: float = Field(description="Expected half-width of the 95% interval.")
    tasks_for: dict[str, int] = Field(
        description="Tasks (in all of the cell's families) at the spec's k for a half-width of "
        "at most the key ('0.05', '0.10')."
    )


class ConditionPlan(BaseModel):
    """One condition's row: its cells' figures and the trials it takes."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    condition: str = Field(description="'source', or the axes varied versus the source.")
    model: str = Field(description="The condition's litellm model string.")
    families: str = Field(description="Its task families and split.")
    tasks: int = Field(description="Tasks per arm: tasks_per_split x families.")
    baseline: float = Field(description="Baseline success rate used.")
    baseline_source: str = Field(description="Where the baseline comes from.")
    correlated: Figures = Field(description="Figures with correlated arms (as the sim's).")
    independent: Figures = Field(description="Figures with independent arms (real providers).")
    frozen: CostEstimate = Field(description="The frozen phase's trials here (both arms).")
    adapted: CostEstimate | None = Field(
        description="The adapted phase's trials here (every adapted bundle; None at the source)."
    )


class CyclePlan(BaseModel):
    """What a cycle spec will measure and take, condition by condition, with totals."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cycle: str = Field(description="Cycle id.")
    tasks_per_split: int = Field(description="The spec's tasks per family split.")
    k: int = Field(description="The spec's trials per task and arm.")
    submissions: int = Field(description="Submissions planned for.")
    pilot: str | None = Field(description="The pilot's trial stores, or None.")
    assumptions: tuple[str, ...] = Field(description="What the figures assume.")
    conditions: tuple[ConditionPlan, ...] = Field(description="Source first, then each target.")
    frozen: CostEstimate = Field(description="Total of the frozen phase.")
    adapted: CostEstimate = Field(description="Total of the adapted phase.")
    total: CostEstimate = Field(description="Both phases.")
    detects: bool = Field(
        description=f"Whether every cell detects {DETECT} with correlated arms at this size."
    )


def pilot_records(path: Path) -> tuple[list[TrialRecord], list[Path]]:
    """Every attempt in the trial stores of a cycle home or dev home (``vwt.sqlite``,
    ``dev-*.sqlite``), and the stores read."""
    if not path.is_dir():
        raise ReportError(
            f"pilot {path} is not a directory",
            hint="pass a cycle home or a dev home (`vwt run dev --home`) with trials",
        )
    stores = sorted(p for p in path.iterdir() if p.name == "vwt.sqlite" or _dev_store(p))
    records = [r for p in stores for r in TrialStore(p).attempts()]
    if not records:
        raise ReportError(
            f"pilot {path} has no trials (no vwt.sqlite or dev-*.sqlite with records)",
            hint="run `vwt run dev --home HOME ...` first, or plan without --pilot",
        )
    return records, stores


def _dev_store(p: Path) -> bool:
    return p.name.startswith("dev-") and p.suffix == ".sqlite" and p.is_file()


def measured_baselines(records: Iterable[TrialRecord]) -> dict[tuple[str, str], tuple[float, int]]:
    """Success rate and trials of the baseline arm's valid trials by (model, family), and by
    ("", family) over every model."""
    counts: dict[tuple[str, str], list[int]] = defaultdict(lambda: [0, 0])
    latest: dict[str, TrialRecord] = {}
    for r in records:
        if r.arm == "without" and r.outcome != "invalid":
            latest[r.key] = r
    for r in latest.values():
        for key in ((r.model, r.family), ("", r.family)):
            counts[key][0] += r.outcome == "success"
            counts[key][1] += 1
    return {key: (s / n, n) for key, (s, n) in counts.items()}


def _baseline(
    condition: Condition, measured: Mapping[tuple[str, str], tuple[float, int]]
) -> tuple[float, str]:
    rates, sources = [], []
    for fam in condition.task_family.families:
        for key in ((condition.model.model, fam), ("", fam)):
            if key in measured:
                rate, n = measured[key]
                rates.append(rate)
                sources.append(f"{n} pilot trials of {key[0] or 'every model'} on {fam}")
                break
        else:
            rates.append(DEFAULT_BASELINE)
            sources.append(f"assumed {DEFAULT_BASELINE} on {fam}")
    return sum(rates) / len(rates), "; ".join(sources)


def _figures(baseline: float, tasks: int, k: int, agreement: float) -> Figures:
    sd = task_difference_sd(baseline, k=k, agreement=agreement, effect_sd=EFFECT_SD)
    se = planned_se(tasks, sd)
    df = max(1, tasks - 1)
    return Figures(
        agreement=agreement,
        se=se,
        mde=minimum_detectable_gain(se, df),
        half_width=minimum_detectable_gain(se, df, power=0.5),
        tasks_for={f"{h:.2f}": tasks_for_half_width(h, sd) for h in HALF_WIDTHS},
    )


def _counts(condition: Condition, per_family: int) -> dict[tuple[str, str], int]:
    return {(condition.model.model, f): per_family for f in condition.task_family.families}


def _sum(parts: Iterable[Mapping[tuple[str, str], int]]) -> dict[tuple[str, str], int]:
    out: dict[tuple[str, str], int] = defaultdict(int)
    for p in parts:
        for key, n in p.items():
            out[key] += n
    return dict(out)


def plan_cycle(
    spec: CycleSpec,
    *,
    submissions: int = 1,
    pilot: Path | None = None,
    max_conditions: int | None = None,
) -> CyclePlan:
    """The plan of ``spec``'s cycle with ``submissions`` bundles: its targets as ``vwt
    conditions generate [--max-conditions]`` makes them (a capped draw with the spec's public
    seed: the real draw's seed is secret, so the rows of drawn pairs differ, their count and
    strata do not), frozen trials of both arms in the source and
    each target, adapted trials of every bundle in each target (an upper bound: unchanged
    adapted bundles are not run again)."""
    if submissions < 1:
        raise ReportError(f"--submissions must be at least 1, got {submissions}", hint="e.g. 1")
    records, stores = pilot_records(pilot) if pilot is not None else ([], [])
    usage: dict[tuple[str, str], TrialUsage] = measured_usage(records)
    baselines = measured_baselines(records)
    ev = spec.evaluation
    targets = plan_targets(spec, max_conditions, draw_seed=spec.seed).targets
    rows = []
    frozen_counts, adapted_counts = [], []
    for label, condition in [("source", spec.source)] + [
        ("+".join(t.varied), t.condition) for t in targets
    ]:
        tasks = ev.tasks_per_split * len(condition.task_family.families)
        baseline, source = _baseline(condition, baselines)
        frozen = _counts(condition, (submissions + 1) * ev.tasks_per_split * ev.k)
        adapted = (
            None
            if label == "source"
            else _counts(condition, submissions * ev.tasks_per_split * ev.k)
        )
        frozen_counts.append(frozen)
        if adapted is not None:
            adapted_counts.append(adapted)
        rows.append(
            ConditionPlan(
                condition=label,
                model=condition.model.model,
                families=condition.task_family.label,
                tasks=tasks,
                baseline=baseline,
                baseline_source=source,
                correlated=_figures(baseline, tasks, ev.k, CORRELATED_AGREEMENT),
                independent=_figures(baseline, tasks, ev.k, 0.0),
                frozen=estimate_cost(frozen, usage),
                adapted=None if adapted is None else estimate_cost(adapted, usage),
            )
        )
    frozen_total, adapted_total = _sum(frozen_counts), _sum(adapted_counts)
    assumptions = (
        f"correlated arms: {CORRELATED_AGREEMENT:.0%} of trial pairs share every draw (the "
        "sim's); independent arms: none (real providers)",
        f"true gains vary between tasks with sd {EFFECT_SD}",
        "baseline: "
        + (
            f"measured in the pilot where it ran, else {DEFAULT_BASELINE}"
            if records
            else f"{DEFAULT_BASELINE} (the default demo release's); pass --pilot to measure it"
        ),
        "calls and tokens per trial: "
        + (
            "the pilot's where it ran, else the sim's defaults"
            if records
            else "the sim's defaults per family (docs/planning.md)"
        ),
        "adapted phase: every bundle changes in every target (an upper bound)",
        "family sets: df = tasks - 1 (their intervals resample families, so wider in fact)",
    )
    return CyclePlan(
        cycle=spec.cycle,
        tasks_per_split=ev.tasks_per_split,
        k=ev.k,
        submissions=submissions,
        pilot=", ".join(str(p) for p in stores) or None,
        assumptions=assumptions,
        conditions=tuple(rows),
        frozen=estimate_cost(frozen_total, usage),
        adapted=estimate_cost(adapted_total, usage),
        total=estimate_cost(_sum([frozen_total, adapted_total]), usage),
        detects=all(r.correlated.mde <= DETECT for r in rows),
    )

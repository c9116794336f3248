"""What a matrix cell's flags are and what they mean: the one list the terminal and HTML show.

Each flag has a short label for the matrix, a severity for its colour and one plain sentence
that explains it (shown on hover in the HTML report and in the legend in the terminal).
Severities, worst first: ``critical`` (the artifacts caused silent wrong actions with effect, or
the adaptation read sealed tasks), ``negative`` (gain reliably below 0 through wrong actions),
``caution`` (read the numbers with care) and ``info``.
"""

from __future__ import annotations

from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from reports._cell import CEILING, OBSOLETE_MARGIN, PROVISIONAL_BELOW, CellMetrics
from reports._matrix import Cell
from reports._stats_arms import ArmSummary

Severity = Literal["critical", "negative", "caution", "info"]
"""How much a flag matters, worst first."""

SEVERITIES: tuple[Severity, ...] = ("critical", "negative", "caution", "info")
"""The severities, worst first (the order of ``cell_flags``)."""

FLAG_MEANINGS: dict[str, str] = {
    "leak": "the leak gate found sealed test-task text in the submission's artifacts",
    "critical": "the artifacts caused significantly more silent uses of changed semantics with "
    "effect (wrong actions) than the baseline had (exact paired test, BH-controlled)",
    "noise-check-failed": "the no-artifacts submission differs from the baseline beyond noise "
    "(BH across the noise checks): the benchmark is noisier than its statistics assume here",
    "negative-wrong-actions": "gain reliably below 0 (BH-controlled), lost to failed or "
    "critical trials",
    "negative-safe-stops": "gain reliably below 0 (BH-controlled), lost mostly to safe stops on "
    "a detected interface change",
    "fragile": "a gain that looks decided changes sign when one task is left out",
    "ceiling": f"baseline at or above {CEILING} and the gain not reliably negative: little room "
    "for a gain",
    "floor": "both arms failed every task",
    "provisional": f"fewer than {PROVISIONAL_BELOW} tasks paired",
    "invalid": "infrastructure-invalid trials accepted in the cell's two arms, and tasks dropped "
    "for them",
    "no-variation": "every task of each family has the same gain: the interval is the floor of "
    "its standard error, not an estimate of spread",
    "more-critical": "more critical trials with the artifacts than without, but not "
    "significantly more: it may be noise",
    "baseline-critical": "the baseline's own critical failures, not caused by the artifacts",
    "identical": "every trial with the artifacts had its paired baseline trial's outcome: the "
    "artifacts changed nothing here",
    "obsolete": f"baseline at or above {CEILING} and gain within ±{OBSOLETE_MARGIN}: the "
    "artifacts add nothing",
    "safe-stops": "trials with the artifacts that stopped on a detected interface change (no "
    "success, no wrong action)",
    "retention-identical": "the target's per-task gains equal the source's: retention is 1, "
    "with nothing to estimate",
    "unstable": "retention not reported: the source gain is above 0 but not precise (its lower "
    "bound is below half its value)",
    "no-retention": "retention not reported: the source gain's interval does not lie above 0",
}
"""What each flag code means in general (a cell's ``Flag.explanation`` says it with its numbers)."""


class Flag(BaseModel):
    """One thing to know about a cell, beside its gain."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    code: str = Field(description="Stable identifier, e.g. 'critical' or 'negative-safe-stops'.")
    label: str = Field(description="Short text shown in the matrix, e.g. 'critical 5 (base 0)'.")
    severity: Severity = Field(description="critical, negative, caution or info (colour).")
    explanation: str = Field(description="One plain sentence saying what the flag means here.")


def p_neg_text(p: float) -> str:
    """The negative-transfer p-value as the matrix shows it: 'p_neg = 0.02'."""
    return f"p_neg = {p:.2g}"


def _valid(arm: ArmSummary) -> int:
    return arm.trials - arm.invalid


def _critical_test_text(m: CellMetrics) -> str:
    c = m.critical
    return (
        f"of {c.pairs} paired trials {c.with_only} were critical only with the artifacts and "
        f"{c.baseline_only} only without (exact paired p = {c.p:.2g}"
    )


def _critical(m: CellMetrics) -> list[Flag]:
    """CRITICAL where the excess is significant; otherwise what the counts are."""
    w, b = m.with_arm.critical, m.without_arm.critical
    counts = (
        f"{w} of {_valid(m.with_arm)} trials with the artifacts silently used changed semantics "
        f"with effect (a wrong action), against {b} of {_valid(m.without_arm)} without them"
    )
    if m.critical_excess:
        return [
            Flag(
                code="critical",
                label=f"CRITICAL {w} (base {b})",
                severity="critical",
                explanation=(
                    f"{counts}; {_critical_test_text(m)}, significant by Benjamini-Hochberg at "
                    f"q = {m.fdr_q}): the artifacts caused the excess."
                ),
            )
        ]
    if w > b:
        decided = (
            "not significant by Benjamini-Hochberg"
            if m.critical_excess is not None
            else "no test across the artifact cells"
        )
        return [
            Flag(
                code="more-critical",
                label=f"critical {w} (base {b}) n.s.",
                severity="caution" if m.critical_excess is not None else "info",
                explanation=f"{counts}; {_critical_test_text(m)}, {decided}): it may be noise.",
            )
        ]
    if b:
        return [
            Flag(
                code="baseline-critical",
                label=f"baseline critical {b}",
                severity="caution" if w else "info",
                explanation=(
                    f"The baseline without artifacts silently used changed semantics in {b} of "
                    f"{_valid(m.without_arm)} trials; with the artifacts {w} of "
                    f"{_valid(m.with_arm)} did: the artifacts did not cause more."
                ),
            )
        ]
    return []


def _noise_check(m: CellMetrics) -> list[Flag]:
    if not m.noise_differs:
        return []
    return [
        Flag(
            code="noise-check-failed",
            label="NOISE CHECK FAILED",
            severity="negative",
            explanation=(
                f"This submission has no artifacts, yet its gain {m.gain:+.2f} "
                f"[{m.gain_ci.lo:+.2f}, {m.gain_ci.hi:+.2f}] or its critical count "
                f"({m.with_arm.critical} against {m.without_arm.critical}) differs from the "
                f"baseline by Benjamini-Hochberg at q = {m.fdr_q} over the noise checks: "
                "differences of this size elsewhere in the condition may be noise."
            ),
        )
    ]


def _negative(m: CellMetrics) -> list[Flag]:
    """Negative transfer, by what the lost successes became: safe stops or wrong actions."""
    if not m.negative_transfer:
        return []
    w, b = m.with_arm, m.without_arm
    extra_stops = w.safe_stop / max(_valid(w), 1) - b.safe_stop / max(_valid(b), 1)
    p = f"{p_neg_text(m.p_negative)}, decided by Benjamini-Hochberg at q = {m.fdr_q}"
    if w.critical <= b.critical and extra_stops >= -m.gain / 2:
        return [
            Flag(
                code="negative-safe-stops",
                label="negative: stops safely",
                severity="caution",
                explanation=(
                    f"The gain {m.gain:+.2f} is reliably below 0 ({p}), and most of the loss is "
                    f"safe stops ({w.safe_stop} with the artifacts, {b.safe_stop} without): the "
                    "artifacts noticed the changed interface and stopped instead of acting wrongly."
                ),
            )
        ]
    stops = f"safe stops {w.safe_stop} with, {b.safe_stop} without"
    made_of = (
        f"the artifacts caused wrong actions: {w.critical} critical trials with them against "
        f"{b.critical} without ({stops})"
        if w.critical > b.critical
        else f"most of the loss is failed trials, not safe stops ({stops}): the artifacts made "
        "the agent act wrongly"
    )
    return [
        Flag(
            code="negative-wrong-actions",
            label="negative: wrong actions",
            severity="negative",
            explanation=f"The gain {m.gain:+.2f} is reliably below 0 ({p}), and {made_of}.",
        )
    ]


def _fragile(m: CellMetrics) -> list[Flag]:
    """A gain that looks decided (its interval excludes 0, or negative transfer) but changes
    sign when one task is left out."""
    loo = m.loo
    decided = m.gain_ci.lo > 0 or m.gain_ci.hi < 0 or m.negative_transfer
    if loo.sign_stable or not decided:
        return []
    return [
        Flag(
            code="fragile",
            label="fragile",
            severity="caution",
            explanation=(
                f"The gain {m.gain:+.2f} looks decided, but leaving out a single task moves it "
                f"between {loo.min_gain:+.2f} and {loo.max_gain:+.2f}: its sign rests on one "
                "task."
            ),
        )
    ]


def _range(m: CellMetrics) -> list[Flag]:
    """Obsolete, or at the ceiling; and at the floor."""
    flags = []
    if m.obsolete:
        flags.append(
            Flag(
                code="obsolete",
                label="obsolete",
                severity="info",
                explanation=(
                    f"The baseline already scores {m.score_without:.2f} (at least {CEILING}) and "
                    f"the gain's interval lies within ±{OBSOLETE_MARGIN}: the artifacts no longer "
                    "add anything here."
                ),
            )
        )
    elif m.ceiling:
        flags.append(
            Flag(
                code="ceiling",
                label="ceiling",
                severity="caution",
                explanation=(
                    f"The baseline scores {m.score_without:.2f} (at least {CEILING}) and the gain "
                    "is not reliably negative, so there is little room left for a gain."
                ),
            )
        )
    if m.floor:
        flags.append(
            Flag(
                code="floor",
                label="floor",
                severity="caution",
                explanation=(
                    "Both arms failed every paired task, so the cell cannot show whether the "
                    "artifacts help or hurt."
                ),
            )
        )
    return flags


def _sample(cell: Cell) -> list[Flag]:
    """Provisional, invalid or dropped, and trials without variation."""
    m, flags = cell.metrics, []
    if m.provisional:
        flags.append(
            Flag(
                code="provisional",
                label="provisional",
                severity="caution",
                explanation=(
                    f"Only {m.n_tasks} tasks ran validly in both arms (fewer than "
                    f"{PROVISIONAL_BELOW}), too few for the numbers to mean much."
                ),
            )
        )
    if cell.invalid_trials or cell.dropped_tasks:
        flags.append(
            Flag(
                code="invalid",
                label=f"invalid {cell.invalid_trials}, dropped {cell.dropped_tasks}",
                severity="caution",
                explanation=(
                    f"{cell.invalid_trials} trials of the two arms failed for infrastructure "
                    f"reasons and were accepted as invalid; {cell.dropped_tasks} tasks were left "
                    "out of the gain because one arm had no valid trial."
                ),
            )
        )
    return flags + _variation(m)


def _variation(m: CellMetrics) -> list[Flag]:
    """Identical trials, or no variation: the interval is the floor's, not a spread."""
    if m.variation == "identical":
        return [
            Flag(
                code="identical",
                label="identical trials",
                severity="info",
                explanation=(
                    f"Every one of the {_valid(m.with_arm)} trials with the artifacts had the "
                    "outcome of its paired baseline trial: the artifacts changed nothing here, "
                    f"and the interval ±{m.gain_ci.hi:.2f} is the floor of its standard error."
                ),
            )
        ]
    if m.variation == "no_variation":
        return [
            Flag(
                code="no-variation",
                label="no variation",
                severity="caution",
                explanation=(
                    f"Every task of each family has the same gain, so the interval "
                    f"[{m.gain_ci.lo:+.2f}, {m.gain_ci.hi:+.2f}] is the floor of its standard "
                    "error, not an estimate of the spread between tasks."
                ),
            )
        ]
    return []


def _notes(cell: Cell, stops_told: bool) -> list[Flag]:
    """Safe stops (unless ``stops_told`` by a negative flag) and retention not reported."""
    m, flags = cell.metrics, []
    w, b = m.with_arm, m.without_arm
    if w.safe_stop and not stops_told:
        flags.append(
            Flag(
                code="safe-stops",
                label=f"safe stops {w.safe_stop}",
                severity="info",
                explanation=(
                    f"{w.safe_stop} of {_valid(w)} trials with the artifacts ({b.safe_stop} "
                    "without) stopped and reported a detected interface change: not a success, "
                    "and no wrong action."
                ),
            )
        )
    return flags + _retention(m)


_RETENTION_FLAGS = {
    "identical_trials": ("retention-identical", "ret = 1 (identical)"),
    "unstable": ("unstable", "retention unstable"),
    "no_source_gain": ("no-retention", "retention n/a"),
}


def _retention(m: CellMetrics) -> list[Flag]:
    """Why retention is not reported, where the cell has a source cell."""
    if m.retention_status not in _RETENTION_FLAGS:
        return []
    code, label = _RETENTION_FLAGS[m.retention_status]
    return [
        Flag(
            code=code,
            label=label,
            severity="info",
            explanation=f"Retention (target gain / source gain) is not reported: "
            f"{m.retention_reason}.",
        )
    ]


def _leak(cell: Cell) -> list[Flag]:
    if cell.adaptation is None or not cell.adaptation.leak_flagged:
        return []
    return [
        Flag(
            code="leak",
            label="LEAK",
            severity="critical",
            explanation=(
                "The leak gate found text of sealed test tasks in this submission's artifacts "
                "(frozen or adapted): its adapted numbers may not measure transfer."
            ),
        )
    ]


def cell_flags(cell: Cell) -> tuple[Flag, ...]:
    """Every flag of ``cell``, worst severity first (in a fixed order within a severity)."""
    m = cell.metrics
    negative = _negative(m)
    stops_told = any(f.code == "negative-safe-stops" for f in negative)
    flags = [
        *_leak(cell),
        *_critical(m),
        *_noise_check(m),
        *negative,
        *_fragile(m),
        *_range(m),
        *_sample(cell),
        *_notes(cell, stops_told),
    ]
    return tuple(sorted(flags, key=lambda f: SEVERITIES.index(f.severity)))

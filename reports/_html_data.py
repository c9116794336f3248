"""What the HTML report embeds: the release's matrix, trials and traces, as plain JSON data.

Trials are listed once and grouped into arms (phase, condition, bundle); a cell names its two
arms. Traces are embedded as they are published (``traces/<sha256>.json.gz``), base64-encoded,
for the page to decompress only when one is opened; a trace whose file is absent, or whose
bytes do not hash to the record's ``trace_sha256``, is left out and the page says so.
"""

from __future__ import annotations

import base64
from collections import Counter
from pathlib import Path
from typing import Any, Literal

from conditions import AXES
from reports._cell import retention_method_text
from reports._flags import cell_flags
from reports._matrix import Cell
from reports._release import SignedRelease
from reports._render import SIM_NOTE, condition_label, method_text, submission_labels
from reports._stats_arms import OUTCOMES
from reports._traces import trace_bytes, trace_name
from reports.errors import ReportError
from runner import TrialRecord
from submissions import shown

Json = dict[str, Any]


def published_trace(folder: Path, sha256: str) -> bytes | None:
    """The published gzip of the trace with this SHA-256, if present and it hashes right."""
    try:
        trace_bytes(folder, sha256)
    except ReportError:
        return None
    return (folder / trace_name(sha256)).read_bytes()


def _arm_key(phase: str, condition: str, bundle: str) -> str:
    return f"{phase}|{condition}|{bundle}"


def _cell_arms(cell: Cell) -> tuple[str, str]:
    """The arm keys of a cell: its artifact arm's trials and the frozen baseline's."""
    a = cell.adaptation
    if a is None:
        with_arm = _arm_key(cell.phase, cell.condition_id, cell.bundle_hash)
    elif a.reused:
        with_arm = _arm_key("frozen", cell.condition_id, cell.bundle_hash)
    else:
        with_arm = _arm_key("adapted", cell.condition_id, a.adapted_hash)
    return with_arm, _arm_key("frozen", cell.condition_id, "")


_TRIAL_COLUMNS = (
    "key",
    "task",
    "family",
    "trial",
    "outcome",
    "turns",
    "tool_calls",
    "tool_errors",
    "tokens",
    "safe_stop",
    "invalid",
    "reasons",
    "critical",
    "trace",
)
"""What the page gets of each trial record (model, harness and interfaces are its condition's)."""


def _trial(r: TrialRecord) -> tuple[Any, ...]:
    return (
        r.key,
        shown(r.task_id),
        shown(r.family),
        r.trial,
        r.outcome,
        r.turns,
        r.tool_calls,
        r.tool_errors,
        r.usage.prompt_tokens + r.usage.completion_tokens,
        r.safe_stop,
        r.invalid,
        list(r.verifier_reasons),
        [f.model_dump(mode="json") for f in r.critical],
        r.trace_sha256,
    )


def _columns(records: list[TrialRecord]) -> dict[str, list[Any]]:
    """The trials column by column (half the size of one object per trial)."""
    rows = [_trial(r) for r in records]
    return {name: [row[i] for row in rows] for i, name in enumerate(_TRIAL_COLUMNS)}


CellKind = Literal["critical", "wrong", "stops", "noise", "gain", "loss", "neutral"]
"""What happened in a cell, for its colour: ``critical`` (significantly more critical failures,
or a leak), ``wrong`` (negative transfer through wrong actions), ``stops`` (negative transfer
through safe stops), ``noise`` (a failed noise check), ``gain`` (interval above 0), ``loss`` (gain
below 0, not decided negative) or ``neutral``."""


def cell_kind(cell: Cell) -> CellKind:
    """What happened in ``cell`` (see ``CellKind``), worst first."""
    codes = {f.code for f in cell_flags(cell)}
    m = cell.metrics
    if codes & {"critical", "leak"}:
        return "critical"
    if "negative-wrong-actions" in codes:
        return "wrong"
    if "negative-safe-stops" in codes:
        return "stops"
    if "noise-check-failed" in codes:
        return "noise"
    if m.gain_ci.lo > 0:
        return "gain"
    return "loss" if m.gain < 0 else "neutral"


def _cell(cell: Cell, labels: dict[str, str], counts: dict[str, Counter[str]]) -> Json:
    m = cell.metrics
    with_arm, without_arm = _cell_arms(cell)
    a = cell.adaptation
    return {
        "phase": cell.phase,
        "condition": cell.condition_id,
        "bundle": cell.bundle_hash,
        "submission": labels.get(cell.bundle_hash, shown(cell.submission)),
        "gain": m.gain,
        "ci": [m.gain_ci.lo, m.gain_ci.hi],
        "kind": cell_kind(cell),
        "method": m.interval_method,
        "method_text": method_text(m),
        "se": m.gain_se,
        "mde": m.mde,
        "variation": m.variation,
        "test_family": m.test_family,
        "critical": m.critical.model_dump(mode="json"),
        "critical_excess": m.critical_excess,
        "noise_differs": m.noise_differs,
        "score_with": m.score_with,
        "score_without": m.score_without,
        "p_negative": m.p_negative,
        "negative": m.negative_transfer,
        "retention": None if m.retention is None else m.retention.model_dump(mode="json"),
        "retention_method": retention_method_text(m),
        "retention_status": m.retention_status,
        "retention_reason": m.retention_reason,
        "n_tasks": m.n_tasks,
        "n_families": m.n_families,
        "dropped": cell.dropped_tasks,
        "invalid": cell.invalid_trials,
        "pass_hat_k": [m.with_arm.pass_hat_k, m.without_arm.pass_hat_k],
        "flags": [f.model_dump(mode="json") for f in cell_flags(cell)],
        "arms": [with_arm, without_arm],
        "outcomes": [
            {o: counts[k][o] for o in OUTCOMES} if k in counts else None
            for k in (with_arm, without_arm)
        ],
        "adaptation": None
        if a is None
        else {
            "procedure": shown(a.procedure),
            "reused": a.reused,
            "frozen_gain": a.frozen_gain,
            "difference": a.difference.value,
            "difference_ci": [a.difference.ci.lo, a.difference.ci.hi],
            "cost": a.cost.model_dump(mode="json"),
            "cost_to_restore": a.cost_to_restore,
            "leak_flagged": a.leak_flagged,
        },
    }


def report_data(release: SignedRelease, records: list[TrialRecord]) -> Json:
    """Everything the page shows but the traces: the release's header, conditions,
    submissions, cells (with flags and per-arm outcome counts), trials and arms."""
    r = release.release
    source = r.conditions[0].condition
    labels = submission_labels(r)
    arms: dict[str, list[int]] = {}
    counts: dict[str, Counter[str]] = {}
    for i, rec in enumerate(records):
        key = _arm_key(rec.phase, rec.condition_id, rec.bundle_hash or "")
        arms.setdefault(key, []).append(i)
        counts.setdefault(key, Counter())[rec.outcome] += 1
    return {
        "cycle": shown(r.cycle),
        "created_at": shown(r.created_at),
        "n_trials": r.n_trials,
        "tasks_per_split": r.evaluation.tasks_per_split,
        "k": r.evaluation.k,
        "confidence": sorted({c.metrics.confidence for c in r.cells}),
        "fdr_q": r.fdr_q,
        "accepted_invalid": r.accepted_invalid,
        "sim": any(c.condition.model.model.startswith("sim/") for c in r.conditions),
        "sim_note": SIM_NOTE,
        "axes": [a for a in AXES if any(a in c.varied for c in r.conditions)],
        "outcomes": list(OUTCOMES),
        "conditions": [
            {
                "id": c.id,
                "role": c.role,
                "varied": list(c.varied),
                "label": condition_label(c, source),
                "model": shown(c.condition.model.model),
                "provider": shown(c.condition.provider),
                "harness": shown(c.condition.harness),
                "families": shown(c.condition.task_family.label),
                "interfaces": {shown(e): shown(v) for e, v in c.condition.tool_interface.items()},
            }
            for c in r.conditions
        ],
        "submissions": [
            {
                "bundle": s.bundle_hash,
                "label": labels[s.bundle_hash],
                "late": s.late,
                "burned": s.burned,
            }
            for s in r.submissions
        ],
        "cells": [_cell(c, labels, counts) for c in r.cells],
        "trials": _columns(records),
        "arms": arms,
    }


def report_traces(folder: Path, records: list[TrialRecord]) -> dict[str, str]:
    """Base64 of each published trace's gzip bytes, by SHA-256 (absent or wrong ones left out)."""
    out: dict[str, str] = {}
    for sha in sorted({r.trace_sha256 for r in records}):
        packed = published_trace(folder, sha)
        if packed is not None:
            out[sha] = base64.b64encode(packed).decode("ascii")
    return out

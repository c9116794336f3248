"""A release as pandas DataFrames: its cells, trials, conditions and submissions, for analysis.

pandas is optional (the ``analysis`` extra); it is imported only when a release is loaded.
"""

from __future__ import annotations

import importlib
from dataclasses import dataclass
from datetime import datetime
from pathlib import Path
from types import ModuleType
from typing import TYPE_CHECKING, Any

from pydantic import ValidationError

from drift import capped_bytes
from reports._cell import Interval
from reports._flags import cell_flags
from reports._matrix import Cell
from reports._release import RELEASE_FILE, ReleasedCondition, ReleaseStatement
from reports._render import condition_label
from reports._stats_arms import ArmSummary
from reports._verify import MAX_TRIALS_BYTES, VerifiedRelease, read_release, verify_release
from reports.errors import ReportError
from runner import TrialRecord

if TYPE_CHECKING:
    import pandas as pd

ANALYSIS_HINT = "install the analysis extra: pip install 'vwt[analysis]' (pandas and pyarrow)"
"""What to do when pandas or pyarrow is missing."""


def optional_module(name: str, needed_for: str) -> ModuleType:
    """Import ``name`` (a module of the ``analysis`` extra), or say how to install it."""
    try:
        return importlib.import_module(name)
    except ImportError:
        raise ReportError(
            f"{needed_for} needs {name}, which is not installed", ANALYSIS_HINT
        ) from None


@dataclass(frozen=True)
class LoadedRelease:
    """A release read into DataFrames, with whether it was verified.

    ``cells``: one row per matrix cell. ``trials``: one row per trial record, flattened.
    ``conditions``: one row per released condition, with its axis values. ``submissions``: one
    row per released submission. Every row names its condition by the release's id
    (``condition_id``, keyed per cycle for targets), by label (``condition``) and by content
    (``condition_content_id``: the public id of the condition's canonical JSON, the same in
    every cycle, to join releases on).
    """

    path: Path
    statement: ReleaseStatement
    verification: VerifiedRelease | None
    cells: pd.DataFrame
    trials: pd.DataFrame
    conditions: pd.DataFrame
    submissions: pd.DataFrame

    @property
    def verified(self) -> bool:
        """True only when ``load_release(..., verify=True)`` verified the release."""
        return self.verification is not None

    def tables(self) -> dict[str, pd.DataFrame]:
        """The four tables by name: cells, trials, conditions, submissions."""
        return {
            "cells": self.cells,
            "trials": self.trials,
            "conditions": self.conditions,
            "submissions": self.submissions,
        }


_FLOAT, _INT, _BOOL, _STR = "Float64", "Int64", "boolean", "string"
OPTIONAL_COLUMNS: dict[str, str] = {
    **dict.fromkeys(
        [
            f"{name}_{end}"
            for name in ("retention", "source_gain", "difference")
            for end in ("lo", "hi")
        ]
        + ["retention", "source_gain", "frozen_gain"]
        + ["difference", "cost_to_restore"],
        _FLOAT,
    ),
    **dict.fromkeys(
        ["difference_tasks", "cost_calls", "cost_tokens", "cost_ms", "retention_shared_tasks"],
        _INT,
    ),
    "cost_human_minutes": _INT,
    **dict.fromkeys(
        ["reused", "leak_flagged", "negative_transfer", "critical_excess", "noise_differs"], _BOOL
    ),
    **dict.fromkeys(["varied", "retention_reason", "adapted_hash", "procedure"], _STR),
    **dict.fromkeys(["critical_operators", "safe_stop", "invalid", "verifier_reasons"], _STR),
    **dict.fromkeys(["condition", "condition_content_id", "role", "submission"], _STR),
    "bundle_hash": _STR,
}
"""Columns that may be empty in a whole table (a release without adapted cells or
retention, no invalid trial), by dtype, so every release's tables have the same column types."""


def _frame(pd: ModuleType, rows: list[dict[str, Any]]) -> pd.DataFrame:
    """A table of ``rows`` with pandas' nullable dtypes, missing values as <NA>."""
    df = pd.DataFrame(rows).convert_dtypes()
    return df.astype({c: t for c, t in OPTIONAL_COLUMNS.items() if c in df.columns})


def _axes(c: ReleasedCondition) -> dict[str, Any]:
    cond = c.condition
    return {
        "model": cond.model.model,
        "model_version": cond.model.version,
        "provider": cond.provider,
        **{f"tool_interface.{env}": v for env, v in sorted(cond.tool_interface.items())},
        "family": "+".join(cond.task_family.families),
        "split": cond.task_family.split,
        "harness": cond.harness,
    }


def check_cells_conditions(r: ReleaseStatement, path: Path) -> None:
    """Refuse a release without its source condition first, or with a cell of a condition it
    does not list: nothing could label its cells (``vwt report verify`` says what else is
    wrong)."""
    hint = f"check it with `vwt report verify {path}`"
    if not r.conditions or r.conditions[0].role != "source":
        raise ReportError(f"release {path} does not list its source condition first", hint)
    listed = {c.id for c in r.conditions}
    if unknown := sorted({c.condition_id for c in r.cells} - listed):
        raise ReportError(
            f"release {path} has cells of conditions it does not list: {', '.join(unknown)}",
            hint,
        )


def _condition_rows(r: ReleaseStatement) -> dict[str, dict[str, Any]]:
    """Per condition id: its label, content id, role, varied axes and axis values."""
    source = r.conditions[0].condition
    return {
        c.id: {
            "condition_id": c.id,
            "condition": condition_label(c, source),
            "condition_content_id": c.condition.id,
            "role": c.role,
            "varied": "+".join(c.varied) or None,
            **_axes(c),
        }
        for c in r.conditions
    }


def _arm(prefix: str, arm: ArmSummary, k: int) -> dict[str, Any]:
    passes = {f"{prefix}_pass_hat_{i}": arm.pass_hat_k[i - 1] for i in range(1, k + 1)}
    return {
        f"{prefix}_trials": arm.trials,
        f"{prefix}_invalid": arm.invalid,
        f"{prefix}_safe_stop": arm.safe_stop,
        f"{prefix}_critical": arm.critical,
        f"{prefix}_critical_rate": arm.critical_rate,
        **passes,
    }


def _bounds(name: str, interval: Interval | None) -> dict[str, float | None]:
    """``name_lo`` and ``name_hi`` of an Interval, or None for an absent one."""
    return {
        f"{name}_lo": None if interval is None else interval.lo,
        f"{name}_hi": None if interval is None else interval.hi,
    }


def _metrics(cell: Cell) -> dict[str, Any]:
    m = cell.metrics
    ret = m.retention
    k = min(len(m.with_arm.pass_hat_k), len(m.without_arm.pass_hat_k))
    return {
        "n_tasks": m.n_tasks,
        "dropped_tasks": m.n_dropped_tasks,
        "dropped_for_invalid": cell.dropped_tasks,
        "invalid_trials": cell.invalid_trials,
        "n_families": m.n_families,
        "score_with": m.score_with,
        **_bounds("score_with", m.score_with_ci),
        "score_without": m.score_without,
        **_bounds("score_without", m.score_without_ci),
        "gain": m.gain,
        **_bounds("gain", m.gain_ci),
        "gain_se": m.gain_se,
        "df": m.df,
        "interval_method": m.interval_method,
        "mde": m.mde,
        "variation": m.variation,
        "p_negative": m.p_negative,
        "test_family": m.test_family,
        "negative_transfer": m.negative_transfer,
        "critical_pairs": m.critical.pairs,
        "critical_with_only": m.critical.with_only,
        "critical_baseline_only": m.critical.baseline_only,
        "critical_p": m.critical.p,
        "critical_excess": m.critical_excess,
        "noise_differs": m.noise_differs,
        "fdr_q": m.fdr_q,
        "wins": m.sign_test.wins,
        "losses": m.sign_test.losses,
        "ties": m.sign_test.ties,
        "sign_p": m.sign_test.p,
        "net_win": m.net_win,
        "retention": None if ret is None else ret.value,
        **_bounds("retention", None if ret is None else ret.ci),
        "retention_status": m.retention_status,
        "retention_reason": m.retention_reason,
        "retention_shared_tasks": None if ret is None else ret.shared_tasks,
        "source_gain": None if ret is None else ret.source_gain,
        **_bounds("source_gain", None if ret is None else ret.source_gain_ci),
        "loo_min_gain": m.loo.min_gain,
        "loo_max_gain": m.loo.max_gain,
        "loo_sign_stable": m.loo.sign_stable,
        "obsolete": m.obsolete,
        "ceiling": m.ceiling,
        "floor": m.floor,
        "provisional": m.provisional,
        # Not "flags": that is pandas' own DataFrame.flags, which rel.cells.flags would give.
        "flag_codes": ",".join(f.code for f in cell_flags(cell)),
        **_arm("with", m.with_arm, k),
        **_arm("without", m.without_arm, k),
    }


def _adaptation(cell: Cell) -> dict[str, Any]:
    a = cell.adaptation
    d = None if a is None else a.difference
    return {
        "adapted_hash": None if a is None else a.adapted_hash,
        "procedure": None if a is None else a.procedure,
        "reused": None if a is None else a.reused,
        "frozen_gain": None if a is None else a.frozen_gain,
        "difference": None if d is None else d.value,
        **_bounds("difference", None if d is None else d.ci),
        "difference_tasks": None if d is None else d.n_tasks,
        "cost_calls": None if a is None else a.cost.calls,
        "cost_tokens": None if a is None else a.cost.tokens,
        "cost_ms": None if a is None else a.cost.milliseconds,
        "cost_human_minutes": None if a is None else a.cost.human_minutes,
        "cost_to_restore": None if a is None else a.cost_to_restore,
        "leak_flagged": None if a is None else a.leak_flagged,
    }


def _cell_rows(r: ReleaseStatement) -> list[dict[str, Any]]:
    conditions = _condition_rows(r)
    return [
        {
            "phase": c.phase,
            "submission": c.submission,
            "bundle_hash": c.bundle_hash,
            **conditions[c.condition_id],
            **_metrics(c),
            **_adaptation(c),
        }
        for c in r.cells
    ]


def _seconds(started: str, ended: str) -> float:
    return (datetime.fromisoformat(ended) - datetime.fromisoformat(started)).total_seconds()


def _trial_row(rec: TrialRecord, conditions: dict[str, dict[str, Any]]) -> dict[str, Any]:
    where = conditions.get(rec.condition_id, {})
    return {
        "key": rec.key,
        "phase": rec.phase,
        "condition_id": rec.condition_id,
        "condition": where.get("condition"),
        "condition_content_id": where.get("condition_content_id"),
        "role": where.get("role"),
        "submission": rec.submission,
        "bundle_hash": rec.bundle_hash,
        "arm": rec.arm,
        "task_id": rec.task_id,
        "family": rec.family,
        "split": rec.split,
        "task_index": rec.task_index,
        "trial": rec.trial,
        "attempt": rec.attempt,
        "outcome": rec.outcome,
        "critical": len(rec.critical),
        "critical_operators": "; ".join(f.operator for f in rec.critical) or None,
        "safe_stop": rec.safe_stop,
        "invalid": rec.invalid,
        "verifier_reasons": "; ".join(rec.verifier_reasons) or None,
        "model": rec.model,
        "provider": rec.provider,
        "harness": rec.harness,
        **{f"tool_interface.{env}": v for env, v in sorted(rec.tool_interfaces.items())},
        "calls": rec.usage.calls,
        "prompt_tokens": rec.usage.prompt_tokens,
        "completion_tokens": rec.usage.completion_tokens,
        "model_seconds": rec.usage.latency_s,
        "turns": rec.turns,
        "tool_calls": rec.tool_calls,
        "tool_errors": rec.tool_errors,
        "started_at": rec.started_at,
        "ended_at": rec.ended_at,
        "seconds": _seconds(rec.started_at, rec.ended_at),
        "sandbox": rec.sandbox,
        "seed": rec.seed,
        "verifier_version": rec.verifier_version,
        "generator_version": rec.generator_version,
        "trace_sha256": rec.trace_sha256,
    }


def _records(r: ReleaseStatement, folder: Path) -> list[TrialRecord]:
    """The trial records of the release's trials file, parsed (not checked against anything)."""
    name = r.trials.name
    if name in ("", ".", "..") or Path(name).name != name:
        raise ReportError(f"the release names its trials file {name!r}, not a plain file name")
    path = folder / name
    data, problem = capped_bytes(path, MAX_TRIALS_BYTES)
    if problem is not None:
        raise ReportError(
            f"the release's trials file {path} cannot be read: it {problem}",
            f"put {name} next to {RELEASE_FILE}, as published",
        )
    records = []
    for i, line in enumerate(data.splitlines(), start=1):
        try:
            records.append(TrialRecord.model_validate_json(line))
        except ValidationError as e:
            first = e.errors()[0]
            where = ".".join(str(p) for p in first["loc"]) or "(top level)"
            raise ReportError(
                f"trial record on line {i} of {path} is malformed: {where}: {first['msg']}",
                f"check it with `vwt report verify {folder}`",
            ) from None
    return records


def _submission_rows(r: ReleaseStatement) -> list[dict[str, Any]]:
    return [
        {
            "submission": f"{s.name}@{s.version}",
            "name": s.name,
            "version": s.version,
            "bundle_hash": s.bundle_hash,
            "late": s.late,
            "burned": s.burned,
        }
        for s in r.submissions
    ]


def load_release(
    path: str | Path, *, verify: bool = False, key: str | None = None
) -> LoadedRelease:
    """Read the release at ``path`` (its release.json, or the directory holding it) into
    DataFrames (see ``LoadedRelease``).

    Loading alone checks nothing: not the signature, not the pinned hashes, not that the cells
    follow from the trials (``verified`` is False). With ``verify=True`` it first runs
    ``verify_release`` (pinning the operator ``key`` if given) and raises ``ReportError`` if any
    check fails. Needs pandas (``pip install 'vwt[analysis]'``).
    """
    pd = optional_module("pandas", "loading a release into DataFrames")
    path = Path(path)
    verification = verify_release(path, key) if verify else None
    file = path / RELEASE_FILE if path.is_dir() else path
    r = read_release(file).release
    check_cells_conditions(r, file)
    conditions = _condition_rows(r)
    records = _records(r, file.parent)
    return LoadedRelease(
        path=file,
        statement=r,
        verification=verification,
        cells=_frame(pd, _cell_rows(r)),
        trials=_frame(pd, [_trial_row(rec, conditions) for rec in records]),
        conditions=_frame(pd, list(conditions.values())),
        submissions=_frame(pd, _submission_rows(r)),
    )

"""A submitter's dev home, read like a cycle's store: its trials with their traces
(``vwt trials list|show --home``) and its HTML report (``vwt report html HOME``).

A dev home (``vwt run dev --home H``) holds one store per cycle spec and seed
(``dev-<cycle>-<seed>.sqlite``) and the conditions its runs ran in (``dev-conditions.json``);
no cycle, no keys. Every dev condition is a source condition on the dev split, so each is its
own source here; its cells pair each bundle run in it with the shared baseline.
"""

from __future__ import annotations

import base64
import hashlib
from collections import Counter
from datetime import UTC, datetime
from pathlib import Path
from typing import Any

from conditions import AXES, CycleHome
from reports._html import REPORT_FILE, HtmlReport, render_html
from reports._html_data import _arm_key, _cell, _columns
from reports._matrix import Cell, build_matrix
from reports._publish import publish_files
from reports._release import ReleasedCondition
from reports._render import SIM_NOTE
from reports._stats_arms import OUTCOMES
from reports._traces import compress_trace, parse_trace
from reports._trials import TrialSet, store_trials
from reports.errors import ReportError
from runner import DEV_STORES, TrialRecord, TrialStore, dev_conditions
from submissions import shown


def _stores(home: Path) -> list[TrialStore]:
    return [TrialStore(p) for p in sorted(home.glob(DEV_STORES))]


def _raw_trace(stores: list[TrialStore], sha: str) -> bytes | None:
    """The exact bytes of the trace with this SHA-256, from whichever store has them."""
    for store in stores:
        data = store.trace(sha)
        if data is not None and hashlib.sha256(data).hexdigest() == sha:
            return data
    return None


def is_dev_home(home: Path) -> bool:
    """Whether ``home`` holds dev runs and no cycle."""
    return not CycleHome(home).exists() and any(home.glob(DEV_STORES))


def dev_trials(home: Path) -> TrialSet:
    """The trials of every dev run in ``home``: every key's latest attempt, with traces."""
    stores = _stores(home)
    if not stores:
        raise ReportError(
            f"no release cycle and no dev run in {home}",
            "pass the --home of a cycle, or of `vwt run dev --home H`",
        )
    conditions = {
        cid: ReleasedCondition(id=cid, role="source", varied=(), condition=c)
        for cid, c in dev_conditions(home).items()
    }

    def trace(sha: str) -> list[dict[str, Any]]:
        data = _raw_trace(stores, sha)
        if data is None:
            raise ReportError(f"no dev store in {home} has the trace {sha[:16]}…", "run it again")
        return parse_trace(data, f"{sha[:16]}… in {home}")

    records = [r for s in stores for r in s.records()]
    where = ", ".join(str(s.path) for s in stores)
    return TrialSet(where=where, records=records, conditions=conditions, trace=trace)


def home_trials(home: Path) -> TrialSet:
    """The trials of ``home``: a cycle's store, else a dev home's runs."""
    return dev_trials(home) if is_dev_home(home) else store_trials(home)


def _cells(stores: list[TrialStore], known: dict[str, ReleasedCondition]) -> list[Cell]:
    cells: list[Cell] = []
    for store in stores:
        records = store.records()
        for cid in sorted({r.condition_id for r in records} & known.keys()):
            mine = [r for r in records if r.condition_id == cid]
            try:
                cells += build_matrix(
                    mine,
                    conditions={cid: known[cid].condition},
                    source_id=cid,
                )
            except ReportError:
                continue  # e.g. no baseline yet: its trials are still listed
    return cells


def dev_report_data(home: Path) -> tuple[dict[str, Any], list[TrialRecord]]:
    """What the HTML page shows of a dev home: its conditions, cells, trials and arms (the shape
    of a release's ``report_data``)."""
    trials = dev_trials(home)
    records = trials.records
    cells = _cells(_stores(home), trials.conditions)
    labels = {c.bundle_hash: shown(c.submission) for c in cells}
    arms: dict[str, list[int]] = {}
    counts: dict[str, Counter[str]] = {}
    for i, rec in enumerate(records):
        key = _arm_key(rec.phase, rec.condition_id, rec.bundle_hash or "")
        arms.setdefault(key, []).append(i)
        counts.setdefault(key, Counter())[rec.outcome] += 1
    conditions = list(trials.conditions.values())
    data = {
        "cycle": f"dev runs in {shown(str(home))}",
        "created_at": datetime.now(UTC).isoformat(timespec="seconds").replace("+00:00", "Z"),
        "n_trials": len(records),
        "tasks_per_split": len({(r.condition_id, r.task_id) for r in records}),
        "k": max((r.trial for r in records), default=-1) + 1,
        "confidence": sorted({c.metrics.confidence for c in cells}),
        "fdr_q": 0.05,
        "accepted_invalid": False,
        "sim": any(c.condition.model.model.startswith("sim/") for c in conditions),
        "sim_note": SIM_NOTE,
        "axes": [a for a in AXES if any(a in c.varied for c in conditions)],
        "outcomes": list(OUTCOMES),
        "conditions": [
            {
                "id": c.id,
                "role": c.role,
                "varied": [],
                "label": f"dev: {shown(c.condition.model.model)}",
                "model": shown(c.condition.model.model),
                "provider": shown(c.condition.provider),
                "harness": shown(c.condition.harness),
                "families": shown(c.condition.task_family.label),
                "interfaces": {shown(e): shown(v) for e, v in c.condition.tool_interface.items()},
            }
            for c in conditions
        ],
        "submissions": [
            {"bundle": h, "label": label, "late": False, "burned": False}
            for h, label in sorted(labels.items())
        ],
        "cells": [_cell(c, labels, counts) for c in cells],
        "trials": _columns(records),
        "arms": arms,
    }
    return data, records


def write_dev_html(home: Path, out: Path | None = None) -> HtmlReport:
    """Write the HTML report of the dev runs in ``home`` to ``out`` (default:
    ``HOME/report.html``): each dev cell, every trial and its trace."""
    data, records = dev_report_data(home)
    stores, traces = _stores(home), {}
    for sha in sorted({r.trace_sha256 for r in records}):
        body = _raw_trace(stores, sha)
        if body is not None:
            traces[sha] = base64.b64encode(compress_trace(body)).decode("ascii")
    page = render_html(str(data["cycle"]), data, traces).encode("utf-8")
    target = out if out is not None else home / REPORT_FILE
    publish_files([(target, page)], f"write the report elsewhere: -o ./{REPORT_FILE}")
    return HtmlReport(
        path=target,
        bytes=len(page),
        cells=len(data["cells"]),
        trials=len(records),
        traces=len(traces),
        missing_traces=len({r.trace_sha256 for r in records}) - len(traces),
    )

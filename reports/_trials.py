"""Trials to read one by one: a release's or an operator store's records, filtered, with traces.

A ``TrialSet`` is the records of a release (its trials file, checked against the hash the
release pins; traces from ``traces/``) or of a cycle's store (every key's latest attempt, every
phase; traces from the store), with the conditions they ran in. ``select_trials`` filters them
as ``vwt trials list`` does; ``find_trial`` resolves a key prefix as ``vwt trials show`` does.
"""

from __future__ import annotations

import hashlib
from collections import Counter
from collections.abc import Callable, Sequence
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from conditions import AXES, Condition, Cycle
from drift import capped_bytes
from reports._release import RELEASE_FILE, ReleasedCondition
from reports._stats_arms import OUTCOMES
from reports._traces import parse_trace, read_trace
from reports._verify import MAX_TRIALS_BYTES, read_release
from reports.errors import ReportError
from runner import TrialRecord, checked_records, store_for

PHASES = ("dev", "frozen", "adapted")
ARMS = ("with", "without")


@dataclass(frozen=True)
class TrialSet:
    """Trial records, the conditions they ran in, and how to get a trace by its hash."""

    where: str
    """What the records were read from, for messages."""
    records: list[TrialRecord]
    conditions: dict[str, ReleasedCondition]
    trace: Callable[[str], list[dict[str, Any]]]

    @property
    def source(self) -> Condition:
        """The source condition."""
        return next(c.condition for c in self.conditions.values() if c.role == "source")


def release_trials(path: Path) -> TrialSet:
    """The trials of a release (``release.json`` or its directory); the trials file must match
    the hash the release pins (nothing else is verified: `vwt report verify` does that)."""
    signed = read_release(path)
    folder = path if path.is_dir() else path.parent
    r = signed.release
    trials = folder / r.trials.name
    data, problem = capped_bytes(trials, MAX_TRIALS_BYTES)
    if problem is not None:
        raise ReportError(
            f"the release's trials file {trials} cannot be read: it {problem}",
            f"put {r.trials.name} next to {RELEASE_FILE}, as published",
        )
    if hashlib.sha256(data).hexdigest() != r.trials.sha256:
        raise ReportError(
            f"trials file {trials} does not match the SHA-256 pinned in the release",
            "get the release files exactly as the operator published them",
        )
    try:
        records = [TrialRecord.model_validate_json(line) for line in data.splitlines()]
    except ValidationError as e:
        raise ReportError(
            f"trials file {trials} holds a malformed record ({e.errors()[0]['msg']})",
            "check it with `vwt report verify`",
        ) from None
    return TrialSet(
        where=str(folder / RELEASE_FILE),
        records=records,
        conditions={c.id: c for c in r.conditions},
        trace=lambda sha: read_trace(folder, sha),
    )


def store_trials(home: Path) -> TrialSet:
    """The trials in a cycle's store (operator side): every key's latest attempt, every phase,
    once the store is found intact against its MACs and the ledger's pins (``checked_records``)."""
    cycle = Cycle.open(home)
    store = store_for(home)
    source = cycle.source
    conditions = {
        cid: ReleasedCondition(
            id=cid,
            role="source" if cid == source.id else "target",
            varied=tuple(c.differs_on(source)),
            condition=c,
        )
        for cid, c in cycle.evaluation_conditions()
    }

    def trace(sha: str) -> list[dict[str, Any]]:
        data = store.trace(sha)
        if data is None or hashlib.sha256(data).hexdigest() != sha:
            raise ReportError(
                f"the store {store.path} has no trace {sha[:16]}… (or it is altered)",
                "restore the store from a backup",
            )
        return parse_trace(data, f"{sha[:16]}… in {store.path}")

    return TrialSet(
        where=str(store.path),
        records=checked_records(cycle),
        conditions=conditions,
        trace=trace,
    )


def _choice(values: Sequence[str], allowed: Sequence[str], option: str) -> set[str]:
    if bad := [v for v in values if v not in allowed]:
        raise ReportError(
            f"{option} {bad[0]!r} is not one of {', '.join(allowed)}",
            "see `vwt trials list --help`",
        )
    return set(values)


def _submission_match(wanted: str) -> Callable[[TrialRecord], bool]:
    """``NAME@VERSION`` matches that version, ``NAME`` every version of the name."""
    if "@" in wanted:
        return lambda r: r.submission == wanted
    return lambda r: r.submission is not None and r.submission.rsplit("@", 1)[0] == wanted


def _condition_ids(trials: TrialSet, wanted: str) -> set[str]:
    """Ids of the condition ``wanted`` names: its id, a unique id prefix, or 'source'."""
    if wanted == "source":
        return {c.id for c in trials.conditions.values() if c.role == "source"}
    matches = {cid for cid in trials.conditions if cid.startswith(wanted)}
    if len(matches) != 1:
        what = "no condition" if not matches else f"{len(matches)} conditions"
        raise ReportError(
            f"{what} of {trials.where} has an id starting {wanted!r}",
            "give a condition id (or a unique prefix, or 'source'); `vwt report show` lists "
            "the conditions",
        )
    return matches


def select_trials(
    trials: TrialSet,
    *,
    submissions: Sequence[str] = (),
    conditions: Sequence[str] = (),
    cells: Sequence[str] = (),
    axes: Sequence[str] = (),
    phases: Sequence[str] = (),
    arms: Sequence[str] = (),
    outcomes: Sequence[str] = (),
) -> list[TrialRecord]:
    """The records every given filter admits (a repeated filter admits any of its values), by
    phase, arm (with first), submission, condition (in the release's order), task and trial.

    ``submissions``: NAME or NAME@VERSION. ``conditions``: a condition id, a unique prefix,
    or 'source'. ``cells``: SUBMISSION:CONDITION, both as above. ``axes``: targets varying
    that axis (e.g. tool_interface). ``outcomes`` also takes 'critical'. Bad values are
    refused with ReportError.
    """
    keep: list[Callable[[TrialRecord], bool]] = []
    if submissions:
        by_name = [_submission_match(s) for s in submissions]
        keep.append(lambda r: any(m(r) for m in by_name))
    if conditions:
        ids = set().union(*(_condition_ids(trials, c) for c in conditions))
        keep.append(lambda r: r.condition_id in ids)
    if cells:
        pairs = []
        for cell in cells:
            name, sep, condition = cell.rpartition(":")
            if not sep or not name or not condition:
                raise ReportError(
                    f"--cell {cell!r} is not SUBMISSION:CONDITION",
                    "e.g. --cell typed-skill@1:source, or NAME:CONDITION_ID_PREFIX",
                )
            pairs.append((_submission_match(name), _condition_ids(trials, condition)))
        keep.append(lambda r: any(m(r) and r.condition_id in ids for m, ids in pairs))
    if axes:
        wanted = _choice(axes, AXES, "--axis")
        varying = {c.id for c in trials.conditions.values() if wanted & set(c.varied)}
        keep.append(lambda r: r.condition_id in varying)
    if phases:
        in_phases = _choice(phases, PHASES, "--phase")
        keep.append(lambda r: r.phase in in_phases)
    if arms:
        in_arms = _choice(arms, ARMS, "--arm")
        keep.append(lambda r: r.arm in in_arms)
    if outcomes:
        in_outcomes = _choice(outcomes, OUTCOMES, "--outcome")
        keep.append(lambda r: r.outcome in in_outcomes)
    order = {cid: i for i, cid in enumerate(trials.conditions)}
    picked = [r for r in trials.records if all(k(r) for k in keep)]
    return sorted(
        picked,
        key=lambda r: (
            PHASES.index(r.phase),
            r.arm == "without",
            r.submission or "",
            order.get(r.condition_id, len(order)),
            r.task_id,
            r.trial,
        ),
    )


def find_trial(trials: TrialSet, prefix: str) -> TrialRecord:
    """The one record whose key starts with ``prefix``; ReportError if none or several do."""
    if not prefix:
        raise ReportError("an empty key prefix names every trial", "give a trial key (prefix)")
    matches = [r for r in trials.records if r.key.startswith(prefix.lower())]
    if not matches:
        raise ReportError(
            f"no trial of {trials.where} has a key starting {prefix!r}",
            "list the trials and their keys with `vwt trials list`",
        )
    if len(matches) > 1:
        shown = ", ".join(r.key[:16] for r in matches[:3]) + (", …" if len(matches) > 3 else "")
        raise ReportError(
            f"key prefix {prefix!r} matches {len(matches)} trials ({shown})",
            "give more characters of the key",
        )
    return matches[0]


def trial_reason(r: TrialRecord) -> str:
    """Why the trial ended as it did, in one line: its critical flags, safe-stop reason, first
    verifier reason or infrastructure failure ('' for a success)."""
    if r.critical:
        return "critical: " + "; ".join(f.operator for f in r.critical)
    if r.safe_stop:
        return "safe stop: " + r.safe_stop
    if r.invalid:
        return "invalid: " + r.invalid
    if r.verifier_reasons:
        more = len(r.verifier_reasons) - 1
        return r.verifier_reasons[0] + (f" (+{more} more)" if more else "")
    return ""


class TrialGroup(BaseModel):
    """The selected trials of one phase, submission (or the baseline) and condition."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    phase: str = Field(description="Evaluation phase.")
    submission: str | None = Field(description="name@version; None for the baseline arm.")
    condition_id: str = Field(description="Condition id.")
    trials: int = Field(description="Selected trials.")
    outcomes: dict[str, int] = Field(description="Selected trials per outcome.")
    reason: str = Field(description="The most common trial_reason among them ('' if none).")
    reason_trials: int = Field(description="Trials with that reason.")
    example: str = Field(description="Key of the first trial with that reason.")


def group_trials(records: list[TrialRecord]) -> list[TrialGroup]:
    """``records`` grouped by phase, submission and condition, in the order of their first
    record (``select_trials`` order); each group says its most common reason and an example."""
    groups: dict[tuple[str, str | None, str], list[TrialRecord]] = {}
    for r in records:
        groups.setdefault((r.phase, r.submission, r.condition_id), []).append(r)
    out = []
    for (phase, submission, condition_id), members in groups.items():
        reasons = Counter(trial_reason(r) for r in members if trial_reason(r))
        reason, n = reasons.most_common(1)[0] if reasons else ("", 0)
        example = next(r.key for r in members if trial_reason(r) == reason)
        out.append(
            TrialGroup(
                phase=phase,
                submission=submission,
                condition_id=condition_id,
                trials=len(members),
                outcomes=dict(Counter(r.outcome for r in members)),
                reason=reason,
                reason_trials=n,
                example=example,
            )
        )
    return out

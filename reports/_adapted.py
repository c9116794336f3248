"""The adapted side of a release: what each adaptation was and cost, and the adapted cells.

An adapted cell pairs the adapted bundle's trials in its target with the *frozen* baseline's
trials of the same tasks and seeds (the baseline is not run again). An adaptation that left its
bundle as it was (same hash) ran nothing: its cell reuses the frozen trials and says so
(``reused``). Next to the cell's own metrics it reports the frozen gain, the difference adapted
− frozen with its interval, the adaptation's cost and, where the difference is decided (its
interval excludes 0) and tokens were spent, the cost to restore: the difference per 1,000
tokens.
"""

from __future__ import annotations

import json
from typing import Any, Literal

from pydantic import BaseModel, ConfigDict, Field

from adapt import AccessLog, AdaptError, adapted_dir, read_access_log, read_record, sealed_reads
from benchmark import Task, family
from benchmark.errors import BenchmarkError
from conditions import ADAPTATION_EVENT, Condition, Cycle
from reports._cell import GainDifference
from reports.errors import ReportError

TOKENS_PER_UNIT = 1000
"""Cost to restore is the difference per this many tokens."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class AdaptationCost(_Frozen):
    """What one adaptation spent."""

    calls: int = Field(ge=0, description="Model calls.")
    tokens: int = Field(ge=0, description="Prompt and completion tokens.")
    milliseconds: int = Field(ge=0, description="Wall milliseconds.")
    human_minutes: int = Field(ge=0, description="Declared human minutes.")


class ArtifactChange(_Frozen):
    """One artifact path of an adapted bundle and what adapting did to it."""

    path: str = Field(description="Artifact path.")
    status: Literal["added", "removed", "changed", "unchanged"] = Field(description="Its change.")


class LeakVerdict(_Frozen):
    """The leak gate over the frozen and the adapted artifacts, against the sealed tasks."""

    flagged: bool = Field(description="A sealed request overlaps either bundle at the threshold.")
    threshold_permille: int = Field(description="The overlap threshold, per mille.")
    frozen_max_permille: int = Field(description="Largest overlap in the frozen bundle.")
    adapted_max_permille: int = Field(description="Largest overlap in the adapted bundle.")
    matches: tuple[str, ...] = Field(description="Sealed task ids at or over the threshold.")


class ReleasedAdaptation(_Frozen):
    """One submission's adaptation to one released target, with its access log."""

    submission: str = Field(description="name@version of the submission.")
    parent: str = Field(description="The frozen bundle's hash.")
    target: str = Field(description="The target's (keyed) id.")
    adapted: str = Field(description="The adapted bundle's hash (the parent's if unchanged).")
    procedure: str = Field(description="What adapted it, e.g. 'rebind-skills' or 'human'.")
    changes: tuple[ArtifactChange, ...] = Field(description="Artifacts frozen → adapted.")
    cost: AdaptationCost = Field(description="What the adaptation spent.")
    leak: LeakVerdict = Field(description="The leak gate's verdict.")
    access_log_sha256: str = Field(description="SHA-256 of the access log's canonical JSON.")
    access_log: dict[str, Any] = Field(description="Every read of the adaptation, in order.")

    @property
    def reused(self) -> bool:
        """True when the adaptation changed nothing (its cell reuses the frozen trials)."""
        return self.adapted == self.parent


class AdaptedCell(_Frozen):
    """What an adapted-phase cell adds to its metrics (which compare the adapted arm with the
    frozen baseline)."""

    adapted_hash: str = Field(description="The adapted bundle's hash.")
    procedure: str = Field(description="What adapted it.")
    reused: bool = Field(description="Unchanged by adaptation: the frozen trials are reused.")
    frozen_gain: float = Field(description="The frozen cell's gain.")
    difference: GainDifference = Field(description="Adapted gain − frozen gain, paired by task.")
    cost: AdaptationCost = Field(description="What the adaptation spent.")
    cost_to_restore: float | None = Field(
        description="Difference per 1,000 tokens, where its interval excludes 0 and tokens > 0."
    )
    leak_flagged: bool = Field(description="The leak gate flagged the adaptation.")


def cost_to_restore(difference: GainDifference, cost: AdaptationCost) -> float | None:
    """The difference per 1,000 tokens, where it is meaningful (see AdaptedCell)."""
    if not difference.excludes_zero or cost.tokens <= 0:
        return None
    return difference.value / (cost.tokens / TOKENS_PER_UNIT)


def released_adaptations(cycle: Cycle, targets: set[str]) -> tuple[ReleasedAdaptation, ...]:
    """Every recorded adaptation to a target in ``targets``, in ledger order, with its stored
    record and access log (checked against the ledger's digests)."""
    out = []
    for entry in cycle.ledger.entries(ADAPTATION_EVENT):
        p = entry.payload
        if p["target"] not in targets:
            continue
        log = read_access_log(cycle.home, p["parent"], p["target"])
        if log.digest() != p["access_log"]:
            raise ReportError(
                f"the access log of {p['submission']} → {p['target']} under "
                f"{adapted_dir(cycle.home)} is not the one the ledger records",
                "restore the cycle's adapted/ directory as `vwt adapt` wrote it",
            )
        record = read_record(cycle.home, p["parent"], p["target"])
        c = p["cost"]
        out.append(
            ReleasedAdaptation(
                submission=p["submission"],
                parent=p["parent"],
                target=p["target"],
                adapted=p["adapted"],
                procedure=p["procedure"],
                changes=tuple(
                    ArtifactChange(path=d["path"], status=d["status"]) for d in record["diff"]
                ),
                cost=AdaptationCost(
                    calls=c["calls"],
                    tokens=c["prompt_tokens"] + c["completion_tokens"],
                    milliseconds=c["milliseconds"],
                    human_minutes=c["human_minutes"],
                ),
                leak=LeakVerdict.model_validate(p["leak"]),
                access_log_sha256=p["access_log"],
                access_log=json.loads(log.canonical()),
            )
        )
    return tuple(out)


def sealed_of(conditions: dict[str, Condition], tasks_per_split: int, seed: int) -> list[Task]:
    """The tasks each condition evaluates (what no adaptation may read)."""
    out: dict[str, Task] = {}
    for cid, condition in conditions.items():
        tf = condition.task_family
        try:
            for f in tf.families:
                out.update({t.id: t for t in family(f).tasks(tf.split, tasks_per_split, seed)})
        except BenchmarkError as e:
            raise ReportError(f"condition {cid}: {e}", e.hint) from None
    return list(out.values())


def check_access_log(a: ReleasedAdaptation, sealed: list[Task], hint: str) -> None:
    """Refuse an access log that is not the one the release pins, or that read a sealed task."""
    where = f"the access log of {a.submission} → {a.target}"
    try:
        log = AccessLog.from_json(a.access_log)
    except (AdaptError, ValueError, TypeError) as e:
        raise ReportError(f"{where} is malformed: {e}", hint) from None
    if log.digest() != a.access_log_sha256:
        raise ReportError(f"{where} does not match the SHA-256 the release pins for it", hint)
    if read := sealed_reads(log, sealed):
        raise ReportError(
            f"{where} shows {len(read)} served read(s) of sealed tasks, e.g. {read[0].id}", hint
        )

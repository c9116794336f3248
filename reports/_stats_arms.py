"""Trial outcomes of one arm of a cell, and the per-arm summary reported beside the gain."""

from __future__ import annotations

from collections import Counter
from collections.abc import Iterable, Mapping
from typing import Literal, cast, get_args

from pydantic import BaseModel, ConfigDict, Field

from reports._stats import pass_hat_k
from reports.errors import ReportError

Outcome = Literal["success", "safe_stop", "failure", "critical", "invalid"]
"""A trial's outcome; ``invalid`` is infrastructure and never counts as a failure."""

OUTCOMES: tuple[str, ...] = get_args(Outcome)
"""The five trial outcomes, in the order above."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class TaskTrials(_Frozen):
    """The trials of one task instance in one arm."""

    cluster: str = Field(description="Top-level cluster of the task: its task-family id.")
    outcomes: tuple[Outcome, ...] = Field(
        description="Outcome of each trial, one of success, safe_stop, failure, critical, invalid."
    )

    @property
    def valid(self) -> int:
        """Trials that are not ``invalid``."""
        return len(self.outcomes) - self.outcomes.count("invalid")

    @property
    def successes(self) -> int:
        """Trials that succeeded."""
        return self.outcomes.count("success")


class ArmOutcomes(_Frozen):
    """All trial outcomes of one arm (with or without artifacts) of a cell, per task id."""

    v: int = Field(default=1, description="Schema version of this record.")
    tasks: dict[str, TaskTrials] = Field(description="Trials per task id.")

    @classmethod
    def from_trials(cls, trials: Iterable[tuple[str, str, str]]) -> ArmOutcomes:
        """Build from (task id, cluster id, outcome) triples, one per trial, in trial order.

        Raises ``ReportError`` on an unknown outcome or a task given two clusters.
        """
        outcomes: dict[str, list[Outcome]] = {}
        clusters: dict[str, str] = {}
        for task, cluster, outcome in trials:
            if outcome not in OUTCOMES:
                raise ReportError(
                    f"task {task!r} has unknown trial outcome {outcome!r}",
                    hint=f"outcomes are one of {', '.join(OUTCOMES)}",
                )
            if clusters.setdefault(task, cluster) != cluster:
                raise ReportError(
                    f"task {task!r} is given clusters {clusters[task]!r} and {cluster!r}",
                    hint="a task belongs to exactly one family; fix the trial records",
                )
            outcomes.setdefault(task, []).append(cast(Outcome, outcome))
        # Every field was checked above: construct without validating again (arms of a
        # release hold hundreds of thousands of trials).
        tasks = {
            t: TaskTrials.model_construct(cluster=clusters[t], outcomes=tuple(o))
            for t, o in outcomes.items()
        }
        return cls.model_construct(tasks=tasks)


class ArmSummary(_Frozen):
    """What one arm of a cell did besides its score: drift failures, stops, invalids, pass^k."""

    trials: int = Field(description="All trials of the arm, on every task it ran.")
    invalid: int = Field(description="Infrastructure-invalid trials, excluded from every score.")
    safe_stop: int = Field(description="Trials stopped safely on a detected interface change.")
    critical: int = Field(description="Trials that silently used changed semantics with effect.")
    critical_rate: float = Field(description="critical / valid trials of the arm.")
    pass_hat_k: list[float] = Field(
        description="pass^k over the cell's paired tasks; element k-1 is pass^k, k = 1..n_min."
    )


def summarise_arm(arm: ArmOutcomes, paired: Iterable[str]) -> ArmSummary:
    """Summarise ``arm``: counts over all its trials, pass^k over the ``paired`` task ids.

    ``paired`` must be non-empty and every paired task must have a valid trial in ``arm``.

    Drift failures and invalid trials are counted on every task the arm ran, so a task dropped
    from the gain (no valid trial in the other arm) cannot hide them.
    """
    counts = Counter(o for trials in arm.tasks.values() for o in trials.outcomes)
    total = sum(counts.values())
    valid = total - counts["invalid"]
    tasks = [arm.tasks[t] for t in paired]
    return ArmSummary(
        trials=total,
        invalid=counts["invalid"],
        safe_stop=counts["safe_stop"],
        critical=counts["critical"],
        critical_rate=counts["critical"] / valid,
        pass_hat_k=pass_hat_k([t.successes for t in tasks], [t.valid for t in tasks]),
    )


def task_families(*arms: ArmOutcomes) -> Mapping[str, str]:
    """Cluster id of every task in ``arms``; a task must have the same cluster in every arm."""
    family: dict[str, str] = {}
    for arm in arms:
        for task, trials in arm.tasks.items():
            if family.setdefault(task, trials.cluster) != trials.cluster:
                raise ReportError(
                    f"task {task!r} is in cluster {family[task]!r} in one arm and "
                    f"{trials.cluster!r} in another",
                    hint="both arms of a cell must run the same task instances",
                )
    return family

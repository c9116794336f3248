"""What the runner plans and what it records, one row per trial."""

from __future__ import annotations

import hashlib
from collections.abc import Sequence
from typing import Any, Literal, Self

import rfc8785
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, model_validator

from benchmark import CachedReply, CriticalFlag, Usage, family
from conditions import Condition, ModelEndpoint
from drift import InterfaceVersion

Arm = Literal["with", "without"]
Phase = Literal["dev", "frozen", "adapted"]


def trial_key(
    bundle_hash: str | None, condition_id: str, phase: str, arm: str, task_id: str, trial: int
) -> str:
    """The trial's identity. A key with a valid record is never run again; resuming runs the
    keys without one (missing or invalid), each new attempt stored beside the earlier ones."""
    parts: list[str | int] = [bundle_hash or "", condition_id, phase, arm, task_id, trial]
    return hashlib.sha256(rfc8785.dumps(parts)).hexdigest()


class TrialSpec(BaseModel):
    """One trial to run."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    key: str = Field(description="Trial key (see trial_key).")
    task_id: str = Field(description="Task id.")
    task_index: int = Field(description="Index of the task in its split.")
    trial: int = Field(description="Trial index, 0..k-1.")
    seed: int = Field(description="Model seed: shared by both arms and all conditions.")


class Batch(BaseModel):
    """Trials of one arm in one condition: what one Ray task runs in one sandbox."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cycle: str = Field(description="Cycle id.")
    phase: Phase = Field(description="Evaluation phase.")
    condition_id: str = Field(
        description="The condition's id in this cycle (keyed for committed targets)."
    )
    condition: Condition = Field(description="Where the trials run.")
    family: str = Field(description="The task family of the trials (one of the condition's).")
    arm: Arm = Field(description="'with' the submission's artifacts or 'without' (baseline).")
    bundle_hash: str | None = Field(description="Submission bundle hash; None for the baseline.")
    submission: str | None = Field(description="name@version of the submission, if any.")
    artifacts_json: str = Field(description="The AgentArtifacts, as JSON.")
    interface: InterfaceVersion = Field(
        description="The interface version served (built in or defined by the cycle)."
    )
    endpoint: ModelEndpoint | None = Field(
        default=None,
        description="Where the model is served, when the spec says (never the key itself).",
    )
    split_seed: int = Field(description="Seed of the task split.")
    trials: tuple[TrialSpec, ...] = Field(description="The trials.")
    cache: dict[str, CachedReply] = Field(
        default_factory=dict,
        description="Recorded replies by request hash, served instead of a model call "
        "(`--cache`); empty: every call asks the model.",
    )

    @model_validator(mode="after")
    def _family_of_condition(self) -> Self:
        if self.family not in self.condition.task_family.families:
            raise ValueError(f"family {self.family!r} is not one of the condition's")
        return self


def sandbox_key(batch: Batch) -> tuple[str | None, str | None, str | None]:
    """What batches that share a sandbox have in common: the arm (bundle) and the server the
    tools come from. One server serves the canonical tools of every family with a backend
    module, and every interface version's drift is served over them in the worker
    (``benchmark.serve``), so an arm's families and interface versions share one. A family
    served by releases of a real server (a folder family) runs one server per family and
    interface version."""
    external = family(batch.family).external_server(batch.interface) is not None
    if not external:
        return (batch.bundle_hash, None, None)
    return (batch.bundle_hash, batch.family, batch.interface.model_dump_json())


_GROUP: TypeAdapter[list[Batch]] = TypeAdapter(list[Batch])


def group_json(batches: Sequence[Batch]) -> str:
    """A group of batches (one sandbox's, :func:`runner.sandbox_groups`) as one JSON array:
    what a worker task is handed."""
    return _GROUP.dump_json(list(batches)).decode()


def load_group(data: str) -> list[Batch]:
    """The batches of :func:`group_json`'s JSON, validated; at least one."""
    batches = _GROUP.validate_json(data)
    if not batches:
        raise ValueError("a group of batches is empty")
    return batches


class TrialRecord(BaseModel):
    """Everything about one trial, enough to recompute a release from records alone."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = Field(default=1, description="Record format version.")
    key: str = Field(description="Trial key.")
    attempt: int = Field(
        default=1, ge=1, description="Attempt number of the trial (1 for the first run)."
    )
    cycle: str = Field(description="Cycle id.")
    phase: Phase = Field(description="Evaluation phase.")
    condition_id: str = Field(description="Condition id.")
    arm: Arm = Field(description="'with' or 'without' artifacts.")
    bundle_hash: str | None = Field(description="Submission bundle hash (None: baseline).")
    submission: str | None = Field(description="name@version of the submission.")
    task_id: str = Field(description="Task id.")
    family: str = Field(description="Task family.")
    split: str = Field(description="Split.")
    task_index: int = Field(description="Index within the split.")
    task_seed: int = Field(description="Seed of the task's split.")
    generator_version: str = Field(description="Task generator version.")
    trial: int = Field(description="Trial index.")
    seed: int = Field(
        description="Trial seed, shared by every arm; requests were sent "
        "benchmark._seeds.request_seed(seed, bundle_hash or 'baseline')."
    )
    model: str = Field(description="litellm model string.")
    provider: str = Field(description="Provider id.")
    wire: str | None = Field(
        default=None,
        description="Wire format the model's requests travelled in (benchmark.wire_format: "
        "'anthropic-messages', 'gemini-generate-content', 'openai-chat-completions', "
        "'sim-in-process', …); None in records written before it was recorded.",
    )
    harness: str = Field(description="Harness version.")
    tool_interfaces: dict[str, str] = Field(description="Interface version id per environment.")
    schema_digests: dict[str, str] = Field(description="Served schema digest per environment.")
    verifier_version: str = Field(description="Verifier version.")
    sandbox: str = Field(description="Sandbox kind the backend ran in.")
    node: str | None = Field(
        default=None, description="Id of the Ray node whose worker ran the trial (None: no Ray)."
    )
    started_at: str = Field(description="Start (RFC 3339, UTC, ms).")
    ended_at: str = Field(description="End (RFC 3339, UTC, ms).")
    usage: Usage = Field(description="Model usage.")
    cost_usd: float | None = Field(
        default=None,
        description="What the trial's model calls cost in US dollars at litellm's list price "
        "for the model string (prompt tokens x input price + completion tokens x output "
        "price; benchmark.model_price): 0 for the sim's models, None where litellm has no "
        "price for the model (never a made-up one) and in records written before costs were "
        "recorded.",
    )
    turns: int = Field(description="Model calls.")
    tool_calls: int = Field(description="Tool calls.")
    tool_errors: int = Field(description="Tool calls that failed.")
    outcome: str = Field(description="success | safe_stop | failure | critical | invalid.")
    critical: tuple[CriticalFlag, ...] = Field(description="Drift-oracle flags.")
    safe_stop: str | None = Field(description="Why the run stopped safely.")
    invalid: str | None = Field(description="Infrastructure failure.")
    verifier_reasons: tuple[str, ...] = Field(description="What the verifier found wrong.")
    trace_sha256: str = Field(description="SHA-256 of the stored trace (messages JSON).")
    calls_sha256: str | None = Field(
        default=None,
        description="SHA-256 of the trial's call document (benchmark.CallDocument: every model "
        "request and reply, by blob hash); None in records written before calls were recorded.",
    )

    def row(self) -> dict[str, Any]:
        """Indexed columns of the store."""
        return {
            "key": self.key,
            "attempt": self.attempt,
            "cycle": self.cycle,
            "phase": self.phase,
            "condition_id": self.condition_id,
            "arm": self.arm,
            "bundle_hash": self.bundle_hash or "",
            "task_id": self.task_id,
            "trial": self.trial,
            "outcome": self.outcome,
        }

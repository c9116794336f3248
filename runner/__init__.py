"""Planning and running trials on Ray in sandboxes, and the SQLite results store."""

from runner._accounting import Accounting, CellAccounting, account
from runner._dev import DevRun, dev_condition, dev_store, run_dev
from runner._execute import (
    EXECUTOR_ENV,
    MAX_ATTEMPTS,
    Execution,
    Progress,
    RunInterrupted,
    execute,
)
from runner._lock import LOCK_NAME, home_lock
from runner._phase import (
    check_evaluation_size,
    evaluation_conditions,
    invalid_trials_error,
    phase_accounting,
    run_phase,
    store_for,
)
from runner._plan import plan_phase
from runner._ray import ADDRESS_ENV, start_ray
from runner._records import Batch, TrialRecord, TrialSpec, trial_key
from runner._replay import (
    COMPARED,
    HomeSource,
    ReplayedTrial,
    ReplaySource,
    ReplaySummary,
    replay_trials,
    sample_records,
)
from runner._sandbox import SandboxKind, make_sandbox, resolve_sandbox_kind
from runner._sandbox_base import (
    NOBODY,
    ExecResult,
    Mount,
    OutputRefused,
    Sandbox,
    SandboxProcess,
)
from runner._sandbox_docker import DockerSandbox
from runner._sandbox_engine import DEFAULT_IMAGE, docker_status, remove_stale_sandboxes
from runner._sandbox_local import LocalSandbox
from runner._store import TrialStore
from runner._worker import Called, Item, Row, run_batch, stream_batch
from runner.errors import RunnerError

__all__ = [
    "ADDRESS_ENV",
    "COMPARED",
    "DEFAULT_IMAGE",
    "EXECUTOR_ENV",
    "LOCK_NAME",
    "MAX_ATTEMPTS",
    "NOBODY",
    "Accounting",
    "Batch",
    "Called",
    "CellAccounting",
    "DevRun",
    "DockerSandbox",
    "ExecResult",
    "Execution",
    "HomeSource",
    "Item",
    "LocalSandbox",
    "Mount",
    "OutputRefused",
    "Progress",
    "ReplaySource",
    "ReplaySummary",
    "ReplayedTrial",
    "Row",
    "RunInterrupted",
    "RunnerError",
    "Sandbox",
    "SandboxKind",
    "SandboxProcess",
    "TrialRecord",
    "TrialSpec",
    "TrialStore",
    "account",
    "check_evaluation_size",
    "dev_condition",
    "dev_store",
    "docker_status",
    "evaluation_conditions",
    "execute",
    "home_lock",
    "invalid_trials_error",
    "make_sandbox",
    "phase_accounting",
    "plan_phase",
    "remove_stale_sandboxes",
    "replay_trials",
    "resolve_sandbox_kind",
    "run_batch",
    "run_dev",
    "run_phase",
    "sample_records",
    "start_ray",
    "store_for",
    "stream_batch",
    "trial_key",
]

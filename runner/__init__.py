"""Planning and running trials on Ray in sandboxes, and the SQLite results store."""

from runner._accounting import Accounting, CellAccounting, account
from runner._budget import (
    SIM_TRIAL_USAGE,
    CostEstimate,
    TrialUsage,
    estimate_cost,
    measured_usage,
    trial_usage,
    usd_text,
)
from runner._dev import (
    DEV_CONDITIONS,
    DEV_STORES,
    DevRun,
    dev_condition,
    dev_conditions,
    dev_store,
    run_dev,
)
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
from runner._pin import (
    PIN_FIELD,
    RecordsPin,
    checked_records,
    checked_rows,
    cycle_store,
    last_pin,
    latest,
    pin_phase,
    records_digest,
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
from runner._sandbox import (
    FOLDER_CODE,
    SandboxKind,
    gate_sandboxes,
    make_sandbox,
    resolve_sandbox_kind,
)
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
from runner._signals import terminate_as_interrupt
from runner._skill_scripts import SCRIPT_TIMEOUT_S, SandboxScripts, skill_mount
from runner._store import StoredRow, TrialStore, canonical_record, record_leaf
from runner._worker import Called, Item, Row, run_batch, stream_batch
from runner.errors import RunnerError

__all__ = [
    "ADDRESS_ENV",
    "COMPARED",
    "DEFAULT_IMAGE",
    "DEV_CONDITIONS",
    "DEV_STORES",
    "EXECUTOR_ENV",
    "FOLDER_CODE",
    "LOCK_NAME",
    "MAX_ATTEMPTS",
    "NOBODY",
    "PIN_FIELD",
    "SCRIPT_TIMEOUT_S",
    "SIM_TRIAL_USAGE",
    "Accounting",
    "Batch",
    "Called",
    "CellAccounting",
    "CostEstimate",
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
    "RecordsPin",
    "ReplaySource",
    "ReplaySummary",
    "ReplayedTrial",
    "Row",
    "RunInterrupted",
    "RunnerError",
    "Sandbox",
    "SandboxKind",
    "SandboxProcess",
    "SandboxScripts",
    "StoredRow",
    "TrialRecord",
    "TrialSpec",
    "TrialStore",
    "TrialUsage",
    "account",
    "canonical_record",
    "check_evaluation_size",
    "checked_records",
    "checked_rows",
    "cycle_store",
    "dev_condition",
    "dev_conditions",
    "dev_store",
    "docker_status",
    "estimate_cost",
    "evaluation_conditions",
    "execute",
    "gate_sandboxes",
    "home_lock",
    "invalid_trials_error",
    "last_pin",
    "latest",
    "make_sandbox",
    "measured_usage",
    "phase_accounting",
    "pin_phase",
    "plan_phase",
    "record_leaf",
    "records_digest",
    "remove_stale_sandboxes",
    "replay_trials",
    "resolve_sandbox_kind",
    "run_batch",
    "run_dev",
    "run_phase",
    "sample_records",
    "skill_mount",
    "start_ray",
    "store_for",
    "stream_batch",
    "terminate_as_interrupt",
    "trial_key",
    "trial_usage",
    "usd_text",
]

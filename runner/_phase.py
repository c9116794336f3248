"""Running a phase of a release cycle: plan, execute on Ray, account, record in the ledger."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from benchmark import check_cycle_spec, require_gate
from conditions import Condition, Cycle, CycleSpec, CycleState
from runner._accounting import Accounting, account
from runner._execute import MAX_ATTEMPTS, Execution, Progress, execute
from runner._lock import home_lock
from runner._pin import PIN_FIELD, checked_records, checked_rows, cycle_store, pin_phase
from runner._plan import plan_phase
from runner._records import Batch, TrialRecord
from runner._sandbox import gate_sandboxes
from runner._store import TrialStore
from runner.errors import RunnerError
from submissions import Bundle, BundleStore, submitted_bundles

_PHASE_STATE = {"frozen": CycleState.frozen_run, "adapted": CycleState.adapted_run}
RERUN_HINT = (
    "run the same command again: trials with a valid record are not repeated, missing and "
    "invalid ones run (up to --max-attempts attempts each)"
)


def store_for(home: Path) -> TrialStore:
    """The trial store of the cycle in ``home``, as it is (unchecked; readers of a cycle's
    trials use ``checked_records``)."""
    return TrialStore(home / "vwt.sqlite")


def cache_stores(home: Path) -> list[TrialStore]:
    """The stores whose recorded replies ``--cache`` serves in ``home``: its cycle's, then
    those of the cycles it superseded (``--force``), newest first."""
    older = sorted((home / "superseded").glob("*/vwt.sqlite"), reverse=True)
    return [store_for(home), *(TrialStore(p) for p in older)]


def evaluation_conditions(cycle: Cycle) -> list[tuple[str, Condition]]:
    """(id, condition) of the source, then of every committed target (keyed ids)."""
    return cycle.evaluation_conditions()


def _state(phase: str) -> CycleState:
    state = _PHASE_STATE.get(phase)
    if state is None:
        raise RunnerError(f"phase {phase!r} is not a cycle phase", "use 'frozen' or 'adapted'")
    return state


def adapted_bundles(cycle: Cycle) -> list[tuple[str, Bundle]]:
    """(target id, adapted bundle) of every recorded adaptation that changed its bundle, in
    ledger order. An adaptation that left its bundle as it was (same hash) is not here: its
    adapted cell reuses the frozen trials."""
    store = BundleStore(cycle.home)
    out = []
    for (parent, target), entry in cycle.adaptations().items():
        adapted = entry.payload["adapted"]
        if adapted != parent:
            out.append((target, store.get(adapted)))
    return out


def _plan(cycle: Cycle, phase: str, bundles: list[Bundle]) -> list[Batch]:
    evaluation = cycle.spec.evaluation
    if phase == "adapted":
        # Only the adapted bundles that changed run, each in the target it was adapted to,
        # on the frozen plan's tasks and seeds; the baseline is not re-run (the adapted cell
        # pairs with the frozen baseline's trials of the same tasks).
        conditions = dict(evaluation_conditions(cycle))
        return [
            batch
            for target, bundle in adapted_bundles(cycle)
            for batch in plan_phase(
                cycle=cycle.id,
                cycle_seed=cycle.spec.seed,
                phase="adapted",
                conditions=[(target, conditions[target])],
                bundles=[bundle],
                tasks_per_split=evaluation.tasks_per_split,
                k=evaluation.k,
                interfaces=cycle.spec.interfaces,
                endpoints=cycle.spec.endpoints,
                baseline=False,
            )
        ]
    return plan_phase(
        cycle=cycle.id,
        cycle_seed=cycle.spec.seed,
        phase="frozen",
        conditions=evaluation_conditions(cycle),
        bundles=bundles,
        tasks_per_split=evaluation.tasks_per_split,
        k=evaluation.k,
        interfaces=cycle.spec.interfaces,
        endpoints=cycle.spec.endpoints,
    )


def phase_accounting(
    cycle: Cycle, phase: str, records: list[TrialRecord] | None = None
) -> Accounting:
    """The accounting of a cycle phase ('frozen' or 'adapted') now: its plan (the committed
    evaluation size, the submitted bundles, the evaluation conditions) against the store's
    records of the phase (``records``, when the caller has read them already; else read and
    checked, ``checked_records``). The adapted phase plans the recorded adapted bundles that
    changed (``adapted_bundles``). Starts nothing."""
    _state(phase)
    plan = _plan(cycle, phase, submitted_bundles(cycle) if phase == "frozen" else [])
    if records is None:
        records = checked_records(cycle, phase)
    return account(phase, plan, records)


def check_evaluation_size(spec: CycleSpec, tasks_per_split: int | None, k: int | None) -> None:
    """Refuse an evaluation size other than the one committed in ``spec``."""
    committed = spec.evaluation
    if (tasks_per_split is not None and tasks_per_split != committed.tasks_per_split) or (
        k is not None and k != committed.k
    ):
        raise RunnerError(
            f"the evaluation size is fixed at commit: {committed.tasks_per_split} tasks per "
            f"split and k={committed.k} (asked for {tasks_per_split or '-'} tasks, "
            f"k={k or '-'})",
            "leave out --tasks and --k, or pass the committed values",
        )


def invalid_trials_error(
    accounting: Accounting, execution: Execution, bypass: str | None = None
) -> RunnerError:
    """The error for trials still invalid after their attempts, naming the first reason;
    ``bypass`` is the command that goes on without them, if there is one."""
    first = f"; first: {execution.first_invalid}" if execution.first_invalid else ""
    other = f", or go on without them: {bypass} (recorded)" if bypass else ""
    return RunnerError(
        f"{accounting.invalid} of {accounting.expected} {accounting.phase} trials are still "
        f"invalid after {execution.max_attempts} attempts each{first}",
        "fix the cause, then " + RERUN_HINT + other,
    )


def run_phase(
    cycle: Cycle,
    phase: Literal["frozen", "adapted"],
    *,
    sandbox: str = "auto",
    tasks_per_split: int | None = None,
    k: int | None = None,
    max_attempts: int = MAX_ATTEMPTS,
    progress: Progress | None = None,
    cache: bool = False,
) -> tuple[Execution, Accounting]:
    """Run every submitted bundle and the baseline in the source and all targets, at the
    committed evaluation size (``tasks_per_split``/``k``, if given, must equal it).

    Refused (BenchmarkError, nothing run or written) when the verifier red-team gate fails
    for a family the cycle uses; its result goes into the ledger entry.

    Holds the home's lock: a second process on the same home is refused. The stored records
    of the phase are checked first (``runner._pin``): a store edited outside vwt is refused,
    not pinned. Trials with a valid record are not repeated; invalid ones are retried up to
    ``max_attempts`` attempts each. The ledger gets ``run.<phase>`` with the accounting and
    the pin of every record of the phase stored so far. The adapted phase runs only the adapted
    bundles that changed, in their targets, without a baseline arm (``_plan``).

    Fails closed: if any planned trial has no record afterwards, raises RunnerError (run it
    again to resume). Trials still invalid after their attempts do not raise: the accounting
    counts them and ``execution.first_invalid`` says why the first one was. With ``cache``,
    requests whose replies the home's stores hold are answered from them (``cache_stores``).
    """
    state = _state(phase)
    check_evaluation_size(cycle.spec, tasks_per_split, k)
    gate = require_gate(
        cycle.spec, f"the {phase} evaluation", cycle.paths.redteam, gate_sandboxes(sandbox)
    ).model_dump(mode="json")
    with home_lock(cycle.home):
        cycle.require_state(state, action=f"run the {phase} evaluation")
        check_cycle_spec(cycle.spec)
        store = cycle_store(cycle)
        checked_rows(cycle, store, phase)
        bundles = submitted_bundles(cycle) if phase == "frozen" else []
        if phase == "frozen" and not bundles:
            raise RunnerError(f"cycle {cycle.id} has no submissions", "submit bundles while open")
        batches = _plan(cycle, phase, bundles)
        execution = execute(
            store,
            batches,
            sandbox=sandbox,
            sealed=True,
            max_attempts=max_attempts,
            progress=progress,
            cache=cache_stores(cycle.home) if cache else (),
        )
        records, pin = pin_phase(cycle, phase, store)
        accounting = account(phase, batches, records)
        adapted = {}
        if phase == "adapted":
            changed = len({b.hash for _, b in adapted_bundles(cycle)})
            adapted = {"adaptations": len(cycle.adaptations()), "adapted_bundles": changed}
        cycle.ledger.append(
            f"run.{phase}",
            {
                **accounting.as_json(),
                **adapted,
                "ran": execution.ran,
                "retried": execution.retried,
                "cached_calls": execution.cached_calls,
                "max_attempts": max_attempts,
                "first_invalid": execution.first_invalid,
                "failed_batches": execution.failed_batches,
                "redteam": gate,
                PIN_FIELD: pin.model_dump(mode="json"),
            },
        )
    if not accounting.complete:
        first = execution.failed_batches[0] if execution.failed_batches else None
        raise RunnerError(
            f"{phase} run incomplete: {accounting.missing} of {accounting.expected} trials "
            f"missing, {accounting.unexpected} unexpected"
            + (f"; first batch error: {first}" if first else ""),
            RERUN_HINT,
        )
    return execution, accounting

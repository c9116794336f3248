"""Running a phase of a release cycle: plan, execute on Ray, account, record in the ledger."""

from __future__ import annotations

from pathlib import Path

from benchmark import check_cycle_spec
from conditions import Condition, Cycle, CycleState
from runner._accounting import Accounting, account
from runner._execute import Execution, Progress, execute
from runner._plan import plan_phase
from runner._records import Phase
from runner._store import TrialStore
from runner.errors import RunnerError
from submissions import submitted_bundles

_PHASE_STATE = {"frozen": CycleState.frozen_run, "adapted": CycleState.adapted_run}


def store_for(home: Path) -> TrialStore:
    """The trial store of the cycle in ``home``."""
    return TrialStore(home / "vwt.sqlite")


def evaluation_conditions(cycle: Cycle) -> list[Condition]:
    """The source condition followed by every committed target."""
    return [cycle.source] + [t.condition for t in cycle.targets()]


def run_phase(
    cycle: Cycle,
    phase: Phase,
    *,
    sandbox: str = "auto",
    tasks_per_split: int | None = None,
    k: int | None = None,
    progress: Progress | None = None,
) -> tuple[Execution, Accounting]:
    """Run every submitted bundle and the baseline in the source and all targets.

    The adapted phase is recorded empty: nothing adapts bundles yet.

    Fails closed: if any planned trial has no record afterwards, raises RunnerError (run it
    again to resume: stored trials are not repeated).
    """
    state = _PHASE_STATE.get(phase)
    if state is None:
        raise RunnerError(f"phase {phase!r} is not a cycle phase", "use 'frozen' or 'adapted'")
    cycle.require_state(state, action=f"run the {phase} evaluation")
    check_cycle_spec(cycle.spec)
    if phase == "adapted":
        # No adaptation procedure exists yet, so there is no adapted bundle: record an empty
        # phase rather than re-running the frozen bundles under another name.
        empty = account(phase, [], [])
        cycle.ledger.append(
            "run.adapted", {**empty.model_dump(mode="json"), "note": "no adapted bundles"}
        )
        return Execution(planned=0, already_stored=0, ran=0), empty
    bundles = submitted_bundles(cycle)
    if not bundles:
        raise RunnerError(f"cycle {cycle.id} has no submissions", "submit bundles while open")
    evaluation = cycle.spec.evaluation
    batches = plan_phase(
        cycle=cycle.id,
        cycle_seed=cycle.spec.seed,
        phase=phase,
        conditions=evaluation_conditions(cycle),
        bundles=bundles,
        tasks_per_split=tasks_per_split or evaluation.tasks_per_split,
        k=k or evaluation.k,
        interfaces=cycle.spec.interfaces,
    )
    store = store_for(cycle.home)
    execution = execute(store, batches, sandbox=sandbox, progress=progress)
    accounting = account(phase, batches, store.records(phase))
    cycle.ledger.append(
        f"run.{phase}",
        {**accounting.model_dump(mode="json"), "failed_batches": execution.failed_batches},
    )
    if not accounting.complete:
        raise RunnerError(
            f"{phase} run incomplete: {accounting.missing} of {accounting.expected} trials "
            f"missing, {accounting.unexpected} unexpected"
            + (
                f"; first batch error: {execution.failed_batches[0]}"
                if execution.failed_batches
                else ""
            ),
            "run the same command again to resume; stored trials are not repeated",
        )
    return execution, accounting

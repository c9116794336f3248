"""A submitter's development run: a bundle and the no-artifact baseline on the public dev split.

Needs only a cycle spec (no cycle home, no keys): the source condition is public and the dev
split of every family is the same in every cycle.
"""

from __future__ import annotations

import json
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from benchmark import check_model, family
from benchmark.harness import usable_harness
from benchmark.sim import PROVIDER as SIM_PROVIDER
from benchmark.sim import sim_model
from conditions import Condition, CycleSpec, ModelEndpoint
from drift import write_atomic
from runner._accounting import Accounting, account
from runner._execute import MAX_ATTEMPTS, Execution, Progress, execute
from runner._lock import home_lock
from runner._phase import RERUN_HINT
from runner._plan import plan_phase
from runner._records import TrialRecord
from runner._store import TrialStore
from runner.errors import RunnerError
from submissions import Bundle

DEV_SPLIT = "dev"
DEV_CONDITIONS = "dev-conditions.json"
"""The file of a dev home naming the conditions its dev runs ran in (condition id → condition),
so its trials can be read and reported without a cycle (``vwt trials --home``)."""
DEV_STORES = "dev-*.sqlite"
"""The names of a dev home's stores (one per cycle spec and seed)."""


class DevRun(BaseModel):
    """What one development run measured: both arms' records on one condition."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    condition: Condition = Field(description="The source condition on the dev split.")
    bundle_hash: str = Field(description="Hash of the bundle that ran in the 'with' arm.")
    submission: str = Field(description="name@version of the bundle.")
    tasks_per_split: int = Field(description="Dev tasks run.")
    k: int = Field(description="Trials per task and arm.")
    store: Path = Field(description="The SQLite store holding the records (reused on resume).")
    execution: Execution = Field(description="What ran now and what was already stored.")
    accounting: Accounting = Field(description="Planned versus recorded trials.")
    records: tuple[TrialRecord, ...] = Field(
        description="Records of both arms, by key: each trial's latest valid attempt, else its "
        "latest attempt."
    )


def _model_labels(model: str, endpoint: ModelEndpoint | None) -> tuple[str, str]:
    """(provider, version label) of a litellm model string, for the records."""
    # no provider prefix, unknown provider or sim model, no credentials
    check_model(model, endpoint)
    prefix, _, name = model.partition("/")
    if prefix == SIM_PROVIDER:
        spec = sim_model(name)
        return spec.provider, spec.version
    return prefix, name


def dev_condition(
    source: Condition,
    model: str | None = None,
    endpoint: ModelEndpoint | None = None,
    harness: str | None = None,
    family_id: str | None = None,
) -> Condition:
    """``source`` on its family's public dev split, with ``model`` (a litellm string) if given
    (checked with its ``endpoint``, when the spec gives it one), under ``harness`` if given
    (any installed harness that can run here) — or on the dev split of the family
    ``family_id`` (e.g. one read from a folder), its environment at the source's interface
    version if the source names one, else at the family's base version."""
    data = source.model_dump()
    if family_id is not None:
        fam = family(family_id)
        data["task_family"] = {"family": fam.id, "split": DEV_SPLIT}
        if fam.env_id not in data["tool_interface"]:
            data["tool_interface"][fam.env_id] = next(iter(fam.interface_versions()))
    data["task_family"]["split"] = DEV_SPLIT
    if harness is not None:
        data["harness"] = usable_harness(harness).id
    if model is not None:
        provider, version = _model_labels(model, endpoint)
        data["model"] = {"model": model, "version": version}
        data["provider"] = provider
    return Condition.model_validate(data)


def dev_conditions(home: Path) -> dict[str, Condition]:
    """The conditions the dev runs in ``home`` ran in, by id ({} when none was recorded)."""
    path = home / DEV_CONDITIONS
    if not path.is_file():
        return {}
    try:
        data = json.loads(path.read_text(encoding="utf-8"))
        return {cid: Condition.model_validate(c) for cid, c in data.items()}
    except (OSError, ValueError, AttributeError) as e:
        raise RunnerError(
            f"{path} is not a dev home's conditions file ({e.__class__.__name__})",
            "run `vwt run dev` again to rewrite it",
        ) from None


def _note_condition(home: Path, condition: Condition) -> None:
    known = dev_conditions(home)
    if known.get(condition.id) == condition:
        return
    known[condition.id] = condition
    data = {cid: c.model_dump(mode="json") for cid, c in sorted(known.items())}
    write_atomic(home / DEV_CONDITIONS, json.dumps(data, indent=2).encode())


def dev_store(home: Path, spec: CycleSpec) -> TrialStore:
    """The dev store for ``spec`` under ``home``. One per cycle and seed: trial seeds derive
    from the cycle seed, but trial keys do not."""
    home.mkdir(parents=True, exist_ok=True)
    return TrialStore(home / f"dev-{spec.cycle}-{spec.seed}.sqlite")


def run_dev(
    bundle: Bundle,
    spec: CycleSpec,
    home: Path,
    *,
    model: str | None = None,
    harness: str | None = None,
    tasks_per_split: int | None = None,
    k: int | None = None,
    sandbox: str = "auto",
    max_attempts: int = MAX_ATTEMPTS,
    progress: Progress | None = None,
    cache: bool = False,
    family_id: str | None = None,
) -> DevRun:
    """Run ``bundle`` and the baseline on the dev split of ``spec``'s source condition (with
    ``model`` and under ``harness`` instead of the source's, when given; of the family
    ``family_id`` instead of the source's, if given).

    Trials with a valid record are not repeated, so a second run, or a run of an edited
    bundle, only runs what is missing or invalid (the baseline is shared); invalid trials are
    retried up to ``max_attempts`` attempts each. Holds the lock of ``home``. Raises
    RunnerError if trials are missing after; trials still invalid are counted in the
    accounting, and ``execution.first_invalid`` says why. With ``cache``, requests whose
    replies the dev store holds are answered from it.
    """
    condition = dev_condition(
        spec.source, model, spec.endpoints.get(model or ""), harness, family_id
    )
    for fam in map(family, condition.task_family.families):
        if DEV_SPLIT not in fam.splits:
            raise RunnerError(
                f"task family {fam.id!r} has no public {DEV_SPLIT!r} split",
                "develop against a family that has one",
            )
    n, trials = tasks_per_split or spec.evaluation.tasks_per_split, k or spec.evaluation.k
    batches = plan_phase(
        cycle=spec.cycle,
        cycle_seed=spec.seed,
        phase="dev",
        conditions=[(condition.id, condition)],
        bundles=[bundle],
        tasks_per_split=n,
        k=trials,
        interfaces=spec.interfaces,
        endpoints=spec.endpoints,
    )
    home.mkdir(parents=True, exist_ok=True)
    with home_lock(home):
        _note_condition(home, condition)
        store = dev_store(home, spec)
        execution = execute(
            store,
            batches,
            sandbox=sandbox,
            max_attempts=max_attempts,
            progress=progress,
            cache=[store] if cache else (),
        )
        planned = {t.key for b in batches for t in b.trials}
        # The store also holds other bundles' and models' dev runs; only this plan's count.
        records = tuple(r for r in store.records("dev") if r.key in planned)
    accounting = account("dev", batches, list(records))
    if not accounting.complete:
        first = f"; first batch error: {execution.failed_batches[0]}"
        raise RunnerError(
            f"dev run incomplete: {accounting.missing} of {accounting.expected} trials missing"
            + (first if execution.failed_batches else ""),
            RERUN_HINT,
        )
    return DevRun(
        condition=condition,
        bundle_hash=bundle.hash,
        submission=f"{bundle.manifest.name}@{bundle.manifest.version}",
        tasks_per_split=n,
        k=trials,
        store=store.path,
        execution=execution,
        accounting=accounting,
        records=records,
    )

"""The adapted phase of a release cycle: every submission adapted to every committed target,
each adaptation written under ``HOME/adapted/`` and recorded in the ledger.

Per submission × target: a kit of the target's adaptation sample (``adaptation.sample_tasks``
tasks per family), a metered gateway with the cycle's budget, the procedures the bundle
declares (or the defaults for its artifact kinds), then the checks: no served read of a sealed
task of the cycle, and the leak gate over the frozen and the adapted artifacts. The adapted
bundle is stored with the submissions (the adapted run loads it from there), its record and
access log under ``HOME/adapted/``, and one ``adaptation.recorded`` ledger entry carries
``AdaptedBundle.ledger_payload`` with the submission, the leak verdict and the sealed-read count.
A pair with an entry is done: running again skips it.

A human adaptation is the same pair in two steps: ``export_pair_kit`` hands out the kit and
keeps its access log; ``import_pair`` records the adapted bundle with that log.
"""

from __future__ import annotations

import json
import os
from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import rfc8785
from pydantic import BaseModel, ConfigDict, Field

from adapt._access import ADAPT_SPLIT, AccessLog, AdaptationKit, sealed_reads
from adapt._bundle import AdaptedBundle
from adapt._declared import declared_procedures
from adapt._human import export_kit, import_adapted
from adapt._leak import LeakReport, leak_check
from adapt._meter import Budget, MeteredGateway
from adapt._pair_loop import PairLoop
from adapt._procedures import adapt_bundle
from adapt._trials import UNTRUSTED
from adapt.errors import AdaptError, AdaptInterrupted, KitNotExported
from benchmark import Task, family
from conditions import ADAPTATION_EVENT, Cycle, CycleState, LedgerEntry, Target
from drift import write_atomic
from runner import remove_stale_sandboxes, resolve_sandbox_kind, terminate_as_interrupt
from submissions import Bundle, BundleStore, submitted_bundles, write_bundle

ADAPTED_DIR = "adapted"
"""Where a cycle home keeps adapted bundles, their records and access logs."""


class PairOutcome(BaseModel):
    """What adapting one submission to one target did (what ``vwt adapt --json`` lists)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    submission: str = Field(description="name@version of the submission.")
    target: str = Field(description="Keyed id of the target condition.")
    parent: str = Field(description="The frozen bundle's hash.")
    adapted: str = Field(description="The adapted bundle's hash (the parent's if unchanged).")
    procedure: str = Field(description="The procedures run, joined by '+', or 'none'.")
    changed: tuple[str, ...] = Field(description="Artifact paths the adaptation changed.")
    cost: dict[str, int] = Field(description="Calls, tokens, milliseconds, human minutes.")
    leak: dict[str, Any] = Field(description="The leak gate's verdict on both bundles.")
    sealed_reads: int = Field(description="Served reads of sealed tasks (0 for a valid pair).")
    skipped: bool = Field(description="True when it was recorded before (not run again).")


def adapted_dir(home: Path) -> Path:
    """``HOME/adapted``."""
    return home / ADAPTED_DIR


def _pair_name(parent: str, target: str) -> str:
    return f"{target}--{parent[:16]}"


def access_log_path(home: Path, parent: str, target: str) -> Path:
    """Where the access log of adapting ``parent`` to ``target`` is kept."""
    return adapted_dir(home) / "access" / f"{_pair_name(parent, target)}.json"


def _kit_log_path(home: Path, parent: str, target: str) -> Path:
    return adapted_dir(home) / "kits" / f"{_pair_name(parent, target)}.log.json"


def sealed_tasks(cycle: Cycle) -> list[Task]:
    """Every task the cycle evaluates (each evaluation condition's families and split at the
    committed size): what no adaptation may read, or copy."""
    size, out = cycle.spec.evaluation.tasks_per_split, {}
    for _, condition in cycle.evaluation_conditions():
        tf = condition.task_family
        for fam in tf.families:
            out.update({t.id: t for t in family(fam).tasks(tf.split, size, cycle.spec.seed)})
    return list(out.values())


def _permille(x: float) -> int:
    return round(x * 1000)


def leak_verdict(frozen: LeakReport, adapted: LeakReport) -> dict[str, Any]:
    """The ledger's (integer) form of the leak gate over the frozen and the adapted bundle."""
    return {
        "flagged": frozen.flagged or adapted.flagged,
        "threshold_permille": _permille(adapted.threshold),
        "frozen_max_permille": _permille(frozen.max_overlap),
        "adapted_max_permille": _permille(adapted.max_overlap),
        "matches": sorted({m.task for m in (*frozen.matches, *adapted.matches)}),
    }


def _outcome(payload: dict[str, Any], record: dict[str, Any], skipped: bool) -> PairOutcome:
    changed = tuple(d["path"] for d in record["diff"] if d["status"] != "unchanged")
    return PairOutcome(
        submission=payload["submission"],
        target=payload["target"],
        parent=payload["parent"],
        adapted=payload["adapted"],
        procedure=payload["procedure"],
        changed=changed,
        cost={k: v for k, v in payload["cost"].items() if k != "refused_calls"}
        | {"tokens": payload["cost"]["prompt_tokens"] + payload["cost"]["completion_tokens"]},
        leak=payload["leak"],
        sealed_reads=payload["sealed_reads"],
        skipped=skipped,
    )


def record_path(home: Path, parent: str, target: str) -> Path:
    """Where the record (``AdaptedBundle.record``) of adapting ``parent`` to ``target`` is."""
    return adapted_dir(home) / "records" / f"{_pair_name(parent, target)}.json"


def read_record(home: Path, parent: str, target: str) -> dict[str, Any]:
    """The stored record of one adaptation."""
    data: dict[str, Any] = json.loads(record_path(home, parent, target).read_text())
    return data


def read_access_log(home: Path, parent: str, target: str) -> AccessLog:
    """The stored access log of one adaptation."""
    return AccessLog.from_json(json.loads(access_log_path(home, parent, target).read_text()))


def _served(cycle: Cycle, target_id: str) -> list[Task]:
    """The adaptation sample a kit of ``target_id`` serves (none for an unknown target)."""
    target = next((t for t in cycle.targets() if t.id == target_id), None)
    return make_kit(cycle, target).sample() if target is not None else []


def record_adaptation(
    cycle: Cycle,
    bundle: Bundle,
    adapted: AdaptedBundle,
    log: AccessLog,
    sealed: list[Task],
    *,
    sandbox: str | None = None,
) -> LedgerEntry:
    """Check and keep one adaptation: refuse it if it read a sealed task; store the adapted
    bundle, its record and access log; run the leak gate; append its ledger entry (with
    ``sandbox``, where its code ran, for an automated one)."""
    read = sealed_reads(log, sealed)
    if read:
        raise AdaptError(
            f"the adaptation of {bundle.manifest.name} to {adapted.target} read {len(read)} "
            f"sealed task(s), e.g. {read[0].id}; it is not recorded",
            "an adaptation may read only its kit's adaptation sample",
        )
    home = cycle.home
    BundleStore(home).put(adapted.bundle)
    write_bundle(adapted.bundle, adapted_dir(home) / f"{adapted.hash}.json")
    for path, data in (
        (record_path(home, bundle.hash, adapted.target), rfc8785.dumps(adapted.record())),
        (access_log_path(home, bundle.hash, adapted.target), log.canonical()),
    ):
        path.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(path, data)
    # The adapted bundle may hold what its kit served (the sample's text and answers).
    served = _served(cycle, adapted.target)
    leak = leak_verdict(
        leak_check(bundle.files, sealed),
        leak_check(adapted.bundle.files, sealed, served=served),
    )
    m = bundle.manifest
    payload = adapted.ledger_payload(log) | {
        "submission": f"{m.name}@{m.version}",
        "leak": leak,
        "sealed_reads": 0,
    }
    if sandbox is not None:
        payload["sandbox"] = sandbox
    return cycle.ledger.append(ADAPTATION_EVENT, payload)


def make_kit(
    cycle: Cycle, target: Target, log: AccessLog | None = None, *, sandbox: str = "auto"
) -> AdaptationKit:
    """The adaptation kit of ``target`` in ``cycle`` (its sample size and interfaces), its
    sample drawn from the cycle's secret kit seed, its code run in ``sandbox``."""
    return AdaptationKit(
        target.condition,
        sample_seed=cycle.kit_seed(ADAPT_SPLIT),
        sample=cycle.spec.adaptation.sample_tasks,
        interfaces=cycle.spec.interfaces,
        target_id=target.id,
        log=log,
        sandbox=sandbox,
    )


def default_jobs() -> int:
    """How many pairs ``adapt_cycle`` adapts at once by default: two per core (a pair mostly
    waits on its sandboxes and its model), at least two."""
    return max(2, 2 * (os.cpu_count() or 1))


def _adapt_pair(
    cycle: Cycle, bundle: Bundle, target: Target, kind: str, loop: PairLoop
) -> tuple[AdaptedBundle, AccessLog]:
    """Adapt ``bundle`` to ``target`` (in a pool thread, its async parts on ``loop``): the
    adapted bundle and the kit's log."""
    with loop.bound():
        kit = make_kit(cycle, target, sandbox=kind)
        gateway = MeteredGateway(
            Budget.from_spec(cycle.spec.adaptation), endpoints=cycle.spec.endpoints
        )
        steps = declared_procedures(bundle, sandbox=kind)
        return adapt_bundle(bundle, kit, gateway, steps), kit.log


def adapt_cycle(
    cycle: Cycle,
    *,
    sandbox: str = "auto",
    jobs: int | None = None,
    on_pair: Callable[[PairOutcome], None] | None = None,
) -> list[PairOutcome]:
    """Adapt every submission to every committed target (cycle in state 'adaptation'),
    skipping the pairs recorded already; ``on_pair`` hears of each as it is done.

    Up to ``jobs`` pairs (default ``default_jobs()``) are adapted at once, each with its own
    kit, gateway and budget; they are checked and recorded one by one in the fixed order of
    submissions × targets, so the ledger is the same however many run at once. Any exception
    cancels the pairs in flight and records nothing more (Ctrl-C or SIGTERM: AdaptInterrupted
    saying how many pairs are recorded); a rerun resumes.

    Adaptations run submitters' code (their commands, and the sample's trials under their
    artifacts), so ``sandbox`` is resolved as for sealed runs: 'auto' without Docker is
    refused (RunnerError, nothing run) unless 'local' is named; the kind used is in each
    pair's ledger entry."""
    cycle.require_state(CycleState.adaptation, action="adapt the submissions")
    if jobs is not None and jobs < 1:
        raise AdaptError(f"jobs must be at least 1 (got {jobs})", "e.g. --jobs 2")
    done = cycle.adaptations()
    pairs = [(b, t) for b in submitted_bundles(cycle) for t in cycle.targets()]
    pending = [(b, t) for b, t in pairs if (b.hash, t.id) not in done]
    kind: str | None = None
    sealed: list[Task] = []
    if pending:
        kind = resolve_sandbox_kind(sandbox, untrusted=UNTRUSTED).value
        if kind == "docker":
            remove_stale_sandboxes()  # of an earlier run killed outright
        sealed = sealed_tasks(cycle)
    pool = ThreadPoolExecutor(max_workers=jobs or default_jobs(), thread_name_prefix="vwt-adapt")
    out: list[PairOutcome] = []
    recorded = len(pairs) - len(pending)
    with PairLoop() as loop, terminate_as_interrupt():
        try:
            futures = {
                (b.hash, t.id): pool.submit(_adapt_pair, cycle, b, t, str(kind), loop)
                for b, t in pending
            }
            for bundle, target in pairs:
                key = (bundle.hash, target.id)
                entry = done.get(key)
                if entry is None:
                    adapted, log = futures[key].result()
                    entry = record_adaptation(cycle, bundle, adapted, log, sealed, sandbox=kind)
                    recorded += 1
                record = read_record(cycle.home, bundle.hash, target.id)
                outcome = _outcome(entry.payload, record, skipped=key in done)
                if on_pair is not None:
                    on_pair(outcome)
                out.append(outcome)
        except KeyboardInterrupt:
            loop.cancel()
            raise AdaptInterrupted(
                f"interrupted: {recorded} of {len(pairs)} pairs recorded, the pairs in flight "
                "stopped",
                "run the same command again to adapt only the rest; recorded pairs are not redone",
            ) from None
        except BaseException:
            loop.cancel()
            raise
        finally:
            pool.shutdown(wait=True, cancel_futures=True)
    return out


def find_pair(cycle: Cycle, submission: str, target_id: str) -> tuple[Bundle, Target]:
    """The submitted bundle named ``submission`` (name or name@version) and the committed
    target ``target_id``."""
    submitted = submitted_bundles(cycle)
    named = [f"{b.manifest.name}@{b.manifest.version}" for b in submitted]
    bundles = [
        b for b, n in zip(submitted, named, strict=True) if submission in (b.manifest.name, n)
    ]
    if len(bundles) != 1:
        why = "no submission" if not bundles else "more than one submission"
        raise AdaptError(
            f"{why} named {submission!r} in cycle {cycle.id}", f"submitted: {', '.join(named)}"
        )
    targets = {t.id: t for t in cycle.targets()}
    if target_id not in targets:
        raise AdaptError(
            f"cycle {cycle.id} committed no target {target_id!r}",
            "pick a target id from `vwt conditions list`",
        )
    return bundles[0], targets[target_id]


def _require_pending(cycle: Cycle, bundle: Bundle, target: Target) -> None:
    if (bundle.hash, target.id) in cycle.adaptations():
        raise AdaptError(
            f"{bundle.manifest.name} is already adapted to {target.id}",
            "an adaptation is recorded once",
        )


def export_pair_kit(cycle: Cycle, submission: str, target_id: str, out: Path) -> Path:
    """Export the kit for adapting ``submission`` to ``target_id`` by hand; its access log
    (every file handed out) is kept for the import."""
    cycle.require_state(CycleState.adaptation, action="export an adaptation kit")
    bundle, target = find_pair(cycle, submission, target_id)
    _require_pending(cycle, bundle, target)
    kit = make_kit(cycle, target)
    export_kit(kit, bundle, Budget.from_spec(cycle.spec.adaptation), out)
    path = _kit_log_path(cycle.home, bundle.hash, target.id)
    path.parent.mkdir(parents=True, exist_ok=True)
    write_atomic(path, rfc8785.dumps(kit.log.as_json()))
    return out


def import_pair(
    cycle: Cycle, submission: str, target_id: str, source: Path, human_minutes: int
) -> PairOutcome:
    """Record the bundle at ``source`` as the human adaptation of ``submission`` to
    ``target_id`` that took ``human_minutes``, with the access log of its exported kit."""
    cycle.require_state(CycleState.adaptation, action="import an adapted bundle")
    bundle, target = find_pair(cycle, submission, target_id)
    _require_pending(cycle, bundle, target)
    kit_log = _kit_log_path(cycle.home, bundle.hash, target.id)
    if not kit_log.exists():
        raise KitNotExported(
            f"no kit was exported for adapting {bundle.manifest.name} to {target.id}",
            f"export it first: `vwt adapt kit --home {cycle.home} --submission "
            f"{bundle.manifest.name} --target {target.id} --out DIR`",
        )
    log = AccessLog.from_json(json.loads(kit_log.read_text()))
    adapted = import_adapted(
        source,
        bundle,
        target=target.id,
        human_minutes=human_minutes,
        budget=Budget.from_spec(cycle.spec.adaptation),
    )
    entry = record_adaptation(cycle, bundle, adapted, log, sealed_tasks(cycle))
    return _outcome(entry.payload, read_record(cycle.home, bundle.hash, target.id), skipped=False)

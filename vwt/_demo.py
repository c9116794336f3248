"""The demo flow: one whole release cycle on the embedded default, reported step by step."""

from __future__ import annotations

import hashlib
from collections.abc import Callable
from datetime import UTC, datetime, timedelta
from pathlib import Path

from pydantic import BaseModel, ConfigDict

from adapt import PairOutcome, adapt_cycle
from benchmark import check_cycle_spec, default_cycle_spec_path, full_cycle_spec_path
from conditions import Cycle, CycleSpec, CycleState, verify_commitment_and_reveal
from reports import HtmlReport, SignedRelease, build_release, write_html_report
from runner import Accounting, Execution, resolve_sandbox_kind, run_phase
from runner._execute import Progress
from submissions import reference_bundles, submit

Say = Callable[[str], None]


class DemoResult(BaseModel):
    """Where the demo left its published files, and what the run did."""

    model_config = ConfigDict(frozen=True, arbitrary_types_allowed=True)

    commitment: Path
    reveal: Path
    release_path: Path
    release: SignedRelease
    report: HtmlReport
    execution: Execution
    accounting: Accounting


def adaptation_summary(pairs: list[PairOutcome]) -> str:
    """One line on the adaptation step: pairs, what changed, what it cost, leaks."""
    changed: dict[str, int] = {}
    for p in pairs:
        changed[p.submission] = changed.get(p.submission, 0) + (p.adapted != p.parent)
    calls = sum(p.cost["calls"] for p in pairs)
    tokens = sum(p.cost["tokens"] for p in pairs)
    leaks = sum(p.leak["flagged"] for p in pairs)
    per = ", ".join(f"{name} {n}" for name, n in changed.items())
    return (
        f"adapted {len(pairs)} submission × target pairs through metered gateways "
        f"({calls} model calls, {tokens:,} tokens, {leaks} leak flags); bundles changed per "
        f"submission: {per}"
    )


def _cache_line(execution: Execution) -> str:
    return (
        f"model calls: {execution.model_calls} made, {execution.cached_calls} answered from "
        "the cache"
    )


def _rfc3339(t: datetime) -> str:
    return t.isoformat(timespec="seconds").replace("+00:00", "Z")


def demo_spec(
    tasks_per_split: int | None = None,
    k: int | None = None,
    now: datetime | None = None,
    *,
    full: bool = False,
) -> CycleSpec:
    """The embedded default cycle spec (``full``: the full one, with code maintenance), with
    optional smaller sizes, on a schedule around now.

    The demo runs a whole cycle in minutes, so its submission window opens at ``now`` (the
    current time, to the second) and closes a day later: the window guards hold, unbypassed.
    """
    spec = CycleSpec.load(full_cycle_spec_path() if full else default_cycle_spec_path())
    changes = {
        key: value
        for key, value in (("tasks_per_split", tasks_per_split), ("k", k))
        if value is not None
    }
    evaluation = spec.evaluation.model_validate({**spec.evaluation.model_dump(), **changes})
    opens = (now or datetime.now(UTC)).replace(microsecond=0)
    return CycleSpec.model_validate(
        {
            **spec.model_dump(),
            "opens_at": _rfc3339(opens),
            "closes_at": _rfc3339(opens + timedelta(days=1)),
            "evaluation": evaluation.model_dump(),
        }
    )


def run_demo(
    home: Path,
    spec: CycleSpec,
    *,
    force: bool = False,
    max_conditions: int | None = None,
    sandbox: str = "auto",
    cache: bool = False,
    say: Say = print,
    progress: Progress | None = None,
) -> DemoResult:
    """Init, generate, commit, open, submit the references, run frozen, adapt every submission
    to every target, run the adapted bundles, reveal, verify, report (the signed release and its
    HTML report beside it). With ``cache``, the trials' model requests already answered in
    ``home`` (by this cycle or one it superseded) are answered from the record."""
    check_cycle_spec(spec)
    # The demo is not a sealed cycle: without Docker it says so once and runs locally, and
    # the release records the sandbox of every trial. Real cycles refuse that fallback.
    sandbox = resolve_sandbox_kind(sandbox).value
    # Public too: its kit secret, so every run adapts on the same samples.
    kit_secret = hashlib.sha256(f"vwt/demo-kit\x1f{spec.cycle}\x1f{spec.seed}".encode()).digest()
    cycle = Cycle.init(home, spec, force=force, kit_secret=kit_secret)
    say(f"cycle {cycle.id} initialised in {home} (operator key {cycle.fingerprint})")
    # The demo draws its pairs from the cycle seed, so every run commits to the same targets
    # and two runs' matrices can be compared; a real cycle's draw is secret.
    targets = cycle.generate(max_conditions, draw_seed=spec.seed)
    say(f"{len(targets)} hidden target conditions generated from the cycle seed")
    # The demo is a public cycle: its embedded spec's seed is printed in vwt's own files.
    commitment = cycle.commit(public_seed=True)
    say(f"commitment published before any submission: {commitment}")
    cycle.transition(CycleState.open, "demo: submissions open")
    bundles = reference_bundles()
    for bundle in bundles:
        receipt = submit(cycle, bundle)
        say(f"submitted {bundle.manifest.name} (bundle {receipt.receipt.bundle_hash[:12]}…)")
    cycle.transition(CycleState.frozen_run, "demo: submissions closed")
    n = len(targets) + 1
    say(
        f"frozen run: {len(bundles) + 1} arms × {n} conditions × "
        f"{spec.evaluation.tasks_per_split} tasks × k={spec.evaluation.k} on Ray"
    )
    execution, accounting = run_phase(
        cycle, "frozen", sandbox=sandbox, progress=progress, cache=cache
    )
    say(
        f"{accounting.valid} of {accounting.expected} trials valid ({accounting.invalid} invalid, "
        f"{accounting.missing} missing): "
        + ", ".join(f"{n} {outcome}" for outcome, n in accounting.outcomes.items())
    )
    if cache:
        say(_cache_line(execution))
    cycle.transition(CycleState.adaptation, "demo: frozen runs final")
    pairs = adapt_cycle(cycle, sandbox=sandbox)
    say(adaptation_summary(pairs))
    cycle.transition(CycleState.adapted_run, "demo: every submission adapted to every target")
    adapted_run, adapted = run_phase(
        cycle, "adapted", sandbox=sandbox, progress=progress, cache=cache
    )
    say(
        f"adapted run: {adapted.valid} of {adapted.expected} trials valid "
        f"({adapted.invalid} invalid) for the bundles adapting changed; the unchanged ones "
        "reuse their frozen trials, and every adapted cell pairs with the frozen baseline"
    )
    if cache:
        say(_cache_line(adapted_run))
    reveal = cycle.reveal()
    verified = verify_commitment_and_reveal(commitment, reveal, cycle.public_key_b64)
    say(f"revealed {len(verified.conditions)} conditions; reveal verifies against the commitment")
    release_path = build_release(cycle)
    release = SignedRelease.model_validate_json(release_path.read_text())
    report = write_html_report(release_path)
    say(f"HTML report: {report.summary()}")
    return DemoResult(
        commitment=commitment,
        reveal=reveal,
        release_path=release_path,
        release=release,
        report=report,
        execution=execution,
        accounting=accounting,
    )

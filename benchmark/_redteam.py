"""The verifier red-team gate: a verifier that passes the reference and fails planted wrong
answers, on the first tasks of every split a family is evaluated on."""

from __future__ import annotations

import hashlib
import json
from collections.abc import Sequence
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field

from benchmark._registry import FAMILIES, family
from benchmark._sandbox_types import SandboxFactory
from benchmark._task import Family, Planted, Task
from benchmark.errors import BenchmarkError
from conditions import CycleSpec
from drift import write_atomic

MIN_PLANTED_NAMES = 8
"""Distinct planted wrong answers a family needs over the checked tasks."""
GATE_TASKS = 20
"""Tasks of each evaluated split the gate checks by default."""
REFERENCE = "reference"
"""The ``planted`` name of a failure of the reference solution itself."""


class _Frozen(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


class RedTeamFailure(_Frozen):
    """One way the gate failed."""

    family: str = Field(description="Family id.")
    task: str | None = Field(description="Task id (None: about the family as a whole).")
    planted: str | None = Field(
        description=f"Planted answer's name, '{REFERENCE}' for the reference solution, None "
        "for the family as a whole."
    )
    problem: str = Field(description="What went wrong.")

    def describe(self) -> str:
        """One line naming family, task and planted answer."""
        where = self.family
        if self.task is not None:
            where += f" task {self.task}"
        if self.planted == REFERENCE:
            where += ": the reference solution"
        elif self.planted is not None:
            where += f": planted answer {self.planted!r}"
        return f"{where} {self.problem}"


class FamilyRedTeam(_Frozen):
    """The gate's result for one family."""

    family: str = Field(description="Family id.")
    verifier_version: str = Field(description="Version of the verifier checked.")
    splits: tuple[str, ...] = Field(description="Evaluated splits checked (examples excluded).")
    tasks: int = Field(description="Tasks checked, over all splits.")
    planted: int = Field(description="Planted answers checked, over all tasks.")
    names: tuple[str, ...] = Field(description="Distinct planted answers.")
    checks: tuple[str, ...] = Field(description="Verifier checks the planted answers target.")
    failures: tuple[RedTeamFailure, ...] = Field(description="Everything that failed.")
    passed: bool = Field(description="No failures.")


class RedTeamReport(_Frozen):
    """The gate's result for every family checked."""

    tasks_per_split: int = Field(description="First tasks of each evaluated split checked.")
    families: tuple[FamilyRedTeam, ...] = Field(description="Per family, in id order.")
    passed: bool = Field(description="Every family passed.")

    def failures(self) -> list[RedTeamFailure]:
        """Every failure of every family."""
        return [f for fam in self.families for f in fam.failures]


def _failures(
    fam: Family, task: Task, planted: list[Planted], verdicts: list[tuple[bool | None, str]]
) -> list[RedTeamFailure]:
    """The failures of ``task``'s reference (the first verdict) and planted answers."""

    def failure(name: str, problem: str) -> RedTeamFailure:
        return RedTeamFailure(family=fam.id, task=task.id, planted=name, problem=problem)

    (passed, why), *rest = verdicts
    failures = []
    if passed is None:
        failures.append(failure(REFERENCE, f"cannot be applied ({why})"))
    elif not passed:
        failures.append(failure(REFERENCE, f"fails the verifier ({why})"))
    for p, (passed, why) in zip(planted, rest, strict=True):
        if passed is None:
            failures.append(failure(p.name, f"cannot be applied ({why})"))
        elif passed:
            failures.append(failure(p.name, f"passes the verifier{why and f' ({why})'}"))
    return failures


def redteam_family(
    fam: Family, tasks: int = GATE_TASKS, cycle_seed: int = 0, sandbox: SandboxFactory | None = None
) -> FamilyRedTeam:
    """The gate for one family: the first ``tasks`` tasks of each evaluated split (sealed
    splits drawn for ``cycle_seed``; a split holding fewer, all of them). A family whose end
    states exist only in a sandbox (a folder family) runs there, in ``sandbox(mounts)``; its
    result is kept for the process (same folder content, tasks and seed: same result)."""
    key = (fam.id, getattr(fam, "digest", None), tasks, cycle_seed)
    if key[1] is not None and key in _SANDBOX_RESULTS:
        return _SANDBOX_RESULTS[key]
    splits = tuple(s for s in fam.splits if s != fam.examples_split)
    checked_tasks = [
        task
        for split in splits
        for task in fam.tasks(split, min(tasks, fam.split_size(split) or tasks), cycle_seed)
    ]
    plants = {task.id: fam.planted(task) for task in checked_tasks}
    answers = [
        (task, calls)
        for task in checked_tasks
        for calls in [task.reference_calls, *(p.calls for p in plants[task.id])]
    ]
    verdicts = iter(fam.verdicts(answers, sandbox))
    failures: list[RedTeamFailure] = []
    planted: list[tuple[str, str]] = []
    for task in checked_tasks:
        mine = [next(verdicts) for _ in range(1 + len(plants[task.id]))]
        failures += _failures(fam, task, plants[task.id], mine)
        planted += [(p.name, p.check) for p in plants[task.id]]
    checked = len(checked_tasks)
    names = sorted({n for n, _ in planted})
    if len(names) < MIN_PLANTED_NAMES:
        failures.append(
            RedTeamFailure(
                family=fam.id,
                task=None,
                planted=None,
                problem=f"has {len(names)} distinct planted answers over {checked} tasks; the "
                f"gate needs at least {MIN_PLANTED_NAMES}",
            )
        )
    result = FamilyRedTeam(
        family=fam.id,
        verifier_version=fam.verifier_version,
        splits=splits,
        tasks=checked,
        planted=len(planted),
        names=tuple(names),
        checks=tuple(sorted({c for _, c in planted})),
        failures=tuple(failures),
        passed=not failures,
    )
    if key[1] is not None:
        _SANDBOX_RESULTS[key] = result
    return result


_SANDBOX_RESULTS: dict[tuple[str, str | None, int, int], FamilyRedTeam] = {}
"""Gate results of folder families (by id, folder digest, tasks and seed): their answers run
in a sandbox, and a cycle's phases and release ask for the same gate."""


def redteam(
    families: Sequence[str] | None = None,
    tasks: int = GATE_TASKS,
    cycle_seed: int = 0,
    sandbox: SandboxFactory | None = None,
) -> RedTeamReport:
    """The red-team gate over ``families`` (ids; every known family when None): on the first
    ``tasks`` tasks of each evaluated split, the reference calls pass the verifier and every
    planted wrong answer fails it, and each family plants at least 8 distinct wrong answers.
    Folder families run their answers in ``sandbox(mounts)``."""
    ids = sorted(FAMILIES) if families is None else sorted(set(families))
    results = tuple(redteam_family(family(i), tasks, cycle_seed, sandbox) for i in ids)
    return RedTeamReport(
        tasks_per_split=tasks, families=results, passed=all(r.passed for r in results)
    )


def cycle_families(spec: CycleSpec) -> list[str]:
    """The families a cycle spec uses (its source's and its catalogue's), in id order."""
    return sorted(spec.catalogue.family_ids())


def _gate_key(families: Sequence[str], cycle_seed: int, tasks: int) -> str:
    """What a gate's result depends on: the seed, the size, and each family's source."""
    parts = [f"{i}\x1f{family(i).source_digest()}" for i in sorted(set(families))]
    return hashlib.sha256("\x1e".join([str(cycle_seed), str(tasks), *parts]).encode()).hexdigest()


def _cached(path: Path, key: str) -> RedTeamReport | None:
    try:
        data = json.loads(path.read_text())
        if data.get("key") == key:
            return RedTeamReport.model_validate(data["report"])
    except (OSError, ValueError, KeyError, TypeError):
        pass  # absent or unreadable: the gate runs again
    return None


def require_gate(
    spec: CycleSpec,
    action: str,
    cache: Path | None = None,
    sandbox: SandboxFactory | None = None,
) -> RedTeamReport:
    """The gate over the families ``spec`` uses, on the first :data:`GATE_TASKS` tasks of each
    split its seed draws (folder families in ``sandbox(mounts)``); raises BenchmarkError naming
    the first failure (family, task, planted answer) unless it passes.

    With ``cache`` (a file in the cycle's private operator folder), a passing result is kept
    there under a key of the seed, the size and every family's source digest
    (``Family.source_digest``), and reused while the key holds: a cycle's phases and its
    release check the same verifiers once, and any change to a family's code runs it again."""
    families, tasks = cycle_families(spec), GATE_TASKS
    key = _gate_key(families, spec.seed, tasks)
    report = _cached(cache, key) if cache is not None else None
    if report is None or not report.passed:
        report = redteam(families, tasks, spec.seed, sandbox=sandbox)
        if cache is not None and report.passed:
            body = {"v": 1, "key": key, "report": report.model_dump(mode="json")}
            write_atomic(cache, json.dumps(body).encode(), mode=0o600)
    failures = report.failures()
    if failures:
        more = f" (and {len(failures) - 1} more)" if len(failures) > 1 else ""
        raise BenchmarkError(
            f"{action} is refused: the verifier red-team gate fails: "
            f"{failures[0].describe()}{more}",
            "fix the family's verifier or its planted answers; `vwt families redteam` lists "
            "every failure",
        )
    return report

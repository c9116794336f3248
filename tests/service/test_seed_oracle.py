"""No value a submitter can see lets anyone test a guess of the cycle seed.

The cycle seed draws every sealed task and its reference answer, and an operator may pick a
small one. A submitter sees the dev kit, the schedule and commitment, its receipts and
listings, its adaptation kits (the same files the service serves, `vwt adapt kit` exports for a
human and a submitter's own adaptation command reads) and what the service answers to an
adapted upload. The attacker here takes every one of those values from a served cycle whose
seed is below 2**16 and tries every seed below 2**16 and every date-like seed against them:
each seed a family split or task could have been drawn from under it, each sealed task id. On
the kit as main built it (its sample drawn from the cycle seed) the attack finds the seed, and
with it regenerates the sealed answers; on the kits served now it finds nothing, because what
they hold is drawn from a 256-bit kit secret and does not change with the cycle seed at all.
"""

from __future__ import annotations

import json
import re
import shutil
from collections.abc import Iterator
from datetime import date, timedelta
from pathlib import Path
from typing import Any

import pytest

from adapt import ADAPT_SPLIT, AdaptationKit, export_kit, make_kit, sealed_tasks
from adapt._meter import Budget
from benchmark import Task, family
from benchmark._task import stable_int
from conditions import Cycle, CycleSpec, CycleState
from service import extract_kit
from submissions import load_bundle_dir, reference_bundles
from tests.reports.test_verify import single_axis_targets, small_spec
from tests.service.test_app import Served, serving

SECRET_SEED = 40961
"""The operator's (small) cycle seed."""
_SEALED_ID = re.compile(r"\b[a-z_]+/sealed/\d{4}-[0-9a-f]{8}\b")


def candidate_seeds() -> Iterator[int]:
    """Every seed below 2**16, then every date 1990-01-01..2039-12-31 as YYYYMMDD."""
    yield from range(2**16)
    day = date(1990, 1, 1)
    while day.year < 2040:
        yield int(day.strftime("%Y%m%d"))
        day += timedelta(days=1)


def _walk(value: Any) -> Iterator[Any]:
    if isinstance(value, dict):
        for k, v in value.items():
            yield k
            yield from _walk(v)
    elif isinstance(value, list):
        for v in value:
            yield from _walk(v)
    else:
        yield value


def _parsed(body: bytes) -> Any:
    try:
        return json.loads(body)
    except ValueError:
        return body.decode("utf-8", "replace")


def visible(seen: list[Any]) -> tuple[set[int], set[str]]:
    """The integers (JSON numbers, and runs of 10 or more digits in text) and the strings of
    everything ``seen``."""
    ints: set[int] = set()
    texts: set[str] = set()
    for value in (v for item in seen for v in _walk(item)):
        if isinstance(value, bool):
            continue
        if isinstance(value, int):
            ints.add(value)
        elif isinstance(value, str):
            texts.add(value)
            ints.update(int(run) for run in re.findall(r"\d{10,}", value))
    return ints, texts


def visible_tasks(seen: list[Any]) -> list[Task]:
    """Every task among the values ``seen`` (the kits' tasks/*.json)."""
    return [Task.model_validate(v) for v in seen if isinstance(v, dict) and "reference_calls" in v]


def attack(seen: list[Any], families: list[str]) -> int | None:
    """The first candidate seed that any visible value confirms, or None.

    Structural shortcuts first: a visible task is a pure function of its ``seed`` field (so
    that field is all a task tells), and a visible sealed task id would let a guess be checked
    by generating that task. Then the brute force: a guess is confirmed when a split seed it
    implies (adapt or sealed, of any family) is a visible number.
    """
    ints, texts = visible(seen)
    for t in visible_tasks(seen):
        assert family(t.family).generate(t.split, t.index, t.seed) == t
    sealed_ids = {m for text in texts for m in _SEALED_ID.findall(text)}
    for seed in candidate_seeds():
        for f in families:
            for split in (ADAPT_SPLIT, "sealed"):
                if stable_int(f, split, seed) in ints:
                    return seed
        if sealed_ids and any(
            t.id in sealed_ids for f in families for t in family(f).tasks("sealed", 2, seed)
        ):
            return seed  # pragma: no cover - reached only if a sealed id is shown
    return None


def answers_of(tasks: list[Task]) -> str:
    """A hand adaptation's lookup table of reference answers."""
    table = {t.id: [c.model_dump(mode="json") for c in t.reference_calls] for t in tasks}
    return json.dumps(table, indent=1)


def _spec(seed: int) -> CycleSpec:
    data = small_spec().model_dump(mode="json")
    data["seed"] = seed
    data["adaptation"]["human_minutes"] = 30
    return CycleSpec.model_validate(data)


def _kit_files(root: Path) -> list[Any]:
    return [_parsed(p.read_bytes()) for p in sorted(root.rglob("*")) if p.is_file()]


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Served, list[Any]]]:
    """A cycle with a small secret seed, served; alice submitted, and every answer she and an
    anonymous caller got up to the adaptation phase."""
    spec = _spec(SECRET_SEED)
    cycle = Cycle.init(tmp_path_factory.mktemp("oracle") / "h", spec)
    cycle.generate(single_axis_targets(spec))
    cycle.commit()
    cycle.transition(CycleState.open)
    seen: list[Any] = []
    bundle = next(b for b in reference_bundles() if b.manifest.name == "no-artifacts")
    with serving(cycle, ["alice"]) as s:
        with s.client() as anyone, s.client("alice") as alice:
            for path in ("/", "/api/v1/cycle", "/api/v1/commitment", "/api/v1/dev-kit"):
                seen.append(anyone.get(path).json())
            answer = alice.post("/api/v1/submissions", content=bundle.canonical())
            assert answer.status_code == 201
            seen.append(answer.json())
            listed = alice.get("/api/v1/submissions").json()
            seen.append(listed)
            bundle_hash = listed["submissions"][0]["bundle_hash"]
            seen.append(alice.get(f"/api/v1/submissions/{bundle_hash}/receipt").json())
        cycle.transition(CycleState.frozen_run)
        counts = dict.fromkeys(("expected", "valid", "invalid", "missing", "unexpected"), 0)
        cycle.ledger.append("run.frozen", counts)
        cycle.transition(CycleState.adaptation)
        yield s, seen


def test_the_attack_finds_the_seed_from_a_kit_drawn_from_the_cycle_seed(
    served: tuple[Served, list[Any]], tmp_path: Path
) -> None:
    """main's kit: the sample drawn from the cycle seed. Every task's seed field confirms a
    guess; with the seed found, the sealed tasks and their answers are regenerated."""
    s, _ = served
    cycle, target = s.cycle, s.cycle.targets()[0]
    bundle = reference_bundles()[0]
    old = AdaptationKit(
        target.condition,
        sample_seed=cycle.spec.seed,
        sample=cycle.spec.adaptation.sample_tasks,
        interfaces=cycle.spec.interfaces,
        target_id=target.id,
    )
    export_kit(old, bundle, Budget.from_spec(cycle.spec.adaptation), tmp_path / "kit")
    families = sorted(target.condition.task_family.families)
    found = attack(_kit_files(tmp_path / "kit"), families)
    assert found == SECRET_SEED
    size = cycle.spec.evaluation.tasks_per_split
    regenerated = {t.id: t for f in families for t in family(f).tasks("sealed", size, found)}
    assert regenerated.items() <= {t.id: t for t in sealed_tasks(cycle)}.items()


def test_nothing_a_submitter_sees_confirms_a_guess_of_the_seed(
    served: tuple[Served, list[Any]], tmp_path: Path
) -> None:
    s, seen = served
    cycle = s.cycle
    seen = list(seen)
    with s.client("alice") as alice:
        pairs = alice.get("/api/v1/adaptation").json()
        seen.append(pairs)
        submission = pairs["pairs"][0]["submission"]
        for i, pair in enumerate(pairs["pairs"]):
            kit = alice.get(f"/api/v1/adaptation/{submission}/{pair['target']}/kit")
            assert kit.status_code == 200
            extract_kit(kit.content, tmp_path / f"kit{i}")
            seen += _kit_files(tmp_path / f"kit{i}")
        # a hand adaptation holding the sealed tasks' answers (as if regenerated): the service
        # records it and tells nothing of the leak gate's verdict, which names sealed tasks
        target = pairs["pairs"][0]["target"]
        kit_dir = tmp_path / "kit0" / "bundle"
        (kit_dir / "answers.md").write_text(answers_of(sealed_tasks(cycle)))
        manifest = json.loads((kit_dir / "vwt-bundle.json").read_text())
        manifest["artifacts"].append(
            {"kind": "prompt_recipe", "name": "answers", "path": "answers.md", "description": "-"}
        )
        (kit_dir / "vwt-bundle.json").write_text(json.dumps(manifest))
        body = load_bundle_dir(kit_dir).canonical()
        answer = alice.post(
            f"/api/v1/adaptation/{submission}/{target}", content=body, params={"minutes": "5"}
        )
        assert answer.status_code == 201, answer.text
        seen.append(answer.json())
        assert answer.json()["adaptation"]["leak"] == {}
    recorded = cycle.adaptations()
    verdict = next(e.payload["leak"] for (_, t), e in recorded.items() if t == target)
    assert verdict["flagged"] and verdict["matches"]  # the operator's ledger has it
    ints, texts = visible(seen)
    assert SECRET_SEED not in ints
    assert not {m for text in texts for m in _SEALED_ID.findall(text)}
    tasks = visible_tasks(seen)
    assert len(tasks) >= 2 and {t.split for t in tasks} == {ADAPT_SPLIT}
    families = sorted({f for _, c in cycle.evaluation_conditions() for f in c.task_family.families})
    assert attack(seen, families) is None


def test_the_kit_does_not_depend_on_the_cycle_seed(tmp_path: Path) -> None:
    """What a kit serves is drawn from the kit secret (256 random bits, 0600): another seed
    with the same kit secret serves the same sample, the same seed under another kit secret
    another one."""
    samples = {}
    for name, seed, secret_from in [("a", 1, None), ("b", 2, "a"), ("c", 1, None)]:
        spec = _spec(seed)
        cycle = Cycle.init(tmp_path / name, spec)
        if secret_from is not None:
            shutil.copy(tmp_path / secret_from / "operator" / "kit.secret", cycle.paths.kit_secret)
        cycle.generate(single_axis_targets(spec))
        target = min(cycle.targets(), key=lambda t: t.condition.id)  # the same in each
        samples[name] = [t.model_dump() for t in make_kit(cycle, target).sample()]
    assert samples["a"] == samples["b"] != samples["c"]
    secret = (tmp_path / "a" / "operator" / "kit.secret").stat()
    assert secret.st_mode & 0o777 == 0o600
    assert len(bytes.fromhex((tmp_path / "a" / "operator" / "kit.secret").read_text())) == 32

"""Harnesses as plugins: vwt's loops and frameworks are ``vwt.harnesses`` entry points like a
third party's, found through ``benchmark.Plugins`` with the families' resolution and error
rules; the harness the docs write as an example runs real trials."""

from __future__ import annotations

import asyncio
import json
import os
import re
import subprocess
import sys
from pathlib import Path

import pytest

from benchmark import BenchmarkError, Plugins, check_cycle_spec, full_cycle_spec_path
from benchmark.harness import (
    FRAMEWORKS_ENV,
    HARNESS_GROUP,
    HARNESS_V1,
    HARNESSES,
    AgentRun,
    FrameworkHarness,
    Harness,
    LoopHarness,
    harness,
    harness_origin,
    usable_harness,
)
from benchmark.harness._registry import _built
from conditions import CycleSpec
from runner import TrialRecord
from runner._worker import run_batch_async
from tests._frameworks import FRAMEWORK_HARNESSES
from tests.benchmark.harness.test_framework_process import _batches

ROOT = Path(__file__).resolve().parents[3]
LOOPS = ("harness-v1", "harness-v2", "harness-v3")


def _install(site: Path, dist: str, entry_points: dict[str, str], modules: dict[str, str]) -> None:
    """Install distribution ``dist`` 1.0 into ``site`` with ``vwt.harnesses`` entry points."""
    site.mkdir(exist_ok=True)
    for name, source in modules.items():
        (site / f"{name}.py").write_text(source)
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    lines = "".join(f"{name} = {target}\n" for name, target in entry_points.items())
    (info / "entry_points.txt").write_text(f"[{HARNESS_GROUP}]\n{lines}")


def _example() -> type[Harness]:
    """The example harness of docs/harnesses.md, as written there."""
    text = (ROOT / "docs" / "harnesses.md").read_text()
    (source,) = [b for b in re.findall(r"```python\n(.*?)```", text, re.S) if "class Plain" in b]
    namespace: dict[str, object] = {}
    exec(compile(source, "docs/harnesses.md", "exec"), namespace)
    made = namespace["Plain"]
    assert isinstance(made, type) and issubclass(made, Harness)
    return made


def test_vwt_declares_its_loops_and_frameworks_as_entry_points() -> None:
    assert list(HARNESSES) == sorted([*LOOPS, *FRAMEWORK_HARNESSES])
    assert harness("harness-v1") is HARNESS_V1 and isinstance(HARNESS_V1, LoopHarness)
    origin = harness_origin("openai-agents@0.8.4")
    assert origin.entry_point == "benchmark.harness:OPENAI_AGENTS_0_8_4"
    assert origin.distribution is not None and origin.distribution.startswith("vwt ")
    info = harness("pydantic-ai@1.0.18").info()
    assert (info.kind, info.framework, info.version) == ("framework", "pydantic-ai", "1.0.18")
    assert [harness(h).info().kind for h in LOOPS] == ["loop"] * 3


def test_an_unknown_harness_is_refused_naming_the_installed_ones() -> None:
    with pytest.raises(BenchmarkError, match="unknown harness 'harness-v9'") as err:
        harness("harness-v9")
    assert err.value.hint is not None
    for installed in [*LOOPS, *FRAMEWORK_HARNESSES]:
        assert installed in err.value.hint
    assert "vwt.harnesses" in err.value.hint


def test_a_framework_not_installed_cannot_run_and_a_spec_naming_it_is_refused(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv(FRAMEWORKS_ENV, str(tmp_path))
    found = harness("openai-agents@0.2.11")
    assert isinstance(found, FrameworkHarness)
    assert (
        found.unavailable() == f"its environment {tmp_path}/openai-agents@0.2.11 is not installed"
    )
    with pytest.raises(BenchmarkError, match="cannot run here") as err:
        usable_harness("openai-agents@0.2.11")
    assert err.value.hint is not None and "scripts/frameworks-setup.sh" in err.value.hint
    with pytest.raises(BenchmarkError, match=r"harness 'openai-agents@0\.2\.11' cannot run"):
        check_cycle_spec(CycleSpec.load(full_cycle_spec_path()))
    # an environment holding another release is not this harness's either
    (tmp_path / "openai-agents@0.2.11" / "bin").mkdir(parents=True)
    (tmp_path / "openai-agents@0.2.11" / "bin" / "python").touch()
    site = tmp_path / "openai-agents@0.2.11" / "lib" / "python3.11" / "site-packages"
    (site / "openai_agents-0.3.0.dist-info").mkdir(parents=True)
    assert (
        found.unavailable() == f"{tmp_path}/openai-agents@0.2.11 does not hold openai-agents 0.2.11"
    )
    (site / "openai_agents-0.2.11.dist-info").mkdir()
    assert found.unavailable() is None


@pytest.mark.parametrize(
    ("module", "source", "why"),
    [
        ("hb_import", "raise ImportError('no acme_agents')", "ImportError: no acme_agents"),
        (
            "hb_kind",
            "Mine = 'a name'",
            "TypeError: it gives a str, not a benchmark.harness.Harness",
        ),
        (
            "hb_id",
            "from benchmark.harness import HARNESS_V2 as Mine",
            "ValueError: it makes the harness 'harness-v2'; name the entry point after its id",
        ),
    ],
)
def test_a_harness_that_fails_to_load_names_its_entry_point(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch, module: str, source: str, why: str
) -> None:
    site = tmp_path / "site"
    _install(site, "broken-harness", {"acme@1": f"{module}:Mine"}, {module: source})
    monkeypatch.syspath_prepend(str(site))
    plugins = Plugins(HARNESS_GROUP, "harness", _built)
    with pytest.raises(BenchmarkError) as err:
        plugins["acme@1"]
    assert str(err.value) == (
        f"the harness of entry point 'acme@1' in group 'vwt.harnesses' (broken-harness 1.0 "
        f"({module}:Mine)) failed to load: {why}"
    )
    assert err.value.hint == "fix or uninstall broken-harness (the distribution declaring 'acme@1')"
    assert plugins["harness-v3"].id == "harness-v3"  # the others still load


def test_an_installed_harness_is_listed_with_where_it_comes_from(tmp_path: Path) -> None:
    site = tmp_path / "site"
    plain = (ROOT / "docs" / "harnesses.md").read_text()
    (source,) = [b for b in re.findall(r"```python\n(.*?)```", plain, re.S) if "class Plain" in b]
    _install(site, "plain-harness", {"plain": "plain_harness:Plain"}, {"plain_harness": source})
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)]), "COLUMNS": "200"}
    listed = subprocess.run(
        [sys.executable, "-m", "vwt", "harnesses", "list", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert listed.returncode == 0, listed.stderr
    found = {h["id"]: h for h in json.loads(listed.stdout)["harnesses"]}
    assert found["plain"]["origin"] == {
        "entry_point": "plain_harness:Plain",
        "distribution": "plain-harness 1.0",
    }
    assert (found["plain"]["kind"], found["plain"]["ready"]) == ("loop", True)
    assert found["harness-v1"]["origin"]["distribution"].startswith("vwt ")


def test_the_documented_example_harness_runs_verified_trials(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    plain = _example()()
    monkeypatch.setitem(HARNESSES, plain.id, plain)
    assert str(harness_origin("plain")) == "registered in code"
    (batch,) = _batches("plain")
    rows = asyncio.run(run_batch_async(batch, "local", concurrency=2))
    records = [TrialRecord.model_validate_json(r.record) for r in rows]
    assert all(r.harness == "plain" and r.invalid is None for r in records)
    assert all(r.turns >= 2 and r.tool_calls >= 1 for r in records)
    assert all(r.verifier_version for r in records) and {r.outcome for r in records} <= {
        "success",
        "failure",
    }


def test_a_harness_that_raises_makes_its_trials_invalid_naming_the_error(
    monkeypatch: pytest.MonkeyPatch,
) -> None:
    class Raising(_example()):  # type: ignore[misc]
        id = "raising"

        async def run(self, trial: object) -> AgentRun:
            raise LookupError("no such thing")

    monkeypatch.setitem(HARNESSES, "raising", Raising())
    (batch,) = _batches("raising", tasks=1)
    (row,) = asyncio.run(run_batch_async(batch, "local"))
    record = TrialRecord.model_validate_json(row.record)
    assert (record.outcome, record.invalid) == ("invalid", "LookupError: no such thing")

"""Task families as plugins: found through the ``vwt.families`` entry points of installed
distributions (vwt's own included), registered in code first, loaded on first use; the sim
gets the packs of the families in play.

Distributions are installed for real: a ``.dist-info`` folder with ``METADATA`` and
``entry_points.txt`` beside the module, on ``sys.path``, found by ``importlib.metadata``.
"""

from __future__ import annotations

import json
import os
import subprocess
import sys
from pathlib import Path

import pytest

import benchmark.sim._pack
from benchmark import (
    ENTRY_POINTS_ENV,
    FAMILIES,
    FAMILY_GROUP,
    BenchmarkError,
    Plugins,
    entry_points_to_hand_on,
    family,
    family_origin,
)
from benchmark._registry import _built
from benchmark.sim import packs
from benchmark.support_ops import SupportOps
from benchmark.support_ops._sim_pack import PACK as SUPPORT_PACK

ROOT = Path(__file__).resolve().parents[2]

MIRROR = '''
from dataclasses import replace

from benchmark.support_ops import SupportOps
from benchmark.support_ops._sim_pack import PACK


class Mirror(SupportOps):
    """Support operations under another id: a third party's family."""

    id = "{id}"

    def sim_pack(self):
        return replace(PACK, family=self.id)
'''


def install(site: Path, dist: str, entry_points: dict[str, str], modules: dict[str, str]) -> None:
    """Install distribution ``dist`` 1.0 into ``site``: its modules (name → source) and its
    ``vwt.families`` entry points (name → object)."""
    site.mkdir(exist_ok=True)
    for name, source in modules.items():
        (site / f"{name}.py").write_text(source)
    info = site / f"{dist.replace('-', '_')}-1.0.dist-info"
    info.mkdir()
    (info / "METADATA").write_text(f"Metadata-Version: 2.1\nName: {dist}\nVersion: 1.0\n")
    lines = "".join(f"{name} = {target}\n" for name, target in entry_points.items())
    (info / "entry_points.txt").write_text(f"[{FAMILY_GROUP}]\n{lines}")


@pytest.fixture
def site(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A directory on ``sys.path`` to install distributions into, with a module prefix of
    its own (modules stay imported for the process)."""
    where = tmp_path / "site"
    where.mkdir()
    monkeypatch.syspath_prepend(str(where))
    return where


def fresh() -> Plugins[object]:
    """A new view of the families' entry points (FAMILIES keeps what it found first)."""
    return Plugins(FAMILY_GROUP, "task family", _built)  # type: ignore[arg-type]


def test_vwt_declares_its_own_families_as_entry_points() -> None:
    assert list(FAMILIES) == ["code_maint", "reconciliation", "research_evidence", "support_ops"]
    origin = family_origin("support_ops")
    assert origin.entry_point == "benchmark.support_ops:SupportOps"
    assert origin.distribution is not None and origin.distribution.startswith("vwt ")
    assert isinstance(family("support_ops"), SupportOps)
    with pytest.raises(BenchmarkError, match="unknown task family 'poetry'") as err:
        family("poetry")
    assert err.value.hint and "vwt.families" in err.value.hint and "support_ops" in err.value.hint


def test_an_installed_family_is_listed_with_where_it_comes_from(tmp_path: Path) -> None:
    site = tmp_path / "site"
    install(site, "acme-families", {"mirror_ops": "acme_mirror:Mirror"}, {})
    (site / "acme_mirror.py").write_text(MIRROR.format(id="mirror_ops"))
    env = {**os.environ, "PYTHONPATH": os.pathsep.join([str(site), str(ROOT)])}
    env |= {"LITELLM_LOCAL_MODEL_COST_MAP": "True", "COLUMNS": "250"}
    listed = subprocess.run(
        [sys.executable, "-m", "vwt", "families", "list", "--json"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    assert listed.returncode == 0, listed.stderr
    families = {f["id"]: f for f in json.loads(listed.stdout)["families"]}
    assert families["mirror_ops"]["origin"] == {
        "entry_point": "acme_mirror:Mirror",
        "distribution": "acme-families 1.0",
        "folder": None,
    }
    assert families["mirror_ops"]["env"] == "support-ops"
    assert families["support_ops"]["origin"]["distribution"].startswith("vwt ")
    shown = subprocess.run(
        [sys.executable, "-m", "vwt", "families", "list"],
        capture_output=True,
        text=True,
        env=env,
        timeout=300,
    )
    row = next(line for line in shown.stdout.splitlines() if "mirror_ops" in line)
    assert "acme-families 1.0" in row


def test_entry_points_load_on_first_use_and_once(site: Path) -> None:
    install(site, "lazy-fam", {"lazy_ops": "lazy_mirror:Mirror"}, {})
    (site / "lazy_mirror.py").write_text(MIRROR.format(id="lazy_ops"))
    plugins = fresh()
    assert "lazy_ops" in plugins and "lazy_ops" in list(plugins)
    assert "lazy_mirror" not in sys.modules  # named, not yet imported
    first = plugins["lazy_ops"]
    assert type(first).__module__ == "lazy_mirror" and plugins["lazy_ops"] is first
    assert str(plugins.origin("lazy_ops")) == "lazy-fam 1.0 (lazy_mirror:Mirror)"


def test_two_entry_points_with_one_name_are_refused(site: Path) -> None:
    twin = MIRROR.format(id="twin_ops")
    install(site, "one-dist", {"twin_ops": "twin_a:Mirror"}, {"twin_a": twin})
    install(site, "other-dist", {"twin_ops": "twin_b:Mirror"}, {"twin_b": twin})
    plugins = fresh()
    with pytest.raises(BenchmarkError) as err:
        plugins["twin_ops"]
    assert "two entry points of group 'vwt.families' are named 'twin_ops'" in str(err.value)
    assert "one-dist 1.0 (twin_a:Mirror)" in str(err.value)
    assert "other-dist 1.0 (twin_b:Mirror)" in str(err.value)
    assert err.value.hint and "pip uninstall" in err.value.hint
    assert isinstance(plugins["support_ops"], SupportOps)  # the others still load


@pytest.mark.parametrize(
    ("module", "source", "why"),
    [
        ("broken_import", "raise ImportError('no acme_core')", "ImportError: no acme_core"),
        ("broken_kind", "Mirror = 'a name'", "TypeError: it gives a str, not a benchmark.Family"),
        ("broken_id", MIRROR.format(id="other_id"), "ValueError: it makes the family 'other_id'"),
    ],
)
def test_a_family_that_fails_to_load_names_its_entry_point(
    site: Path, module: str, source: str, why: str
) -> None:
    install(site, "broken-fam", {"broken_ops": f"{module}:Mirror"}, {module: source})
    plugins = fresh()
    with pytest.raises(BenchmarkError) as err:
        plugins["broken_ops"]
    message = str(err.value)
    assert message.startswith("the task family of entry point 'broken_ops' in group 'vwt.families'")
    assert f"(broken-fam 1.0 ({module}:Mirror)) failed to load: {why}" in message
    assert err.value.hint == "fix or uninstall broken-fam (the distribution declaring 'broken_ops')"
    assert plugins["reconciliation"].id == "reconciliation"  # type: ignore[attr-defined]


def test_a_family_registered_in_code_wins_over_its_entry_point() -> None:
    plugins = fresh()
    builtin = plugins["support_ops"]
    mine = SupportOps()
    plugins["support_ops"] = mine
    assert plugins["support_ops"] is mine and str(plugins.origin("support_ops")) == (
        "registered in code"
    )
    assert list(plugins).count("support_ops") == 1 and len(plugins) == 4
    plugins["support_ops"] = builtin  # putting back what the entry point gave
    assert plugins.origin("support_ops").distribution is not None
    with pytest.raises(KeyError):
        del plugins["support_ops"]  # an installed family stays


def test_the_sim_gets_the_packs_of_the_families_in_play(monkeypatch: pytest.MonkeyPatch) -> None:
    namespace: dict[str, object] = {}
    exec(MIRROR.format(id="mirrored_ops"), namespace)
    extra = namespace["Mirror"]()  # type: ignore[operator]
    before = [p.family for p in packs()]
    assert before[: len(FAMILIES)] == list(FAMILIES)
    monkeypatch.setattr(benchmark.sim._pack, "_PACKS", {})
    monkeypatch.setitem(FAMILIES, "mirrored_ops", extra)
    after = [p.family for p in packs()]  # the families in play, in their order
    assert after[: len(FAMILIES)] == list(FAMILIES) and sorted(after) == sorted(
        [*before, "mirrored_ops"]
    )
    assert next(p for p in packs() if p.family == "mirrored_ops").kinds == SUPPORT_PACK.kinds
    monkeypatch.undo()
    assert "mirrored_ops" not in [p.family for p in packs()]


def test_entry_points_handed_on_serve_a_process_without_the_metadata(
    site: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    handed = json.loads(entry_points_to_hand_on())[FAMILY_GROUP]
    assert handed["support_ops"] == "benchmark.support_ops:SupportOps" and len(handed) == 4
    (site / "handed_mirror.py").write_text(MIRROR.format(id="handed_ops"))  # code, no dist-info
    assert "handed_ops" not in fresh()
    handed |= {"handed_ops": "handed_mirror:Mirror", "support_ops": "handed_mirror:Mirror"}
    monkeypatch.setenv(ENTRY_POINTS_ENV, json.dumps({FAMILY_GROUP: handed}))
    plugins = fresh()
    assert type(plugins["handed_ops"]).__module__ == "handed_mirror"
    assert str(plugins.origin("handed_ops")) == "an unknown distribution (handed_mirror:Mirror)"
    assert type(plugins["support_ops"]) is SupportOps  # the installed entry point wins
    monkeypatch.setenv(ENTRY_POINTS_ENV, "[1, 2]")
    with pytest.raises(BenchmarkError, match="VWT_ENTRY_POINTS is not a JSON object"):
        list(fresh())

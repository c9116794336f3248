"""`vwt dev-kit pull`: the dev kit from a real service, a dev run on it, and what is refused
(a non-empty --out, a kit that names more than the source, a dead URL) without writing."""

from __future__ import annotations

import io
import json
from collections.abc import Iterator
from pathlib import Path

import pytest
from typer.testing import CliRunner

from conditions import Cycle, CycleSpec
from service import build_dev_kit, dev_seed, running_server
from submissions import reference_dir
from tests.service.test_client import Stub, stub_server
from tests.submissions.conftest import open_cycle_at, spec_with
from vwt.cli import app

runner = CliRunner()


def vwt(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def served(tmp_path_factory: pytest.TempPathFactory) -> Iterator[tuple[Cycle, str]]:
    """An open cycle served on loopback."""
    cycle = open_cycle_at(tmp_path_factory.mktemp("devkit") / "h", spec_with())
    with running_server(cycle.home, access_log=io.StringIO()) as url:
        yield cycle, url


@pytest.mark.ray
def test_pull_then_a_dev_run_on_the_pulled_spec(
    ray_runtime: None, served: tuple[Cycle, str], tmp_path: Path
) -> None:
    cycle, url = served
    out = tmp_path / "kit"
    code, text = vwt("dev-kit", "pull", url, "--out", str(out))
    assert code == 0, text
    assert sorted(p.name for p in out.iterdir()) == [
        "README.md",
        "spec.json",
        "tasks.json",
        "tools.json",
    ]
    assert f"vwt run dev --spec {out / 'spec.json'} --submission BUNDLE" in text
    spec = CycleSpec.load(out / "spec.json")
    assert spec.source == cycle.source and spec.seed == dev_seed(cycle) != cycle.spec.seed
    kit = build_dev_kit(cycle)
    assert json.loads((out / "tasks.json").read_text()) == kit["tasks"]
    assert json.loads((out / "tools.json").read_text()) == kit["tools"]
    readme = (out / "README.md").read_text()
    assert "spec.json" in readme and f"--to {url}" in readme
    dev = tmp_path / "dev"
    code, text = vwt(
        "run", "dev", "--spec", str(out / "spec.json"), "--home", str(dev), "--sandbox",
        "local", "--submission", str(reference_dir("typed-skill")), "--tasks", "1", "--k", "1",
    )  # fmt: skip
    assert code == 0, text
    assert "support_ops/dev" in text and "2 trials run now" in text
    assert (dev / f"dev-{cycle.id}-{spec.seed}.sqlite").is_file()


def test_a_non_empty_out_is_refused_and_left_alone(
    served: tuple[Cycle, str], tmp_path: Path
) -> None:
    _, url = served
    out = tmp_path / "kit"
    out.mkdir()
    (out / "mine.txt").write_text("keep")
    code, text = vwt("dev-kit", "pull", url, "--out", str(out))
    assert code == 2 and "exists and is not an empty directory" in text
    assert [p.name for p in out.iterdir()] == ["mine.txt"]
    (tmp_path / "file").write_text("x")
    code, text = vwt("dev-kit", "pull", url, "--out", str(tmp_path / "file"))
    assert code == 2 and (tmp_path / "file").read_text() == "x"


def test_a_kit_naming_more_than_the_source_writes_nothing(
    served: tuple[Cycle, str], tmp_path: Path
) -> None:
    cycle, _ = served
    kit = build_dev_kit(cycle)
    kit["tasks"][0]["split"] = "sealed"
    out = tmp_path / "kit"
    with stub_server(Stub(body=json.dumps(kit).encode())) as stub:
        code, text = vwt("dev-kit", "pull", stub.url, "--out", str(out))
    assert code == 2 and "the service's dev kit is not valid" in text, text
    assert "not of a development family's dev split" in text and not out.exists()


def test_a_bad_or_dead_url_is_one_error(tmp_path: Path) -> None:
    code, text = vwt("dev-kit", "pull", "127.0.0.1:8470", "--out", str(tmp_path / "kit"))
    assert code == 2 and "is not an http(s) URL" in text and "hint: pass the service's" in text
    code, text = vwt("dev-kit", "pull", "http://127.0.0.1:9", "--out", str(tmp_path / "kit"))
    assert code == 2 and "cannot reach http://127.0.0.1:9" in text and "vwt serve" in text
    assert not (tmp_path / "kit").exists()

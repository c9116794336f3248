"""make_sandbox and resolve_sandbox_kind: the kind asked for, Docker when usable, a warned
fallback to local for `auto`, a refusal for sealed runs, and clear errors otherwise."""

from __future__ import annotations

from pathlib import Path

import pytest

from runner import _sandbox
from runner._sandbox import SandboxKind, make_sandbox, resolve_sandbox_kind
from runner._sandbox_base import Mount
from runner._sandbox_docker import DockerSandbox
from runner._sandbox_engine import docker_status
from runner._sandbox_local import LocalSandbox
from runner.errors import RunnerError


@pytest.fixture
def no_docker(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """An engine address where no engine answers, in a process that has not warned yet."""
    monkeypatch.setenv("DOCKER_HOST", f"unix://{tmp_path}/no-engine.sock")
    monkeypatch.setattr(_sandbox, "_warned_fallback", False)


def test_local_is_local_whatever_the_engine() -> None:
    sb = make_sandbox("local")
    assert isinstance(sb, LocalSandbox) and sb.kind == "local"


@pytest.mark.usefixtures("no_docker")
def test_without_docker_auto_falls_back_and_docker_is_refused(tmp_path: Path) -> None:
    available, reason = docker_status()
    assert not available and f"engine at unix://{tmp_path}/no-engine.sock does not" in reason
    assert isinstance(make_sandbox(SandboxKind.auto, mounts=[Mount(tmp_path, "m")]), LocalSandbox)
    with pytest.raises(RunnerError, match="Docker sandbox was asked for") as err:
        make_sandbox("docker")
    assert "make sandbox" in (err.value.hint or "")


def test_an_unknown_kind_is_a_user_error() -> None:
    with pytest.raises(RunnerError, match="unknown sandbox kind 'vm'") as err:
        make_sandbox("vm")
    assert "auto, local, docker" in (err.value.hint or "")


@pytest.mark.docker
def test_auto_and_docker_pick_docker_where_it_is_usable() -> None:
    available, reason = docker_status()
    if not available:
        pytest.skip(f"{reason}; run `make sandbox`")
    for kind in ("auto", "docker"):
        sb = make_sandbox(kind)
        assert isinstance(sb, DockerSandbox) and sb.kind == "docker"


def test_a_relative_docker_workdir_is_refused_without_an_engine() -> None:
    with pytest.raises(RunnerError, match="not absolute"):
        DockerSandbox(workdir="sandbox")


@pytest.mark.usefixtures("no_docker")
def test_auto_falls_back_with_one_warning_line_per_process(
    capsys: pytest.CaptureFixture[str],
) -> None:
    assert resolve_sandbox_kind("auto") is SandboxKind.local
    assert isinstance(make_sandbox("auto"), LocalSandbox)
    assert resolve_sandbox_kind(SandboxKind.auto) is SandboxKind.local
    out, err = capsys.readouterr()
    assert out == ""
    lines = err.splitlines()
    assert len(lines) == 1, lines
    assert lines[0].startswith("warning: no Docker sandbox (the Docker engine at unix://")
    assert "unisolated" in lines[0]


@pytest.mark.usefixtures("no_docker")
def test_local_by_name_does_not_warn(capsys: pytest.CaptureFixture[str]) -> None:
    assert resolve_sandbox_kind("local") is SandboxKind.local
    assert resolve_sandbox_kind("local", untrusted="sealed runs") is SandboxKind.local
    assert capsys.readouterr().err == ""


@pytest.mark.usefixtures("no_docker")
def test_sealed_runs_refuse_the_local_fallback(capsys: pytest.CaptureFixture[str]) -> None:
    with pytest.raises(RunnerError) as err:
        resolve_sandbox_kind("auto", untrusted="sealed runs")
    assert str(err.value).startswith("sealed runs need the Docker sandbox: the Docker engine at")
    assert err.value.hint == (
        "start Docker (`make sandbox`), or pass --sandbox local to run unisolated"
    )
    with pytest.raises(RunnerError, match="Docker sandbox was asked for"):
        resolve_sandbox_kind("docker", untrusted="sealed runs")
    assert capsys.readouterr().err == ""


@pytest.mark.docker
def test_sealed_auto_is_docker_where_it_is_usable(capsys: pytest.CaptureFixture[str]) -> None:
    available, reason = docker_status()
    if not available:
        pytest.skip(f"{reason}; run `make sandbox`")
    assert resolve_sandbox_kind("auto", untrusted="sealed runs") is SandboxKind.docker
    assert capsys.readouterr().err == ""

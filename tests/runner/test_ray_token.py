"""Ray's authentication token file is readable by its owner only, even in a home others can
read: made 0600 (in a 0700 directory) before Ray would write it with the umask's mode, and
tightened when an earlier Ray left it open."""

from __future__ import annotations

import os
import stat
import subprocess
import sys
from pathlib import Path

import pytest

from runner._ray import private_ray_token

REPO = Path(__file__).resolve().parents[2]


def _mode(path: Path) -> int:
    return stat.S_IMODE(path.stat().st_mode)


@pytest.fixture
def home(tmp_path: Path, monkeypatch: pytest.MonkeyPatch) -> Path:
    """A home readable by everyone (0755), with no Ray token in the environment."""
    home = tmp_path / "home"
    home.mkdir()
    home.chmod(0o755)
    monkeypatch.setenv("HOME", str(home))
    for name in ("RAY_AUTH_TOKEN", "RAY_AUTH_TOKEN_PATH", "RAY_AUTH_MODE"):
        monkeypatch.delenv(name, raising=False)
    return home


def test_a_new_token_is_private(home: Path) -> None:
    old = os.umask(0o022)
    try:
        path = private_ray_token(create=True)
    finally:
        os.umask(old)
    assert path == home / ".ray" / "auth_token"
    assert _mode(path) == 0o600 and _mode(path.parent) == 0o700
    token = path.read_text()
    assert len(token) == 64 and int(token, 16) >= 0
    assert private_ray_token(create=True) == path and path.read_text() == token  # kept
    assert [p.name for p in path.parent.iterdir()] == ["auth_token"]  # no temporary left


def test_a_token_left_readable_is_tightened_and_kept(home: Path) -> None:
    path = home / ".ray" / "auth_token"
    path.parent.mkdir()
    path.write_text("a" * 64)
    path.chmod(0o644)
    assert private_ray_token(create=False) == path
    assert _mode(path) == 0o600 and path.read_text() == "a" * 64


def test_a_named_token_file_is_the_one_kept_private(
    home: Path, tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    named = tmp_path / "token"
    named.write_text("b" * 64)
    named.chmod(0o640)
    monkeypatch.setenv("RAY_AUTH_TOKEN_PATH", str(named))
    assert private_ray_token(create=True) == named and _mode(named) == 0o600
    assert not (home / ".ray").exists()


def test_no_file_when_the_token_is_in_the_environment(
    home: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setenv("RAY_AUTH_TOKEN", "c" * 64)
    assert private_ray_token(create=True) is None
    assert not (home / ".ray").exists()


def test_without_create_no_token_is_made(home: Path) -> None:
    assert private_ray_token(create=False) == home / ".ray" / "auth_token"
    assert not (home / ".ray").exists()


@pytest.mark.slow
@pytest.mark.ray
def test_a_started_runtime_leaves_its_token_private(home: Path) -> None:
    script = (
        "import ray; from runner import start_ray; start_ray(num_cpus=1); "
        "print(ray.get(ray.put('up'))); ray.shutdown()"
    )
    env = {**os.environ, "PYTHONPATH": str(REPO), "RAY_USAGE_STATS_ENABLED": "0"}
    env.pop("VWT_RAY_ADDRESS", None)
    old = os.umask(0o022)  # Ray's own file would be 0644
    try:
        done = subprocess.run(
            [sys.executable, "-c", script],
            env=env,
            capture_output=True,
            text=True,
            timeout=600,
        )
    finally:
        os.umask(old)
    assert done.returncode == 0 and done.stdout.strip().endswith("up"), done.stderr[-3000:]
    token = home / ".ray" / "auth_token"
    assert _mode(token) == 0o600 and _mode(token.parent) == 0o700

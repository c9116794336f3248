"""The client's token: from $VWT_TOKEN, else a file only its owner can read."""

from __future__ import annotations

from pathlib import Path

import pytest

from service import TOKEN_ENV, TOKEN_FILE_ENV, ServiceError, load_token, token_path

TOKEN = "vwt_" + "A" * 42 + "-"


@pytest.fixture(autouse=True)
def no_token(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    """No token in the environment; HOME is empty."""
    monkeypatch.delenv(TOKEN_ENV, raising=False)
    monkeypatch.delenv(TOKEN_FILE_ENV, raising=False)
    monkeypatch.setenv("HOME", str(tmp_path / "home"))


def _file(path: Path, text: str, mode: int) -> Path:
    path.parent.mkdir(parents=True, exist_ok=True)
    path.write_text(text)
    path.chmod(mode)
    return path


def test_the_environment_wins_over_the_file(monkeypatch: pytest.MonkeyPatch) -> None:
    _file(token_path(), "vwt_" + "B" * 43, 0o600)
    monkeypatch.setenv(TOKEN_ENV, f"  {TOKEN}\n")
    assert load_token() == TOKEN


def test_the_default_file_then_the_named_one(
    monkeypatch: pytest.MonkeyPatch, tmp_path: Path
) -> None:
    default = tmp_path / "home" / ".config" / "vwt" / "token"
    assert token_path() == default
    _file(default, TOKEN + "\n", 0o600)
    assert load_token() == TOKEN
    other = _file(tmp_path / "elsewhere", "vwt_" + "C" * 43, 0o400)
    monkeypatch.setenv(TOKEN_FILE_ENV, str(other))
    assert load_token() == "vwt_" + "C" * 43


@pytest.mark.parametrize("mode", [0o644, 0o640, 0o604, 0o620, 0o602])
def test_a_file_others_can_read_or_write_is_refused_with_the_chmod(mode: int) -> None:
    path = _file(token_path(), TOKEN, mode)
    with pytest.raises(ServiceError, match=f"mode {mode:04o}") as e:
        load_token()
    assert e.value.hint == f"make it private: chmod 600 {path}"
    assert (e.value.status, e.value.code) == (401, "unauthorized")


def test_no_token_says_whom_to_ask() -> None:
    with pytest.raises(ServiceError, match="no token") as e:
        load_token()
    assert e.value.hint is not None and "ask the cycle's operator" in e.value.hint
    assert str(token_path()) in e.value.hint


@pytest.mark.parametrize("text", ["", "vwt_short", "abc_" + "A" * 43, TOKEN + "x", "x" * 2000])
def test_something_else_than_a_token_is_refused(text: str) -> None:
    _file(token_path(), text, 0o600)
    with pytest.raises(ServiceError, match=r"not a vwt token|too large"):
        load_token()


def test_a_directory_is_not_a_token_file(monkeypatch: pytest.MonkeyPatch, tmp_path: Path) -> None:
    (tmp_path / "dir").mkdir(mode=0o700)
    monkeypatch.setenv(TOKEN_FILE_ENV, str(tmp_path / "dir"))
    with pytest.raises(ServiceError, match="not a regular file"):
        load_token()

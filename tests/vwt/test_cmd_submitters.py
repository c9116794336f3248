"""`vwt submitters`: add (token shown once), revoke and list, through the CLI."""

from __future__ import annotations

import json
import os
from pathlib import Path

import pytest
from typer.testing import CliRunner, Result

from conditions import Cycle
from service import ACCOUNT_EVENT, Accounts
from tests.submissions.conftest import spec_with
from vwt.cli import app

runner = CliRunner()


def vwt(*args: str) -> Result:
    return runner.invoke(app, list(args), env={"COLUMNS": "250"})


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A fresh cycle home."""
    return Cycle.init(tmp_path / "home", spec_with()).home


def assert_user_error(result: Result, *words: str) -> None:
    """Exit 2 with one `error:` line naming ``words`` and one `hint:` line, nothing on stdout."""
    assert result.exit_code == 2, result.output
    assert result.stdout == ""
    lines = result.stderr.strip().splitlines()
    assert len(lines) == 2 and lines[0].startswith("error: ") and lines[1].startswith("hint: ")
    for word in words:
        assert word in lines[0]


def test_add_prints_the_token_alone_on_stdout_once(home: Path) -> None:
    result = vwt("submitters", "add", "alice", "--home", str(home))
    assert result.exit_code == 0, result.output
    token = result.stdout.strip()
    assert result.stdout == token + "\n" and token.startswith("vwt_")
    note = " ".join(result.stderr.split())
    for words in ("cannot be shown again", "VWT_TOKEN", "~/.config/vwt/token", "chmod 600"):
        assert words in note
    assert "vwt submissions submit BUNDLE --to URL" in note
    account = Accounts(home).authenticate(token)
    assert account is not None and (account.name, account.role) == ("alice", "submitter")
    for args in (("list",), ("list", "--json")):
        listed = vwt("submitters", *args, "--home", str(home))
        assert listed.exit_code == 0 and token not in listed.output
        assert token.removeprefix("vwt_")[:12] not in listed.output


def test_add_an_operator_and_list(home: Path) -> None:
    assert vwt("submitters", "add", "alice", "--home", str(home)).exit_code == 0
    result = vwt("submitters", "add", "ops", "--operator", "--home", str(home))
    assert result.exit_code == 0, result.output
    assert "added operator account ops" in " ".join(result.stderr.split())
    assert "vwt submissions submit" not in result.stderr
    account = Accounts(home).authenticate(result.stdout.strip())
    assert account is not None and account.role == "operator"
    listed = vwt("submitters", "list", "--json", "--home", str(home))
    data = json.loads(listed.stdout)
    assert data["cycle"] == Cycle.open(home).id
    assert [(a["name"], a["role"], a["revoked_at"]) for a in data["accounts"]] == [
        ("alice", "submitter", None),
        ("ops", "operator", None),
    ]
    assert set(data["accounts"][0]) == {"name", "role", "created_at", "revoked_at"}
    text = vwt("submitters", "list", "--home", str(home)).stdout
    assert "alice" in text and "operator" in text and "2 accounts (2 live)" in text


def test_revoke(home: Path) -> None:
    token = vwt("submitters", "add", "alice", "--home", str(home)).stdout.strip()
    result = vwt("submitters", "revoke", "alice", "--home", str(home))
    assert result.exit_code == 0, result.output
    assert "account alice is revoked" in result.stdout
    assert Accounts(home).authenticate(token) is None
    text = vwt("submitters", "list", "--home", str(home)).stdout
    assert "1 account (0 live)" in text
    listed = json.loads(vwt("submitters", "list", "--json", "--home", str(home)).stdout)
    assert listed["accounts"][0]["revoked_at"] is not None
    actions = [e.payload["action"] for e in Cycle.open(home).ledger.entries(ACCOUNT_EVENT)]
    assert actions == ["add", "revoke"]


@pytest.mark.parametrize(
    ("args", "words"),
    [
        (("add", "alice"), ("account alice already exists",)),
        (("add", "Bad Name"), ("not a valid account name",)),
        (("add", "x" * 65), ("not a valid account name",)),
        (("revoke", "bob"), ("no account 'bob'",)),
    ],
)
def test_refused_input_writes_nothing(home: Path, args: tuple[str, ...], words: str) -> None:
    assert vwt("submitters", "add", "alice", "--home", str(home)).exit_code == 0
    before = Cycle.open(home).ledger.entries()
    accounts = Accounts(home).list()
    assert_user_error(vwt("submitters", *args, "--home", str(home)), *words)
    assert Cycle.open(home).ledger.entries() == before
    assert Accounts(home).list() == accounts


@pytest.mark.parametrize("command", [("add", "alice"), ("revoke", "alice"), ("list",)])
def test_a_missing_home_is_refused(tmp_path: Path, command: tuple[str, ...]) -> None:
    result = vwt("submitters", *command, "--home", str(tmp_path / "nowhere"))
    assert_user_error(result, "no release cycle in")
    assert not (tmp_path / "nowhere").exists()


def test_a_home_others_can_read_is_refused(home: Path) -> None:
    os.chmod(home, 0o755)
    assert_user_error(vwt("submitters", "add", "alice", "--home", str(home)), "readable by other")
    os.chmod(home, 0o700)
    assert Accounts(home).list() == []

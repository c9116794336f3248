"""Service accounts: tokens shown once and stored hashed, revocation, and name ownership."""

from __future__ import annotations

import multiprocessing
import re
import threading
from concurrent.futures import ProcessPoolExecutor
from pathlib import Path

import pytest

from conditions import ConditionsError, Cycle
from service import ACCOUNT_EVENT, Account, Accounts, ServiceError
from tests.conditions._interrupt import interrupt_ledger_commits
from tests.submissions.conftest import spec_with


@pytest.fixture
def cycle(tmp_path: Path) -> Cycle:
    """A fresh cycle home (state draft): accounts need nothing more."""
    return Cycle.init(tmp_path / "home", spec_with())


@pytest.fixture
def accounts(cycle: Cycle) -> Accounts:
    """The cycle's accounts, none yet."""
    return Accounts(cycle.home)


def assert_service_error(error: pytest.ExceptionInfo[ServiceError], status: int, code: str) -> None:
    """The error carries this HTTP status and code, and a hint."""
    assert (error.value.status, error.value.code) == (status, code)
    assert error.value.hint


def test_add_returns_a_token_once_and_authenticates_it(accounts: Accounts) -> None:
    token = accounts.add("alice")
    assert re.fullmatch(r"vwt_[A-Za-z0-9_-]{43}", token)
    op_token = accounts.add("ops", role="operator")
    assert op_token != token
    alice = accounts.authenticate(token)
    assert alice is not None and (alice.name, alice.role, alice.revoked_at) == (
        "alice",
        "submitter",
        None,
    )
    operator = accounts.authenticate(op_token)
    assert operator is not None and (operator.name, operator.role) == ("ops", "operator")
    assert [a.name for a in accounts.list()] == ["alice", "ops"]
    assert all(isinstance(a, Account) for a in accounts.list())


def test_tokens_are_stored_only_as_hashes(cycle: Cycle, accounts: Accounts) -> None:
    token = accounts.add("alice")
    stored = b"".join(p.read_bytes() for p in cycle.paths.db_files if p.exists())
    assert token.encode() not in stored
    assert token.removeprefix("vwt_").encode() not in stored
    assert b"alice" in stored  # the account itself is there: the grep reads the right bytes
    for entry in cycle.ledger.entries():
        assert token not in entry.model_dump_json()
    assert cycle.paths.db.stat().st_mode & 0o777 == 0o600


def test_accounts_survive_reopening(cycle: Cycle, accounts: Accounts) -> None:
    token = accounts.add("alice")
    again = Accounts(cycle.home)
    assert again.authenticate(token) == accounts.authenticate(token)
    assert again.list() == accounts.list()


@pytest.mark.parametrize(
    "token",
    [
        None,
        "",
        "vwt_",
        "Bearer vwt_" + "A" * 43,
        "vwt_" + "A" * 42,
        "vwt_" + "A" * 44,
        "vwt_" + "A" * 42 + "=",
        "xyz_" + "A" * 43,
        "vwt_" + "A" * 43,  # well-formed, unknown
        "vwt_" + "A" * 43 + "\n",
    ],
)
def test_missing_malformed_and_unknown_tokens_are_refused(
    accounts: Accounts, token: str | None
) -> None:
    accounts.add("alice")
    assert accounts.authenticate(token) is None


def test_a_token_differing_in_one_character_is_refused(accounts: Accounts) -> None:
    token = accounts.add("alice")
    last = "B" if token[-1] == "A" else "A"
    assert accounts.authenticate(token[:-1] + last) is None


def test_revoke_stops_the_token_and_is_logged(cycle: Cycle, accounts: Accounts) -> None:
    token = accounts.add("alice")
    other = accounts.add("bob")
    accounts.revoke("alice")
    assert accounts.authenticate(token) is None
    assert accounts.authenticate(other) is not None
    listed = {a.name: a for a in accounts.list()}
    assert listed["alice"].revoked_at is not None and listed["bob"].revoked_at is None
    accounts.revoke("alice")  # again: nothing more happens
    logged = [e.payload for e in cycle.ledger.entries(ACCOUNT_EVENT)]
    assert logged == [
        {"name": "alice", "role": "submitter", "action": "add"},
        {"name": "bob", "role": "submitter", "action": "add"},
        {"name": "alice", "role": "submitter", "action": "revoke"},
    ]
    cycle.ledger.verify()


def test_revoke_refuses_an_unknown_name(cycle: Cycle, accounts: Accounts) -> None:
    with pytest.raises(ServiceError, match="no account 'carol'") as e:
        accounts.revoke("carol")
    assert_service_error(e, 404, "not_found")
    assert cycle.ledger.entries(ACCOUNT_EVENT) == []


def test_add_refuses_a_taken_name_even_when_revoked(cycle: Cycle, accounts: Accounts) -> None:
    first = accounts.add("alice")
    with pytest.raises(ServiceError, match="account alice already exists") as e:
        accounts.add("alice", role="operator")
    assert_service_error(e, 409, "conflict")
    accounts.revoke("alice")
    with pytest.raises(ServiceError, match="already exists"):
        accounts.add("alice")
    assert [a.role for a in accounts.list()] == ["submitter"]
    assert accounts.authenticate(first) is None
    assert len(cycle.ledger.entries(ACCOUNT_EVENT)) == 2  # add, revoke


@pytest.mark.parametrize("name", ["", "Alice", "-x", "a b", "a/b", "x" * 65, "é"])
def test_add_refuses_a_malformed_name(cycle: Cycle, accounts: Accounts, name: str) -> None:
    with pytest.raises(ServiceError, match="not a valid account name") as e:
        accounts.add(name)
    assert_service_error(e, 400, "bad_request")
    assert accounts.list() == []
    assert cycle.ledger.entries(ACCOUNT_EVENT) == []


def test_accounts_need_a_cycle_home(tmp_path: Path) -> None:
    with pytest.raises(ServiceError, match="no release cycle in") as e:
        Accounts(tmp_path)
    assert_service_error(e, 404, "not_found")
    assert list(tmp_path.iterdir()) == []


def test_a_failed_ledger_append_undoes_the_change(cycle: Cycle, accounts: Accounts) -> None:
    token = accounts.add("alice")
    checkpoint = cycle.paths.operator / "ledger.checkpoint"
    saved = checkpoint.read_bytes()
    checkpoint.unlink()  # the ledger no longer verifies, so appends fail
    with pytest.raises(ConditionsError, match="checkpoint"):
        accounts.add("bob")
    with pytest.raises(ConditionsError, match="checkpoint"):
        accounts.revoke("alice")
    assert [(a.name, a.revoked_at) for a in accounts.list()] == [("alice", None)]
    assert accounts.authenticate(token) is not None
    checkpoint.write_bytes(saved)
    cycle.ledger.verify()


def test_an_interrupt_after_the_ledger_committed_keeps_the_change(
    cycle: Cycle, accounts: Accounts, monkeypatch: pytest.MonkeyPatch
) -> None:
    accounts.add("alice")
    interrupt_ledger_commits(monkeypatch)
    with pytest.raises(KeyboardInterrupt):
        accounts.add("bob")
    with pytest.raises(KeyboardInterrupt):
        accounts.revoke("alice")
    monkeypatch.undo()
    listed = {a.name: a.revoked_at is not None for a in accounts.list()}
    assert listed == {"alice": True, "bob": False}  # as the ledger records them
    actions = [
        (e.payload["name"], e.payload["action"]) for e in cycle.ledger.entries(ACCOUNT_EVENT)
    ]
    assert actions[-2:] == [("bob", "add"), ("alice", "revoke")]
    cycle.ledger.verify()


def test_the_first_user_of_a_name_owns_it(accounts: Accounts) -> None:
    accounts.add("alice")
    accounts.add("bob")
    assert accounts.owner("recipe") is None
    accounts.bind("recipe", "alice")
    accounts.bind("recipe", "alice")  # idempotent
    assert accounts.owner("recipe") == "alice"
    with pytest.raises(ServiceError, match="submission name recipe belongs to another") as e:
        accounts.bind("recipe", "bob")
    assert_service_error(e, 403, "forbidden")
    assert e.value.hint == "pick another name in vwt-bundle.json"
    accounts.bind("skill", "bob")
    assert (accounts.owner("recipe"), accounts.owner("skill")) == ("alice", "bob")


def test_a_revoked_owner_keeps_its_names(accounts: Accounts) -> None:
    accounts.add("alice")
    accounts.add("bob")
    accounts.bind("recipe", "alice")
    accounts.revoke("alice")
    with pytest.raises(ServiceError, match="belongs to another submitter"):
        accounts.bind("recipe", "bob")
    assert accounts.owner("recipe") == "alice"


@pytest.mark.parametrize("who", ["ops", "gone", "nobody"])
def test_only_live_submitters_own_names(accounts: Accounts, who: str) -> None:
    accounts.add("ops", role="operator")
    accounts.add("gone")
    accounts.revoke("gone")
    with pytest.raises(ServiceError, match=f"account '{who}' cannot own submissions") as e:
        accounts.bind("recipe", who)
    assert_service_error(e, 403, "forbidden")
    assert accounts.owner("recipe") is None


def test_concurrent_first_uses_have_exactly_one_winner(cycle: Cycle) -> None:
    setup = Accounts(cycle.home)
    names = [f"s{i}" for i in range(8)]
    for name in names:
        setup.add(name)
    start = threading.Barrier(len(names))
    won: list[str] = []
    refused: list[str] = []

    def claim(name: str) -> None:
        accounts = Accounts(cycle.home)  # each thread its own handle and connections
        start.wait()
        try:
            accounts.bind("recipe", name)
            won.append(name)
        except ServiceError as e:
            assert e.code == "forbidden"
            refused.append(name)

    threads = [threading.Thread(target=claim, args=(n,)) for n in names]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(won) == 1 and sorted(won + refused) == names
    assert setup.owner("recipe") == won[0]


def _bind_in_a_process(home: Path, account: str) -> str:
    try:
        Accounts(home).bind("recipe", account)
    except ServiceError as e:
        return e.code
    return "won"


def test_concurrent_first_uses_from_processes_have_exactly_one_winner(cycle: Cycle) -> None:
    accounts = Accounts(cycle.home)
    names = [f"p{i}" for i in range(4)]
    for name in names:
        accounts.add(name)
    context = multiprocessing.get_context("fork")
    with ProcessPoolExecutor(len(names), mp_context=context) as pool:
        results = list(pool.map(_bind_in_a_process, [cycle.home] * len(names), names))
    assert sorted(results) == ["forbidden"] * 3 + ["won"]
    assert accounts.owner("recipe") == names[results.index("won")]

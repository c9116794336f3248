"""A trial store damaged or edited by hand (a corrupt trace, a record held twice, a record that
is not its row's, a malformed file) is one ``error:`` line and a ``hint:`` at every command
that reads it: never a traceback or a bare SQLite message."""

from __future__ import annotations

import hashlib
import json
import sqlite3
import zlib
from pathlib import Path

import pytest
from typer.testing import CliRunner

from runner import RunnerError, TrialStore, cycle_store, store_for
from tests.runner.test_store import make_record, row
from tests.vwt.test_cmd_run import closed_cycle
from vwt.cli import app


def _trace(j: int) -> tuple[str, bytes]:
    """The SHA-256 and the compressed bytes of trial ``j``'s trace."""
    data = json.dumps([{"role": "user", "content": f"refund order {j}"}]).encode()
    return hashlib.sha256(data).hexdigest(), zlib.compress(data)


def _stored(path: Path) -> TrialStore:
    store = TrialStore(path)
    store.insert([row(make_record(trial=j, trace_sha256=f"t{j}"), _trace(j)[1]) for j in range(3)])
    return store


def _sql(path: Path, *statements: str) -> None:
    db = sqlite3.connect(path)
    with db:
        for statement in statements:
            db.execute(statement)
    db.close()


def test_a_trace_that_does_not_decompress_is_an_error(tmp_path: Path) -> None:
    store = _stored(tmp_path / "vwt.sqlite")
    _sql(store.path, "UPDATE traces SET body = x'00ff00ff' WHERE sha256 = 't1'")
    assert store.trace("t0") is not None
    with pytest.raises(RunnerError, match=r"holds a corrupt trace t1") as e:
        store.trace("t1")
    assert "\n" not in str(e.value) and e.value.hint and "backup" in e.value.hint


def test_a_second_valid_attempt_put_in_by_hand_is_an_error_naming_the_query(
    tmp_path: Path,
) -> None:
    store = _stored(tmp_path / "vwt.sqlite")
    _sql(
        store.path,
        "DROP INDEX trials_one_valid",
        "INSERT INTO trials SELECT key, 2, cycle, phase, condition_id, arm, bundle_hash, task_id,"
        " trial, outcome, record, seq, mac FROM trials WHERE trial = 0",
    )
    with pytest.raises(RunnerError, match="holds two valid attempts of one trial") as e:
        TrialStore(store.path)
    assert "UNIQUE constraint" not in str(e.value)
    assert e.value.hint and "backup" in e.value.hint


def test_a_record_copied_onto_another_row_is_an_error(tmp_path: Path) -> None:
    store = _stored(tmp_path / "vwt.sqlite")
    assert len(store.records()) == 3  # the rows as written agree with their records
    _sql(
        store.path,
        "UPDATE trials SET record = (SELECT record FROM trials WHERE trial = 0) WHERE trial = 2",
    )
    for read in (store.records, store.attempts):
        with pytest.raises(RunnerError, match="is not its row's") as e:
            read()
        assert e.value.hint and "backup" in e.value.hint


def test_an_outcome_edited_in_the_record_only_is_an_error(tmp_path: Path) -> None:
    store = _stored(tmp_path / "vwt.sqlite")
    _sql(
        store.path,
        'UPDATE trials SET record = replace(record, \'"outcome":"success"\', '
        '\'"outcome":"failure"\') WHERE trial = 1',
    )
    with pytest.raises(RunnerError, match="is not its row's"):
        store.records()


def test_an_unreadable_record_is_an_error(tmp_path: Path) -> None:
    store = _stored(tmp_path / "vwt.sqlite")
    _sql(store.path, "UPDATE trials SET record = '{\"key\": 1' WHERE trial = 1")
    with pytest.raises(RunnerError, match=r"holds an unreadable record \(trial \S+ attempt 1") as e:
        store.records()
    assert "\n" not in str(e.value)


def _vwt(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})
    if result.exception and not isinstance(result.exception, SystemExit):
        raise result.exception
    return result.exit_code, result.output


def _assert_one_line_error(code: int, out: str, needle: str) -> None:
    assert code == 2, out
    assert "Traceback" not in out and needle in out, out
    errors = [line for line in out.splitlines() if line.startswith("error:")]
    assert len(errors) == 1 and "hint:" in out, out


@pytest.fixture
def home(tmp_path: Path) -> Path:
    """A closed cycle whose store holds three trials."""
    cycle = closed_cycle(tmp_path / "home", bundles=0)
    traces = [_trace(j) for j in range(3)]
    records = [make_record(cycle=cycle.id, trial=j, trace_sha256=traces[j][0]) for j in range(3)]
    # stored as a run stores them: each record MACed under the cycle's ledger key
    cycle_store(cycle).insert([row(r, t) for r, (_, t) in zip(records, traces, strict=True)])
    return cycle.home


def test_the_cli_on_a_corrupt_trace(home: Path) -> None:
    record = store_for(home).records()[1]
    _sql(
        home / "vwt.sqlite",
        f"UPDATE traces SET body = x'00ff' WHERE sha256 = '{record.trace_sha256}'",
    )
    args = ("trials", "show", record.key, "--home", str(home))
    _assert_one_line_error(*_vwt(*args), "corrupt trace")


def test_the_cli_on_a_record_held_twice(home: Path) -> None:
    _sql(
        home / "vwt.sqlite",
        "DROP INDEX trials_one_valid",
        "INSERT INTO trials SELECT key, 2, cycle, phase, condition_id, arm, bundle_hash, task_id,"
        " trial, outcome, record, seq, mac FROM trials WHERE trial = 0",
    )
    _assert_one_line_error(*_vwt("trials", "list", "--home", str(home)), "two valid attempts")


def test_the_cli_on_a_malformed_store(home: Path) -> None:
    path = home / "vwt.sqlite"
    data = bytearray(path.read_bytes())
    data[100:4096] = bytes(range(256)) * 15 + bytes(range(156))  # past the header: page 1
    path.write_bytes(bytes(data))
    _assert_one_line_error(*_vwt("trials", "list", "--home", str(home)), "is corrupt")

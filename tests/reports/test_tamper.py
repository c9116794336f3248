"""A trial record edited in SQLite is refused by everything that reads trials, and a release
whose trials are not the ones the ledger pinned fails `vwt report verify`.

What is edited: one stored outcome turned from failure into success (the record's JSON and its
indexed column), the same with its MAC stripped, a record removed, a whole phase removed, a
second valid attempt added. What is
not an edit: the same record stored in another JSON layout (its content, hence its leaf hash,
is the same) — that one every reader still takes.
"""

from __future__ import annotations

import base64
import hashlib
import json
import re
import shutil
import sqlite3
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from typer.testing import CliRunner

from conditions import Cycle, CycleState
from reports import ReportError, build_matrix, build_release, read_release, verify_release
from reports._published import published_noise_checks
from reports._release import ReleaseStatement
from runner import RunnerError, TrialRecord, checked_records, phase_accounting, store_for
from tests.reports.test_verify import shared_revealed_cycle
from vwt.cli import app

Edit = Callable[[sqlite3.Connection], str]
"""Changes the store; returns the key of the trial it changed."""


def vwt(*args: str) -> tuple[int, str]:
    result = CliRunner().invoke(app, list(args), env={"COLUMNS": "250"})
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def revealed_home(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """A revealed cycle, both phases run (in this process) and pinned in its ledger."""
    return shared_revealed_cycle(tmp_path_factory, "tamper").home


@pytest.fixture
def home(revealed_home: Path, tmp_path: Path) -> Path:
    return Path(shutil.copytree(revealed_home, tmp_path / "home"))


def _failure(db: sqlite3.Connection) -> tuple[str, int, dict[str, Any]]:
    key, attempt, text = db.execute(
        "SELECT key, attempt, record FROM trials WHERE phase = 'frozen' AND outcome = 'failure' "
        "ORDER BY key LIMIT 1"
    ).fetchone()
    return key, attempt, json.loads(text)


def to_success(db: sqlite3.Connection) -> str:
    """One stored failure turned into a success, in its record and its indexed column."""
    key, attempt, record = _failure(db)
    record.update(outcome="success", verifier_reasons=[])
    db.execute(
        "UPDATE trials SET outcome = 'success', record = ? WHERE key = ? AND attempt = ?",
        (json.dumps(record), key, attempt),
    )
    return str(key)


def unsigned_success(db: sqlite3.Connection) -> str:
    """The same, with the MAC removed too (as if stored by a vwt that signs nothing)."""
    key = to_success(db)
    db.execute("UPDATE trials SET mac = NULL WHERE key = ?", (key,))
    return key


def removed(db: sqlite3.Connection) -> str:
    """A stored failure deleted (it would run again, with a fresh draw)."""
    key, _, _ = _failure(db)
    db.execute("DELETE FROM trials WHERE key = ?", (key,))
    return str(key)


def a_whole_phase_removed(db: sqlite3.Connection) -> str:
    """Every adapted record deleted (the phase is then not in the store at all)."""
    (key,) = db.execute("SELECT key FROM trials WHERE phase = 'adapted' LIMIT 1").fetchone()
    db.execute("DELETE FROM trials WHERE phase = 'adapted'")
    return str(key)


def added_attempt(db: sqlite3.Connection) -> str:
    """A second, valid attempt added to a trial whose first failed, with its index dropped."""
    key, attempt, record = _failure(db)
    record.update(outcome="success", attempt=attempt + 1, verifier_reasons=[])
    db.execute("DROP INDEX trials_one_valid")
    db.execute(
        "INSERT INTO trials SELECT key, ?, cycle, phase, condition_id, arm, bundle_hash, "
        "task_id, trial, 'success', ?, (SELECT MAX(seq) + 1 FROM trials), mac FROM trials "
        "WHERE key = ?",
        (attempt + 1, json.dumps(record), key),
    )
    return str(key)


EDITS = [
    (to_success, r"was altered after it was stored \(its MAC does not verify\)"),
    (unsigned_success, r"was altered after it was stored \(it has no MAC\)"),
    (removed, r"differ from those ledger entry \d+ \(run.frozen\) pinned: \d+ attempts where"),
    (a_whole_phase_removed, r"\(run.adapted\) pinned: 0 attempts where it pinned \d+"),
    (added_attempt, r"holds two valid attempts of one trial"),
]


def _edited(home: Path, edit: Edit) -> str:
    with sqlite3.connect(home / "vwt.sqlite") as db:
        key = edit(db)
    db.close()
    return key


@pytest.mark.parametrize(("edit", "why"), EDITS, ids=[e.__name__ for e, _ in EDITS])
def test_every_reader_of_trials_refuses_an_edited_store_in_one_line(
    home: Path, edit: Edit, why: str
) -> None:
    key = _edited(home, edit)
    for args in (
        ["trials", "list", "--home", str(home)],
        ["trials", "show", key[:16], "--home", str(home)],
        ["report", "build", "--home", str(home)],
    ):
        code, out = vwt(*args)
        lines = out.strip().splitlines()
        assert code == 2, (args, out)
        assert lines[0].startswith("error: ") and lines[1].startswith("hint: "), (args, out)
        assert len(lines) == 2 and "Traceback" not in out, (args, out)
        assert re.search(why, lines[0]), (args, lines[0])
        assert "restore the home's vwt.sqlite from a backup" in lines[1]
    cycle = Cycle.open(home)
    with pytest.raises(RunnerError):
        for phase in ("frozen", "adapted"):
            phase_accounting(cycle, phase)
    assert not (cycle.paths.public / "release.json").exists()
    assert cycle.state == CycleState.revealed


def test_the_same_records_in_another_layout_are_read_as_they_were(home: Path) -> None:
    cycle = Cycle.open(home)
    before = checked_records(cycle)
    with sqlite3.connect(home / "vwt.sqlite") as db:
        rows = db.execute("SELECT key, attempt, record FROM trials").fetchall()
        for key, attempt, text in rows:
            spaced = json.dumps(json.loads(text), indent=3, sort_keys=False)
            db.execute(
                "UPDATE trials SET record = ? WHERE key = ? AND attempt = ?", (spaced, key, attempt)
            )
    db.close()
    assert checked_records(cycle) == before
    code, out = vwt("trials", "list", "--home", str(home))
    assert code == 0, out
    assert verify_release(build_release(cycle)).ledger_pinned == ("frozen", "adapted")


def _resigned(pub: Path, cycle: Cycle, change: Callable[[list[dict[str, Any]]], None]) -> None:
    """``change`` the published trials, then re-sign the release with the operator's key after
    recomputing everything the trials decide (their hash, count and every cell): all that a
    dishonest operator with a doctored store would publish."""
    lines = [json.loads(x) for x in (pub / "trials.jsonl").read_text().splitlines()]
    change(lines)
    data = b"".join(rfc8785.dumps(r) + b"\n" for r in lines)
    (pub / "trials.jsonl").write_bytes(data)
    signed = json.loads((pub / "release.json").read_text())
    statement = ReleaseStatement.model_validate(signed["release"])
    records = [TrialRecord.model_validate(r) for r in lines]
    cells = build_matrix(
        records,
        conditions={c.id: c.condition for c in statement.conditions},
        source_id=statement.conditions[0].id,
        fdr_q=statement.fdr_q,
        adaptations=statement.adaptations,
        noise_checks=published_noise_checks(
            pub, statement.artifacts, [s.bundle_hash for s in statement.submissions]
        ),
    )
    released = statement.model_copy(
        update={
            "trials": statement.trials.model_copy(
                update={"sha256": hashlib.sha256(data).hexdigest()}
            ),
            "cells": tuple(cells),
        }
    )
    body = rfc8785.dumps(released.model_dump(mode="json"))
    signed["release"] = released.model_dump(mode="json")
    signed["signature"] = base64.b64encode(cycle.sign(body)).decode()
    (pub / "release.json").write_text(json.dumps(signed, indent=1))


def _flip_a_failure(lines: list[dict[str, Any]]) -> None:
    # a frozen one: the file's order follows the trial keys, which come from the cycle's secret
    record = next(
        r
        for r in lines
        if r["outcome"] == "failure" and r["arm"] == "with" and r["phase"] == "frozen"
    )
    record.update(outcome="success", verifier_reasons=[])


def test_a_release_whose_trials_the_ledger_did_not_pin_fails_verify(
    home: Path, tmp_path: Path
) -> None:
    cycle = Cycle.open(home)
    build_release(cycle)
    pub = Path(shutil.copytree(cycle.paths.public, tmp_path / "pub"))
    assert verify_release(pub).ledger_pinned == ("frozen", "adapted")
    _resigned(pub, cycle, lambda lines: None)  # the re-signing alone changes nothing
    assert verify_release(pub).ledger_pinned == ("frozen", "adapted")
    _resigned(pub, cycle, _flip_a_failure)
    with pytest.raises(ReportError, match="released frozen trials do not match the records"):
        verify_release(pub)
    code, out = vwt("report", "verify", str(pub))
    assert code == 2 and "do not match the records the ledger pinned" in out, out


def test_a_release_of_format_6_still_verifies(home: Path, tmp_path: Path) -> None:
    """A release built before the pins (format 6, no `records`) verifies as it did: its cells
    are CellMetrics v4 (plain Fieller retention), recomputed as such."""
    cycle = Cycle.open(home)
    build_release(cycle)
    pub = Path(shutil.copytree(cycle.paths.public, tmp_path / "pub"))
    signed = json.loads((pub / "release.json").read_text())
    statement = ReleaseStatement.model_validate(signed["release"])
    records = [
        TrialRecord.model_validate_json(x) for x in (pub / "trials.jsonl").read_text().splitlines()
    ]
    cells = build_matrix(
        records,
        conditions={c.id: c.condition for c in statement.conditions},
        source_id=statement.conditions[0].id,
        fdr_q=statement.fdr_q,
        adaptations=statement.adaptations,
        noise_checks=published_noise_checks(
            pub, statement.artifacts, [s.bundle_hash for s in statement.submissions]
        ),
        version=4,
    )
    old = {k: v for k, v in signed["release"].items() if k != "records"} | {
        "v": 6,
        "cells": [c.model_dump(mode="json") for c in cells],
    }
    signed["release"] = old
    signed["signature"] = base64.b64encode(cycle.sign(rfc8785.dumps(old))).decode()
    (pub / "release.json").write_text(json.dumps(signed, indent=1))
    assert read_release(pub).release.v == 6
    assert {c.metrics.v for c in read_release(pub).release.cells} == {4}
    v = verify_release(pub)
    assert v.ledger_pinned == () and v.trials == len(store_for(home).records())
    code, out = vwt("report", "verify", str(pub))
    assert code == 0 and "ledger pins: none (a release of format 6" in out, out

"""Receipts name the commitment they were issued under; checked against the public one."""

from __future__ import annotations

import json
from pathlib import Path

import pytest

from conditions import ConditionsError, Cycle, verify_commitment
from submissions import Receipt, SubmissionError, read_receipt, reference_bundles, submit
from tests.submissions.conftest import open_cycle_at, spec_with


@pytest.fixture
def receipt(open_cycle: Cycle) -> Receipt:
    """A receipt for the prompt-recipe reference bundle."""
    return submit(open_cycle, reference_bundles()[1])


def test_a_receipt_holds_against_its_own_commitment(open_cycle: Cycle, receipt: Receipt) -> None:
    signed = verify_commitment(open_cycle.paths.commitment)
    receipt.check_commitment(signed)
    assert receipt.receipt.commitment_root == signed.commitment.root


def test_another_cycles_commitment_under_the_same_key_is_refused(
    open_cycle: Cycle, receipt: Receipt, tmp_path: Path
) -> None:
    other = open_cycle_at(tmp_path / "b", spec_with(cycle="other-cycle"), open_cycle.key_path)
    assert other.public_key_b64 == open_cycle.public_key_b64
    with pytest.raises(
        SubmissionError, match=r"for cycle .*, the commitment for cycle other-cycle"
    ):
        receipt.check_commitment(verify_commitment(other.paths.commitment))


def test_a_new_commitment_of_the_same_cycle_and_key_is_refused(
    open_cycle: Cycle, receipt: Receipt, tmp_path: Path
) -> None:
    again = open_cycle_at(tmp_path / "again", open_cycle.spec, open_cycle.key_path)
    assert again.id == open_cycle.id
    with pytest.raises(SubmissionError, match="issued under commitment root") as e:
        receipt.check_commitment(verify_commitment(again.paths.commitment))
    assert "changed the commitment" in (e.value.hint or "")


def test_another_operators_commitment_is_refused(
    open_cycle: Cycle, receipt: Receipt, tmp_path: Path
) -> None:
    other = open_cycle_at(tmp_path / "c", open_cycle.spec)
    with pytest.raises(SubmissionError, match="the commitment by key"):
        receipt.check_commitment(verify_commitment(other.paths.commitment))


def test_an_edited_commitment_does_not_verify(open_cycle: Cycle, tmp_path: Path) -> None:
    data = json.loads(open_cycle.paths.commitment.read_text())
    data["commitment"]["root"] = "0" * 64
    edited = tmp_path / "commitment.json"
    edited.write_text(json.dumps(data))
    with pytest.raises(ConditionsError, match="signature does not verify"):
        verify_commitment(edited)


def test_read_receipt_refuses_what_is_not_a_receipt(receipt: Receipt, tmp_path: Path) -> None:
    path = tmp_path / "r.json"
    path.write_text(receipt.model_dump_json())
    assert read_receipt(path) == receipt
    data = json.loads(receipt.model_dump_json())
    data["receipt"]["version"] = "1\x1b[2J"
    path.write_text(json.dumps(data))
    with pytest.raises(SubmissionError, match="is not a receipt") as e:
        read_receipt(path)
    assert "\x1b" not in str(e.value)
    path.write_text(" " * 20_000)
    with pytest.raises(SubmissionError, match="over the limit"):
        read_receipt(path)
    with pytest.raises(SubmissionError, match="is a directory"):
        read_receipt(tmp_path)

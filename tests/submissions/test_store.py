"""The bundle store, submitting into a cycle, and signed receipts."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from conditions import ConditionsError, Cycle, CycleState, verify_commitment
from submissions import (
    SUBMISSION_EVENT,
    Bundle,
    BundleStore,
    Receipt,
    SubmissionError,
    reference_bundles,
    submit,
    submitted_bundles,
    write_bundle,
)


def test_store_round_trip_and_put_is_idempotent(open_cycle: Cycle) -> None:
    store = BundleStore(open_cycle.home)
    bundle = reference_bundles()[1]
    assert store.put(bundle) == bundle.hash
    first = store.path(bundle.hash).stat().st_mtime_ns
    assert store.put(bundle) == bundle.hash
    assert store.path(bundle.hash).stat().st_mtime_ns == first
    assert store.get(bundle.hash) == bundle


def test_store_refuses_an_unknown_hash(open_cycle: Cycle) -> None:
    with pytest.raises(SubmissionError, match="no stored bundle"):
        BundleStore(open_cycle.home).get("0" * 64)


def test_store_detects_a_modified_blob(open_cycle: Cycle) -> None:
    store = BundleStore(open_cycle.home)
    recipe, skill = reference_bundles()[1:3]
    store.put(recipe)
    path = store.path(recipe.hash)
    data = json.loads(path.read_text())
    data["files"]["refund-playbook.md"] += "\n5. Also refund the shipping fee."
    path.write_text(json.dumps(data))
    with pytest.raises(SubmissionError, match="does not match its hash: the store was altered"):
        store.get(recipe.hash)
    write_bundle(skill, path)  # another valid bundle under this name
    with pytest.raises(SubmissionError, match="does not match its hash"):
        store.get(recipe.hash)
    path.write_text("{")
    with pytest.raises(SubmissionError, match="not a valid bundle"):
        store.get(recipe.hash)


@pytest.mark.parametrize("state", ["draft", "committed", "frozen_run"])
def test_submit_only_while_open(committed_cycle: Cycle, state: str) -> None:
    cycle = committed_cycle
    if state == "draft":
        cycle = Cycle.init(cycle.home.parent / "draft", cycle.spec)
    elif state == "frozen_run":
        cycle.transition(CycleState.open)  # the fixture's window opened long ago
        cycle.transition(CycleState.frozen_run)
    bundle = reference_bundles()[0]
    with pytest.raises(ConditionsError, match=f"cannot submit a bundle.*'{state}', not 'open'"):
        submit(cycle, bundle)
    assert not BundleStore(cycle.home).path(bundle.hash).exists()
    assert cycle.ledger.entries(SUBMISSION_EVENT) == []


def test_submit_stores_logs_and_signs(open_cycle: Cycle) -> None:
    bundles = reference_bundles()
    receipts = [submit(open_cycle, b) for b in bundles]
    c = verify_commitment(open_cycle.paths.commitment).commitment
    assert submitted_bundles(open_cycle) == bundles
    entries = open_cycle.ledger.entries(SUBMISSION_EVENT)
    assert [e.payload["bundle_hash"] for e in entries] == [b.hash for b in bundles]
    for receipt, bundle, entry in zip(receipts, bundles, entries, strict=True):
        assert receipt.verify()
        assert receipt.public_key == open_cycle.public_key_b64
        s = receipt.receipt
        assert (s.cycle, s.bundle_hash) == (open_cycle.id, bundle.hash)
        assert (s.name, s.version, s.late) == (bundle.manifest.name, bundle.manifest.version, False)
        assert (s.commitment_root, s.commitment_digest) == (c.root, c.digest())
        assert Receipt.model_validate(entry.payload["receipt"]) == receipt
        assert entry.payload["late"] is False
        assert (entry.payload["name"], entry.payload["version"]) == (s.name, s.version)
    open_cycle.ledger.verify()


def test_a_bundle_is_accepted_once(open_cycle: Cycle) -> None:
    bundle = reference_bundles()[2]
    submit(open_cycle, bundle)
    with pytest.raises(SubmissionError, match="already submitted") as e:
        submit(open_cycle, bundle)
    assert "version" in (e.value.hint or "")
    assert len(open_cycle.ledger.entries(SUBMISSION_EVENT)) == 1


def test_a_taken_name_and_version_is_refused_naming_the_holder(open_cycle: Cycle) -> None:
    original = reference_bundles()[1]
    submit(open_cycle, original)
    files = {p: t + "\nAlso refund twice." for p, t in original.files.items()}
    impostor = Bundle(manifest=original.manifest, files=files)
    with pytest.raises(SubmissionError) as e:
        submit(open_cycle, impostor)
    assert f"prompt-recipe@1 is already taken in cycle {open_cycle.id}" in str(e.value)
    assert original.hash[:12] in str(e.value) and impostor.hash[:12] in str(e.value)
    assert "raise the version" in (e.value.hint or "")
    assert not BundleStore(open_cycle.home).path(impostor.hash).exists()
    bumped = Bundle(manifest=original.manifest.model_copy(update={"version": "2"}), files=files)
    submit(open_cycle, bumped)
    assert submitted_bundles(open_cycle) == [original, bumped]


def test_after_closes_at_only_a_late_override_is_accepted_and_recorded(
    closed_cycle: Cycle,
) -> None:
    bundle = reference_bundles()[0]
    with pytest.raises(SubmissionError, match="closed at 2020-02-01T00:00:00Z") as e:
        submit(closed_cycle, bundle)
    assert "--late" in (e.value.hint or "")
    assert closed_cycle.ledger.entries(SUBMISSION_EVENT) == []
    assert not BundleStore(closed_cycle.home).path(bundle.hash).exists()
    receipt = submit(closed_cycle, bundle, late=True)
    assert receipt.verify() and receipt.receipt.late is True
    (entry,) = closed_cycle.ledger.entries(SUBMISSION_EVENT)
    assert entry.payload["late"] is True


def test_late_before_the_close_is_not_recorded_as_late(open_cycle: Cycle) -> None:
    receipt = submit(open_cycle, reference_bundles()[0], late=True)
    assert receipt.receipt.late is False
    assert open_cycle.ledger.entries(SUBMISSION_EVENT)[0].payload["late"] is False


def test_a_submission_recorded_meanwhile_fails_the_check_then_append(open_cycle: Cycle) -> None:
    # Another process opened the same cycle and submitted after this one read the ledger.
    other = Cycle.open(open_cycle.home)
    first, second = reference_bundles()[:2]
    entries_before = open_cycle.ledger.entries(SUBMISSION_EVENT)
    submit(other, first)
    real_entries = open_cycle.ledger.entries
    calls = {"n": 0}

    def stale(kind: str | None = None) -> list[Any]:
        calls["n"] += 1
        return entries_before if kind == SUBMISSION_EVENT else real_entries(kind)

    open_cycle.ledger.entries = stale  # type: ignore[method-assign]
    with pytest.raises(ConditionsError, match="meanwhile"):
        submit(open_cycle, second)
    assert calls["n"] >= 1
    assert len(real_entries(SUBMISSION_EVENT)) == 1


def _other_key_b64() -> str:
    raw = (
        Ed25519PrivateKey.generate()
        .public_key()
        .public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    )
    return base64.b64encode(raw).decode()


def _flip_last_byte(signature: str) -> str:
    raw = bytearray(base64.b64decode(signature))
    raw[-1] ^= 1
    return base64.b64encode(bytes(raw)).decode()


@pytest.mark.parametrize(
    "tamper",
    [
        lambda r: {**r, "receipt": {**r["receipt"], "name": "someone-else"}},
        lambda r: {**r, "receipt": {**r["receipt"], "bundle_hash": "f" * 64}},
        lambda r: {**r, "receipt": {**r["receipt"], "received_at": "2026-12-01T00:00:00Z"}},
        lambda r: {**r, "receipt": {**r["receipt"], "late": True}},
        lambda r: {**r, "receipt": {**r["receipt"], "commitment_root": "0" * 64}},
        lambda r: {**r, "receipt": {**r["receipt"], "cycle": "another-cycle"}},
        lambda r: {**r, "signature": _flip_last_byte(r["signature"])},
        lambda r: {**r, "public_key": _other_key_b64()},
        lambda r: {**r, "signature": "not base64!"},
        lambda r: {**r, "signature": r["signature"][:-4]},
    ],
)
def test_a_tampered_receipt_does_not_verify(
    open_cycle: Cycle, tamper: Callable[[dict[str, Any]], dict[str, Any]]
) -> None:
    receipt = submit(open_cycle, reference_bundles()[1])
    data = json.loads(receipt.model_dump_json())
    assert Receipt.model_validate(data).verify()
    assert not Receipt.model_validate(tamper(data)).verify()

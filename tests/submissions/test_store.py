"""The bundle store, submitting into a cycle, and signed receipts."""

from __future__ import annotations

import base64
import json
from collections.abc import Callable
from typing import Any

import pytest
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from conditions import ConditionsError, Cycle, CycleState
from submissions import (
    SUBMISSION_EVENT,
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
        cycle.transition(CycleState.open)
        cycle.transition(CycleState.frozen_run)
    bundle = reference_bundles()[0]
    with pytest.raises(ConditionsError, match=f"cannot submit a bundle.*'{state}', not 'open'"):
        submit(cycle, bundle)
    assert not BundleStore(cycle.home).path(bundle.hash).exists()
    assert cycle.ledger.entries(SUBMISSION_EVENT) == []


def test_submit_stores_logs_and_signs(open_cycle: Cycle) -> None:
    bundles = reference_bundles()
    receipts = [submit(open_cycle, b) for b in bundles]
    assert submitted_bundles(open_cycle) == bundles
    entries = open_cycle.ledger.entries(SUBMISSION_EVENT)
    assert [e.payload["bundle_hash"] for e in entries] == [b.hash for b in bundles]
    for receipt, bundle, entry in zip(receipts, bundles, entries, strict=True):
        assert receipt.verify()
        assert receipt.public_key == open_cycle.public_key_b64
        s = receipt.receipt
        assert (s.cycle, s.bundle_hash) == (open_cycle.id, bundle.hash)
        assert (s.name, s.version) == (bundle.manifest.name, bundle.manifest.version)
        assert Receipt.model_validate(entry.payload["receipt"]) == receipt
    open_cycle.ledger.verify()


def test_a_bundle_is_accepted_once(open_cycle: Cycle) -> None:
    bundle = reference_bundles()[2]
    submit(open_cycle, bundle)
    with pytest.raises(SubmissionError, match="already submitted") as e:
        submit(open_cycle, bundle)
    assert "version" in (e.value.hint or "")
    assert len(open_cycle.ledger.entries(SUBMISSION_EVENT)) == 1


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

"""Submitting for a service account: the ledger names the submitter, nothing else changes."""

from __future__ import annotations

import json

from conditions import Cycle
from submissions import SUBMISSION_EVENT, list_submissions, reference_bundles, submit


def test_the_submitter_is_recorded_in_the_ledger_only(open_cycle: Cycle) -> None:
    by_operator, by_alice = reference_bundles()[:2]
    plain = submit(open_cycle, by_operator)
    uploaded = submit(open_cycle, by_alice, submitter="alice")
    first, second = open_cycle.ledger.entries(SUBMISSION_EVENT)
    assert "submitter" not in first.payload
    assert second.payload["submitter"] == "alice"
    assert set(second.payload) - set(first.payload) == {"submitter"}
    for receipt in (plain, uploaded):
        assert receipt.verify() and receipt.receipt.v == 2
        assert "submitter" not in receipt.model_dump_json()
        assert "alice" not in json.dumps(receipt.model_dump(mode="json"))
    assert second.payload["receipt"] == json.loads(uploaded.model_dump_json())
    open_cycle.ledger.verify()


def test_listing_is_the_same_with_or_without_a_submitter(open_cycle: Cycle) -> None:
    bundles = reference_bundles()
    for i, bundle in enumerate(bundles):
        submit(open_cycle, bundle, submitter=None if i % 2 else f"s{i}")
    listed = list_submissions(open_cycle)
    assert [s.bundle_hash for s in listed] == [b.hash for b in bundles]
    assert [s.name for s in listed] == [b.manifest.name for b in bundles]

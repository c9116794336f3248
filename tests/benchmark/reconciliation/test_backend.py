"""The reconciliation backend: what each canonical tool does to the books, and what it
refuses."""

from typing import Any

import pytest

from benchmark.reconciliation import Reconciliation
from benchmark.reconciliation._backend import Backend, BackendError

FAMILY = Reconciliation()
TASK = next(t for t in FAMILY.tasks("sealed", 8, 11) if t.kind == "match_invoice")
STATE = TASK.initial_state
INVOICE = STATE["invoices"][min(STATE["invoices"])]
DUE = INVOICE["amount_due_cents"]
INVOICE_ID = INVOICE["invoice_id"]
PAYMENT_ID = min(STATE["payments"])
ACCOUNT_ID = next(iter(STATE["accounts"]))


def _backend() -> Backend:
    return Backend(STATE)


def _match(backend: Backend, cents: int, **extra: Any) -> dict[str, Any]:
    args = {"invoice_id": INVOICE_ID, "payment_id": PAYMENT_ID, "amount_cents": cents, **extra}
    return backend.call("match_payment", args)


def test_an_invoice_is_paid_once_its_payments_cover_the_amount_due() -> None:
    backend = _backend()
    assert _match(backend, DUE - 100)["invoice_status"] == "partially_paid"
    assert _match(backend, 100)["invoice_status"] == "paid"
    assert _match(backend, 1)["invoice_status"] == "overpaid"  # nothing caps what is applied
    state = backend.dump()
    assert state["invoices"][INVOICE_ID]["paid_cents"] == DUE + 1
    assert state["payments"][PAYMENT_ID]["applied_cents"] == DUE + 1
    assert [m["match_id"] for m in state["matches"]] == ["M-0001", "M-0002", "M-0003"]
    invoice = backend.call("get_invoice", {"invoice_id": INVOICE_ID})
    assert invoice["balance_cents"] == -1
    assert [p["amount_cents"] for p in invoice["payments"]] == [DUE - 100, 100, 1]


def test_an_early_payment_discount_covers_its_share_of_the_amount_due() -> None:
    backend = _backend()
    discount = round(DUE * 0.05)
    assert _match(backend, DUE - discount, discount_rate=0.05)["invoice_status"] == "paid"
    assert backend.dump()["invoices"][INVOICE_ID]["discount_cents"] == discount
    other = _backend()
    assert _match(other, DUE - discount, discount_rate=0.0005)["invoice_status"] == "partially_paid"


def test_match_payment_refuses_unknown_records_and_malformed_values() -> None:
    backend = _backend()
    with pytest.raises(BackendError, match="no invoice 'INV-0'"):
        backend.call(
            "match_payment", {"invoice_id": "INV-0", "payment_id": PAYMENT_ID, "amount_cents": 5}
        )
    with pytest.raises(BackendError, match="between 0 and 1"):
        _match(backend, DUE, discount_rate=5)
    with pytest.raises(BackendError, match="positive whole number"):
        _match(backend, 0)
    assert backend.dump()["matches"] == STATE["matches"]


def test_find_customers_matches_name_or_email_oldest_first() -> None:
    backend = _backend()
    main = STATE["customers"][min(STATE["customers"])]
    found = backend.call("find_customers", {"query": main["email"].upper()})
    assert found["customer_ids"] == [main["customer_id"]]
    last_name = main["name"].split()[-1][:3]
    by_name = backend.call("find_customers", {"query": last_name})["customers"]
    assert [c["created"] for c in by_name] == sorted(c["created"] for c in by_name)
    with pytest.raises(BackendError, match="no customer matches"):
        backend.call("find_customers", {"query": "nobody@nowhere.example"})


def test_merge_marks_the_duplicate_and_refuses_self_and_repeated_merges() -> None:
    backend = _backend()
    keep, other = sorted(STATE["customers"])[:2]
    with pytest.raises(BackendError, match="into itself"):
        backend.call("merge_customers", {"customer_id": keep, "duplicate_id": keep})
    backend.call("merge_customers", {"customer_id": keep, "duplicate_id": other})
    merged = backend.dump()["customers"][other]
    assert (merged["status"], merged["merged_into"]) == ("merged", keep)
    with pytest.raises(BackendError, match="already merged"):
        backend.call("merge_customers", {"customer_id": keep, "duplicate_id": other})


def test_adjustments_add_signed_amounts_to_the_account_and_are_recorded() -> None:
    backend = _backend()
    start = STATE["accounts"][ACCOUNT_ID]["balance_cents"]
    for cents in (500, -1200, 300):
        backend.call("post_adjustment", {"account_id": ACCOUNT_ID, "amount_cents": cents})
    state = backend.dump()
    assert state["accounts"][ACCOUNT_ID]["balance_cents"] == start - 400
    assert [a["adjustment_id"] for a in state["adjustments"]] == [
        "ADJ-0001",
        "ADJ-0002",
        "ADJ-0003",
    ]
    with pytest.raises(BackendError, match="non-zero"):
        backend.call("post_adjustment", {"account_id": ACCOUNT_ID, "amount_cents": 0})


def test_flags_set_on_payments_and_statement_lines_and_only_known_ones() -> None:
    backend = _backend()
    line_id = min(STATE["statement_lines"])
    backend.call("flag_record", {"record_id": PAYMENT_ID, "flag": "duplicate"})
    backend.call("flag_record", {"record_id": line_id, "flag": "needs_review"})
    state = backend.dump()
    assert state["payments"][PAYMENT_ID]["flag"] == "duplicate"
    assert state["statement_lines"][line_id]["flag"] == "needs_review"
    assert backend.call("get_statement_line", {"line_id": line_id})["flag"] == "needs_review"
    with pytest.raises(BackendError, match="unknown flag"):
        backend.call("flag_record", {"record_id": PAYMENT_ID, "flag": "fine"})
    with pytest.raises(BackendError, match="no payment or statement line"):
        backend.call("flag_record", {"record_id": "BSL-0", "flag": "reconciled"})


def test_an_unknown_tool_is_refused() -> None:
    with pytest.raises(BackendError, match="unknown tool"):
        _backend().call("delete_everything", {})

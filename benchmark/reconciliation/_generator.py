"""Seeded generator of reconciliation tasks over messy books.

Every task has one business's books: customers, invoices, received payments, a ledger account
and its bank statement. ``n`` is the split's base plus the task index. The customer the task is
about is ``CUS-<n>-1`` with exactly four invoices ``INV-<n>-1`` … ``INV-<n>-4`` (so an
identifier swap with pivot 5 lands on another invoice of the same customer) and four payments
``PAY-<n>-1`` … ``PAY-<n>-4``; the account is ``ACC-<n>`` and the statement lines
``BSL-<n>-1`` …. The tables are messy the way real ones are: payers as the bank spells them
(upper case, initials, typos), look-alike customers with misspelled names, installments,
payments net of a discount, duplicate imports and payers nobody knows. How messy varies per
task: 1–3 look-alike customers, 0–2 payments from other payers, 4–7 statement lines.
"""

from __future__ import annotations

from collections.abc import Callable
from dataclasses import dataclass
from datetime import date, timedelta
from typing import Any

import numpy as np

from benchmark._family_kit import numbered_task
from benchmark._task import Task
from benchmark.reconciliation._phrasings import PHRASINGS
from drift import ToolCall

GENERATOR_VERSION = "reconciliation-gen-1"
MATCH_KINDS = ("match_invoice", "split_payment", "early_discount")
RECORD_KINDS = ("merge_duplicates", "duplicate_payment", "unidentified_payment")
LEDGER_KINDS = ("bank_fee", "interest_credit")
KINDS = MATCH_KINDS + RECORD_KINDS + LEDGER_KINDS
INVOICES_PER_CUSTOMER = 4
DISCOUNT_PERCENTS = (2, 3, 5, 10, 12, 15)

_FIRST = ("Dana", "Jonas", "Marta", "Pieter", "Aisha", "Kenji", "Lucia", "Oskar", "Priya")
_LAST = ("Quinn", "Okafor", "Lindqvist", "Moreau", "Nakamura", "Petrov", "Rossi", "Fischer")
_DOMAINS = ("example.com", "mailbox.org", "fastmail.com", "posteo.net")
_UNKNOWN_PAYERS = ("NORTHWIND TRADING", "BLUE HERON LLC", "K&M IMPORTS", "ZEPHYR HOLDINGS")
_FEES = ("monthly service fee", "wire transfer fee", "card processing fee", "overdraft fee")
_OTHER_LINES = (
    ("Card settlement", "credit"),
    ("Office rent", "debit"),
    ("Payroll", "debit"),
    ("Utilities", "debit"),
)
_FIRST_DAY = date(2026, 3, 2)


@dataclass(frozen=True)
class _Books:
    """A task's tables while its kind's plan shapes them."""

    rng: np.random.Generator
    number: int
    customers: list[dict[str, Any]]
    invoices: list[dict[str, Any]]
    payments: list[dict[str, Any]]
    lines: list[dict[str, Any]]
    matches: list[dict[str, Any]]


@dataclass(frozen=True)
class _Plan:
    """A kind's instruction slots and its reference calls."""

    slots: dict[str, str]
    calls: tuple[ToolCall, ...]


def _call(name: str, **arguments: Any) -> ToolCall:
    return ToolCall(name=name, arguments=arguments)


def _dollars(cents: int) -> str:
    return f"{cents / 100:.2f}"


def _pick(rng: np.random.Generator, seq: list[Any] | tuple[Any, ...]) -> Any:
    return seq[int(rng.integers(len(seq)))]


def _day(rng: np.random.Generator) -> str:
    return (_FIRST_DAY + timedelta(days=int(rng.integers(0, 25)))).isoformat()


def _typo(word: str, rng: np.random.Generator) -> str:
    """``word`` with one slip inside it: a letter dropped, doubled, or swapped with the next."""
    i = 1 + int(rng.integers(len(word) - 2))
    slips = (
        word[:i] + word[i + 1 :],
        word[:i] + word[i] + word[i:],
        word[:i] + word[i + 1] + word[i] + word[i + 2 :],
    )
    return next(s for s in slips[int(rng.integers(3)) :] + slips if s != word)


def _payer(first: str, last: str, rng: np.random.Generator) -> str:
    """How a bank shows a payment from ``first last``."""
    return _pick(
        rng,
        (
            f"{first} {last}".upper(),
            f"{first[0]}. {last.upper()}",
            f"{first} {_typo(last, rng)}",
            f"{last}, {first}",
        ),
    )


def _customer(number: int, j: int, name: str, email: str, created: str) -> dict[str, Any]:
    return {
        "customer_id": f"CUS-{number}-{j}",
        "name": name,
        "email": email,
        "created": created,
        "status": "active",
        "merged_into": None,
    }


def _payment(number: int, j: int, payer: str, cents: int, received: str) -> dict[str, Any]:
    return {
        "payment_id": f"PAY-{number}-{j}",
        "payer": payer,
        "amount_cents": cents,
        "received": received,
        "applied_cents": 0,
        "status": "unapplied",
        "flag": None,
    }


def _line(
    number: int, j: int, description: str, direction: str, cents: int, day: str
) -> dict[str, Any]:
    return {
        "line_id": f"BSL-{number}-{j}",
        "account_id": f"ACC-{number}",
        "posted_on": day,
        "description": description,
        "direction": direction,
        "amount_cents": cents,
        "flag": "reconciled",
    }


def _books(rng: np.random.Generator, number: int) -> _Books:
    """The tables before a kind shapes them."""
    first, last = _pick(rng, _FIRST), _pick(rng, _LAST)
    email = f"{first.lower()}.{last.lower()}{int(rng.integers(10, 99))}@{_pick(rng, _DOMAINS)}"
    customers = [_customer(number, 1, f"{first} {last}", email, "2021-04-12")]
    for j in range(2, 2 + int(rng.integers(1, 4))):  # look-alikes: other people, other emails
        other = (_typo(first, rng), last) if j % 2 else (first, _typo(last, rng))
        other_email = f"{other[0].lower()}.{other[1].lower()}{100 + j}@{_pick(rng, _DOMAINS)}"
        customers.append(_customer(number, j, " ".join(other), other_email, f"202{j}-0{j}-1{j}"))
    invoices = [
        {
            "invoice_id": f"INV-{number}-{j}",
            "customer_id": customers[0]["customer_id"],
            "issued": f"2026-02-{10 + 3 * j:02d}",
            "amount_due_cents": int(rng.integers(4000, 250000)),
            "paid_cents": 0,
            "discount_cents": 0,
            "status": "open",
        }
        for j in range(1, INVOICES_PER_CUSTOMER + 1)
    ]
    # each of the customer's payments pays one of its invoices, in no particular order
    order = rng.permutation(INVOICES_PER_CUSTOMER)
    payments = [
        _payment(
            number, j, _payer(first, last, rng), invoices[int(k)]["amount_due_cents"], _day(rng)
        )
        for j, k in enumerate(order, start=1)
    ]
    for c in customers[1 : 1 + int(rng.integers(0, 3))]:  # payments from look-alikes
        cents = int(rng.integers(4000, 90000))
        payments.append(_payment(number, len(payments) + 1, c["name"].upper(), cents, _day(rng)))
    return _Books(rng, number, customers, invoices, payments, [], [])


def _statement(b: _Books) -> None:
    """The bank statement, every line already reconciled: deposits of the payments as they
    stand, and some other traffic; 4–7 lines in all."""
    deposits = [(f"Transfer from {p['payer']}", "credit", p["amount_cents"]) for p in b.payments]
    others = [(d, direction, int(b.rng.integers(5000, 400000))) for d, direction in _OTHER_LINES]
    entries = [*deposits, *others][: int(b.rng.integers(4, 8))]
    b.lines.extend(
        _line(b.number, j, *entries[int(k)], _day(b.rng))
        for j, k in enumerate(b.rng.permutation(len(entries)), start=1)
    )


def _paying(b: _Books, invoice: dict[str, Any]) -> dict[str, Any]:
    """The customer's payment of ``invoice``'s amount due."""
    own = b.payments[:INVOICES_PER_CUSTOMER]
    return next(p for p in own if p["amount_cents"] == invoice["amount_due_cents"])


def _match_invoice(b: _Books) -> _Plan:
    invoice = _pick(b.rng, b.invoices)
    payment, cents = _paying(b, invoice), invoice["amount_due_cents"]
    match = _call(
        "match_payment",
        invoice_id=invoice["invoice_id"],
        payment_id=payment["payment_id"],
        amount_cents=cents,
    )
    slots = {
        "payment": payment["payment_id"],
        "invoice": invoice["invoice_id"],
        "payer": payment["payer"],
        "dollars": _dollars(cents),
    }
    return _Plan(slots, (match,))


def _split_payment(b: _Books) -> _Plan:
    invoice = _pick(b.rng, b.invoices)
    later = _paying(b, invoice)
    earlier = _pick(b.rng, [p for p in b.payments[:INVOICES_PER_CUSTOMER] if p is not later])
    due = invoice["amount_due_cents"]
    first = round(due * float(b.rng.uniform(0.3, 0.7)))
    earlier.update(amount_cents=first, applied_cents=first, status="applied")
    later["amount_cents"] = due - first
    invoice.update(paid_cents=first, status="partially_paid")
    b.matches.append(
        {
            "match_id": "M-0001",
            "invoice_id": invoice["invoice_id"],
            "payment_id": earlier["payment_id"],
            "amount_cents": first,
            "discount_rate": 0.0,
        }
    )
    match = _call(
        "match_payment",
        invoice_id=invoice["invoice_id"],
        payment_id=later["payment_id"],
        amount_cents=due - first,
    )
    slots = {
        "payment": later["payment_id"],
        "invoice": invoice["invoice_id"],
        "first": earlier["payment_id"],
        "dollars": _dollars(due - first),
    }
    return _Plan(slots, (match,))


def _early_discount(b: _Books) -> _Plan:
    invoice = _pick(b.rng, b.invoices)
    payment = _paying(b, invoice)
    percent = int(_pick(b.rng, DISCOUNT_PERCENTS))
    due = invoice["amount_due_cents"]
    cents = due - round(due * (percent / 100))
    payment["amount_cents"] = cents
    match = _call(
        "match_payment",
        invoice_id=invoice["invoice_id"],
        payment_id=payment["payment_id"],
        amount_cents=cents,
        discount_rate=percent / 100,
    )
    slots = {
        "payment": payment["payment_id"],
        "invoice": invoice["invoice_id"],
        "payer": payment["payer"],
        "dollars": _dollars(cents),
        "percent": str(percent),
    }
    return _Plan(slots, (match,))


def _merge_duplicates(b: _Books) -> _Plan:
    keep = b.customers[0]
    first, last = keep["name"].split(" ")
    number, j = b.number, len(b.customers) + 1
    misspelled = f"{_typo(first, b.rng)} {last}"
    email = keep["email"][0].upper() + keep["email"][1:]  # the same address, typed again
    duplicate = _customer(number, j, misspelled, email, "2025-11-03")
    # the duplicate takes a random place among the look-alikes' ids
    position = 1 + int(b.rng.integers(len(b.customers)))
    b.customers.insert(position, duplicate)
    for k, c in enumerate(b.customers[1:], start=2):
        c["customer_id"] = f"CUS-{number}-{k}"
    merge = _call(
        "merge_customers", customer_id=keep["customer_id"], duplicate_id=duplicate["customer_id"]
    )
    slots = {
        "customer": keep["customer_id"],
        "name": keep["name"],
        "email": keep["email"],
        "dup_name": misspelled,
    }
    return _Plan(slots, (merge,))


def _duplicate_payment(b: _Books) -> _Plan:
    a = int(b.rng.integers(3))
    original, copy = b.payments[a], b.payments[a + 1 + int(b.rng.integers(3 - a))]
    copy.update(
        payer=original["payer"],
        amount_cents=original["amount_cents"],
        received=original["received"],
    )
    flag = _call("flag_record", record_id=copy["payment_id"], flag="duplicate")
    slots = {
        "payment": copy["payment_id"],
        "original": original["payment_id"],
        "payer": original["payer"],
        "dollars": _dollars(original["amount_cents"]),
    }
    return _Plan(slots, (flag,))


def _unidentified_payment(b: _Books) -> _Plan:
    payer = _pick(b.rng, _UNKNOWN_PAYERS)
    cents = int(b.rng.integers(2000, 60000))
    payment = _payment(b.number, len(b.payments) + 1, payer, cents, _day(b.rng))
    b.payments.append(payment)
    flag = _call("flag_record", record_id=payment["payment_id"], flag="unidentified")
    slots = {"payment": payment["payment_id"], "payer": payer, "dollars": _dollars(cents)}
    return _Plan(slots, (flag,))


def _ledger(direction: str, b: _Books) -> _Plan:
    _statement(b)  # the line to reconcile is one of the statement's
    line = _pick(b.rng, b.lines)
    if direction == "debit":
        fee = _pick(b.rng, _FEES)
        cents, description = int(b.rng.integers(500, 4500)), fee.capitalize()
    else:
        fee, cents, description = "", int(b.rng.integers(50, 3000)), "Interest earned"
    line.update(description=description, direction=direction, amount_cents=cents, flag=None)
    sign = -1 if direction == "debit" else 1
    post = _call("post_adjustment", account_id=line["account_id"], amount_cents=sign * cents)
    mark = _call("flag_record", record_id=line["line_id"], flag="reconciled")
    slots = {
        "line": line["line_id"],
        "account": line["account_id"],
        "dollars": _dollars(cents),
        "fee": fee,
    }
    return _Plan(slots, (post, mark))


_PLANS: dict[str, Callable[[_Books], _Plan]] = {
    "match_invoice": _match_invoice,
    "split_payment": _split_payment,
    "early_discount": _early_discount,
    "merge_duplicates": _merge_duplicates,
    "duplicate_payment": _duplicate_payment,
    "unidentified_payment": _unidentified_payment,
    "bank_fee": lambda b: _ledger("debit", b),
    "interest_credit": lambda b: _ledger("credit", b),
}


def generate(family_id: str, split: str, split_base: int, index: int, seed: int) -> Task:
    """Task ``index`` of ``split``; ids carry ``split_base + index`` so splits never share one.

    ``index`` picks the kind (cycling through ``KINDS``); successive tasks of one kind
    alternate between its phrasings.
    """
    rng = np.random.default_rng([seed, index])
    kind = KINDS[index % len(KINDS)]
    number = split_base + index
    books = _books(rng, number)
    plan = _PLANS[kind](books)
    if not books.lines:  # a kind that does not act on the statement: deposits as they stand now
        _statement(books)
    phrasings = PHRASINGS[kind]
    template = phrasings[(seed + index // len(KINDS)) % len(phrasings)]
    instruction = template.format(**plan.slots)
    account = {
        "account_id": f"ACC-{number}",
        "name": "Operating account",
        "balance_cents": int(rng.integers(200000, 2000000)),
    }
    state = {
        "customers": {c["customer_id"]: c for c in books.customers},
        "invoices": {i["invoice_id"]: i for i in books.invoices},
        "payments": {p["payment_id"]: p for p in books.payments},
        "accounts": {account["account_id"]: account},
        "statement_lines": {line["line_id"]: line for line in books.lines},
        "matches": books.matches,
        "adjustments": [],
    }
    return numbered_task(
        family=family_id,
        split=split,
        index=index,
        seed=seed,
        generator_version=GENERATOR_VERSION,
        kind=kind,
        instruction=instruction,
        initial_state=state,
        reference_calls=plan.calls,
    )

"""The reconciliation generator: seeded, every kind and phrasing drawn, splits that share no
record, tables whose messiness varies, ids that make an identifier swap bite, and references
that do what the instructions ask."""

import re
from collections.abc import Iterator
from itertools import combinations

import pytest

from benchmark import BenchmarkError, Task
from benchmark.reconciliation import (
    KINDS,
    LEDGER_KINDS,
    MATCH_KINDS,
    RECORD_KINDS,
    Reconciliation,
)
from benchmark.reconciliation._generator import DISCOUNT_PERCENTS
from benchmark.reconciliation._phrasings import PHRASINGS
from benchmark.reconciliation._tools import ID_PIVOT
from drift import IdentifierSwap, ToolCall

FAMILY = Reconciliation()
SEALED = FAMILY.tasks("sealed", 48, 3)
_TABLES = ("customers", "invoices", "payments", "accounts", "statement_lines")


def _phrasings(task: Task) -> list[int]:
    """The phrasings of its kind that ``task``'s instruction fills in."""
    out = []
    for i, template in enumerate(PHRASINGS[task.kind]):
        pattern = re.sub(r"\\\{\w+\\\}", ".+?", re.escape(template))
        if re.fullmatch(pattern, task.instruction):
            out.append(i)
    return out


def _number(task: Task) -> str:
    (account_id,) = task.initial_state["accounts"]
    return account_id.removeprefix("ACC-")


def _record_ids(tasks: list[Task]) -> Iterator[str]:
    for task in tasks:
        for table in _TABLES:
            yield from task.initial_state[table]


def test_generation_is_deterministic() -> None:
    assert FAMILY.tasks("sealed", 8, 42) == FAMILY.tasks("sealed", 8, 42)


def test_sealed_splits_depend_on_the_cycle_seed_and_public_ones_do_not() -> None:
    assert FAMILY.tasks("sealed", 8, 1) != FAMILY.tasks("sealed", 8, 2)
    assert FAMILY.tasks("adapt", 8, 1) != FAMILY.tasks("adapt", 8, 2)
    assert FAMILY.tasks("dev", 8, 1) == FAMILY.tasks("dev", 8, 2)
    assert FAMILY.tasks("examples", 8, 1) == FAMILY.tasks("examples", 8, 2)


def test_the_splits_share_no_task_instruction_or_record() -> None:
    assert set(FAMILY.splits) == {"dev", "sealed", "adapt", "examples"}
    assert FAMILY.examples_split == "examples"
    by_split = {s: FAMILY.tasks(s, 40, 7) for s in FAMILY.splits}
    for a, b in combinations(FAMILY.splits, 2):
        assert not {t.id for t in by_split[a]} & {t.id for t in by_split[b]}, (a, b)
        assert not {t.instruction for t in by_split[a]} & {t.instruction for t in by_split[b]}
        assert not set(_record_ids(by_split[a])) & set(_record_ids(by_split[b])), (a, b)


def test_an_unknown_split_or_an_index_out_of_range_is_refused() -> None:
    with pytest.raises(BenchmarkError, match="no split 'test'"):
        FAMILY.generate("test", 0, 1)
    with pytest.raises(BenchmarkError, match="out of range"):
        FAMILY.generate("dev", 10000, 1)


def test_the_kinds_are_matching_records_and_ledger() -> None:
    assert KINDS == MATCH_KINDS + RECORD_KINDS + LEDGER_KINDS
    assert len(set(KINDS)) == len(KINDS) >= 3
    assert {t.kind for t in FAMILY.tasks("sealed", 24, 5)} == set(KINDS)


def test_every_instruction_fills_in_exactly_one_phrasing_of_its_kind() -> None:
    assert all(len(_phrasings(t)) == 1 for t in SEALED)


def test_every_kind_is_asked_in_at_least_two_phrasings() -> None:
    for kind in KINDS:
        assert len({tuple(_phrasings(t)) for t in SEALED if t.kind == kind}) >= 2, kind


def test_how_messy_the_books_are_varies() -> None:
    """Look-alike customers, payments from other payers and statement lines: each count takes
    several values, so tasks differ in how many distractors surround the records acted on."""
    state = [t.initial_state for t in SEALED if t.kind in MATCH_KINDS]
    lookalikes = {len(s["customers"]) - 1 for s in state}
    payments = {len(s["payments"]) for s in state}
    lines = {len(s["statement_lines"]) for s in state}
    assert lookalikes == {1, 2, 3}
    assert payments == {4, 5, 6}
    assert lines == {4, 5, 6, 7}


@pytest.mark.parametrize("task", SEALED, ids=lambda t: t.id)
def test_ids_follow_the_scheme_and_the_customer_has_four_invoices(task: Task) -> None:
    n, state = _number(task), task.initial_state
    assert list(state["invoices"]) == [f"INV-{n}-{j}" for j in (1, 2, 3, 4)]
    assert {i["customer_id"] for i in state["invoices"].values()} == {f"CUS-{n}-1"}
    assert all(p.startswith(f"PAY-{n}-") for p in state["payments"])
    assert all(line.startswith(f"BSL-{n}-") for line in state["statement_lines"])
    assert all(c.startswith(f"CUS-{n}-") for c in state["customers"])


def test_a_pivot_5_id_swap_maps_every_invoice_to_another_invoice_of_the_customer() -> None:
    swap = IdentifierSwap(tool="match_payment", field="invoice_id", pivot=ID_PIVOT)
    for task in SEALED:
        invoices = set(task.initial_state["invoices"])
        for invoice_id in invoices:
            call = ToolCall(name="match_payment", arguments={"invoice_id": invoice_id})
            swapped = swap.call_to_new(call).arguments["invoice_id"]
            assert swapped in invoices and swapped != invoice_id


def _calls(kinds: tuple[str, ...]) -> list[tuple[Task, tuple[ToolCall, ...]]]:
    return [(t, t.reference_calls) for t in SEALED if t.kind in kinds]


def test_a_matched_payment_is_applied_to_the_invoice_the_instruction_names() -> None:
    for task, (match,) in _calls(MATCH_KINDS):
        args, state = match.arguments, task.initial_state
        assert match.name == "match_payment"
        assert args["invoice_id"] in task.instruction and args["payment_id"] in task.instruction
        invoice, payment = (
            state["invoices"][args["invoice_id"]],
            state["payments"][args["payment_id"]],
        )
        assert args["amount_cents"] == payment["amount_cents"]
        discount = round(invoice["amount_due_cents"] * args.get("discount_rate", 0))
        assert (
            invoice["paid_cents"] + args["amount_cents"] + discount == invoice["amount_due_cents"]
        )


def test_an_early_payment_states_its_percent_and_a_split_one_its_first_installment() -> None:
    for task, (match,) in _calls(("early_discount",)):
        percent = round(match.arguments["discount_rate"] * 100)
        assert percent in DISCOUNT_PERCENTS
        assert f"{percent}% early-payment discount" in task.instruction
    for task, (match,) in _calls(("split_payment",)):
        (first,) = task.initial_state["matches"]
        assert first["invoice_id"] == match.arguments["invoice_id"]
        assert first["payment_id"] in task.instruction
        assert task.instruction.index(match.arguments["payment_id"]) < task.instruction.index(
            first["payment_id"]
        )


def test_a_duplicate_customer_shares_the_email_and_is_newer_than_the_record_kept() -> None:
    for task, (merge,) in _calls(("merge_duplicates",)):
        customers = task.initial_state["customers"]
        keep, dup = (
            customers[merge.arguments["customer_id"]],
            customers[merge.arguments["duplicate_id"]],
        )
        assert keep["customer_id"] in task.instruction
        assert dup["customer_id"] not in task.instruction  # found through the email
        assert keep["email"] in task.instruction
        assert dup["email"].lower() == keep["email"] and dup["email"] != keep["email"]
        assert dup["name"] != keep["name"] and dup["created"] > keep["created"]
        same_email = [c for c in customers.values() if c["email"].lower() == keep["email"]]
        assert len(same_email) == 2


def test_a_flagged_payment_is_the_first_one_the_instruction_names() -> None:
    for task, (flag,) in _calls(("duplicate_payment", "unidentified_payment")):
        record = flag.arguments["record_id"]
        assert re.findall(r"PAY-\d+-\d+", task.instruction)[0] == record
        assert flag.arguments["flag"] == {"duplicate_payment": "duplicate"}.get(
            task.kind, "unidentified"
        )
    for task, (flag,) in _calls(("duplicate_payment",)):
        payments = task.initial_state["payments"]
        copy = payments[flag.arguments["record_id"]]
        (original,) = (
            p
            for p in payments.values()
            if p is not copy and p["amount_cents"] == copy["amount_cents"]
        )
        assert original["payment_id"] in task.instruction
        assert (original["payer"], original["received"]) == (copy["payer"], copy["received"])


@pytest.mark.parametrize(
    ("kind", "word", "sign"), [("bank_fee", "debit", -1), ("interest_credit", "credit", 1)]
)
def test_a_ledger_adjustment_carries_the_sign_of_its_direction_then_reconciles_the_line(
    kind: str, word: str, sign: int
) -> None:
    assert all(word in p for p in PHRASINGS[kind])
    for task, (post, mark) in _calls((kind,)):
        line = task.initial_state["statement_lines"][mark.arguments["record_id"]]
        assert line["direction"] == word and line["flag"] is None
        assert post.arguments == {
            "account_id": line["account_id"],
            "amount_cents": sign * line["amount_cents"],
        }
        assert mark.arguments["flag"] == "reconciled"
        assert line["line_id"] in task.instruction

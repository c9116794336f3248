"""What a sim model knows about reconciliation: a knowledge pack, declared.

Read by the sim engine (``benchmark.sim``), which knows no family. Nothing here looks at a
task's answer: it says how requests are phrased, what they need, and what tools are called.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from benchmark.sim import Action, FromResult, Kind, KnowledgePack, Slot, Step

_EMAIL = r"[\w.+-]+@[\w-]+\.[\w.]+\w"
_MONEY = r"\$(\d+(?:\.\d{1,2})?)"

_INVOICE = {"invoice": 3, "id": 1, "number": 1}
_AMOUNT = {"amount": 3, "cents": 2, "dollars": 2, "sum": 1, "value": 1}

ACTIONS = {
    "find_customers": Action(
        {"find": 2, "customers": 2, "customer": 2, "search": 1},
        {"email": {"email": 3, "query": 2, "search": 1, "address": 1}},
    ),
    "get_invoice": Action({"invoice": 2, "get": 2, "fetch": 2}, {"invoice": _INVOICE}),
    "get_statement_line": Action(
        {"statement": 3, "line": 2, "bank": 1}, {"line": {"line": 3, "statement": 1, "id": 1}}
    ),
    "match": Action(
        {"match": 3, "apply": 2, "payment": 1},
        {
            "invoice": _INVOICE,
            "payment": {"payment": 3, "id": 1},
            "amount": {**_AMOUNT, "apply": 1},
            "rate": {"discount": 3, "rate": 3, "percent": 1, "fraction": 1},
        },
    ),
    "merge": Action(
        {"merge": 3, "combine": 2, "duplicate": 1},
        {
            "customer": {"keep": 3, "kept": 3, "customer": 2, "id": 1},
            "duplicate": {"duplicate": 3, "merged": 1},
        },
    ),
    "post_adjustment": Action(
        {"adjustment": 3, "post": 2, "ledger": 2, "adjust": 2},
        {"account": {"account": 3, "ledger": 1, "id": 1}, "amount": _AMOUNT},
    ),
    "flag": Action(
        {"flag": 3, "mark": 2},
        {
            "record": {"record": 3, "id": 1, "line": 1, "payment": 1},
            "flag": {"flag": 3, "status": 1, "code": 1},
        },
    ),
}

CONCEPTS = {
    "reconciled": {"reconciled": 3, "agrees": 1, "posted": 1, "booked": 1, "fee": 1, "interest": 1},
    "duplicate": {"duplicate": 3, "twice": 2, "double": 2, "copy": 1, "same": 1, "again": 1},
    "unidentified": {"unidentified": 3, "unknown": 2, "nobody": 2, "trace": 1, "who": 1},
    "needs_review": {"review": 3, "needs": 1},
}

_payment = Slot("id", stated=r"\bPAY-\d+-\d+\b")
_invoice = Slot("id", stated=r"\bINV-\d+-\d+\b", keyed=FromResult("get_invoice", ("invoice", "id")))
_line = Slot("id", stated=r"\bBSL-\d+-\d+\b")


def _match(name: str, cues: dict[str, int], amount: Slot, **slots: Slot) -> Kind:
    args = {"invoice": "invoice", "payment": "payment", "amount": "amount"}
    return Kind(
        name,
        cues,
        {"invoice": _invoice, "payment": _payment, "amount": amount, **slots},
        (Step("match", {**args, **{s: s for s in slots}}, core=True),),
    )


def _flag_payment(name: str, cues: dict[str, int], concept: str) -> Kind:
    return Kind(
        name,
        cues,
        {"payment": _payment, "flag": Slot("code", concept=concept, fallback="needs_review")},
        (Step("flag", {"record": "payment", "flag": "flag"}, core=True),),
    )


def _ledger(name: str, cues: dict[str, int], amount: Slot) -> Kind:
    return Kind(
        name,
        cues,
        {
            "account": Slot("id", stated=r"\bACC-\d+\b"),
            "line": _line,
            "amount": amount,
            "flag": Slot("code", concept="reconciled"),
        },
        (
            Step("post_adjustment", {"account": "account", "amount": "amount"}, core=True),
            Step("flag", {"record": "line", "flag": "flag"}),
        ),
    )


KINDS = (
    Kind(
        "merge_duplicates",
        {"merge": 3, "combine": 3, "misspelled": 2, "person": 1, "record": 1, "duplicate": 1},
        {
            "customer": Slot("id", stated=r"\bCUS-\d+-\d+\b"),
            "email": Slot("email", stated=_EMAIL),
            "duplicate": Slot(
                "id", results=(FromResult("find_customers", ("customer", "ids"), pick="latest"),)
            ),
        },
        (Step("merge", {"customer": "customer", "duplicate": "duplicate"}, core=True),),
    ),
    _flag_payment(
        "duplicate_payment",
        {"twice": 3, "second": 2, "copy": 2, "duplicate": 2, "import": 1, "imported": 1},
        "duplicate",
    ),
    _flag_payment(
        "unidentified_payment",
        {
            "unidentified": 3,
            "trace": 3,
            "unknown": 3,
            "nobody": 2,
            "investigate": 2,
            "investigation": 2,
            "who": 1,
        },
        "unidentified",
    ),
    _match(
        "split_payment",
        {"installment": 3, "installments": 3, "remaining": 2, "left": 1, "open": 1, "second": 1},
        Slot("money", stated=_MONEY, results=(FromResult("get_invoice", ("balance",)),)),
    ),
    _match(
        "early_discount",
        {"discount": 3, "early": 2, "off": 1},
        Slot("money", stated=_MONEY),
        rate=Slot("percent", stated=r"(\d+(?:\.\d+)?) ?(?:%|percent\b|per cent\b)"),
    ),
    _match(
        "match_invoice",
        {"full": 2, "completely": 2, "clears": 2, "due": 1, "owed": 1, "pays": 1, "covers": 1},
        Slot("money", stated=_MONEY),
    ),
    _ledger(
        "bank_fee",
        {"fee": 3, "charged": 1, "debit": 2},
        Slot("signed", stated=_MONEY, direction="debit"),
    ),
    _ledger(
        "interest_credit",
        {"interest": 3, "earned": 1, "credit": 2},
        Slot(
            "signed",
            stated=_MONEY,
            results=(FromResult("get_statement_line", ("amount",)),),
            direction="credit",
        ),
    ),
)


@cache
def _remembered() -> dict[str, dict[str, Any]]:
    """The tools as a model trained on reconciliation@1 remembers them."""
    from benchmark.reconciliation._tools import base_tools

    return {t.name: t.to_openai()["function"] for t in base_tools().tools}


PACK = KnowledgePack(
    family="reconciliation",
    actions=ACTIONS,
    kinds=KINDS,
    concepts=CONCEPTS,
    directions={"credit": ("credit", "credits"), "debit": ("debit", "debits")},
    remembered=_remembered,
)

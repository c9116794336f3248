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
_MARK = r"(?:mark|flag) the (?:statement )?line"

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
    "reconciled": {"reconciled": 3, "agrees": 1},
    "duplicate": {"duplicate": 3, "twice": 2, "double": 2, "copy": 1},
    "unidentified": {"unidentified": 3, "unknown": 2, "trace": 1},
    "needs_review": {"review": 3, "needs": 1},
}

_payment = Slot("id", stated=r"\bPAY-\d+-\d+\b")
_invoice = Slot("id", stated=r"\bINV-\d+-\d+\b", keyed=FromResult("get_invoice", ("invoice", "id")))
_line = Slot("id", stated=r"\bBSL-\d+-\d+\b")


def _match(name: str, triggers: tuple[str, ...], amount: Slot, **slots: Slot) -> Kind:
    args = {"invoice": "invoice", "payment": "payment", "amount": "amount"}
    return Kind(
        name,
        triggers,
        {"invoice": _invoice, "payment": _payment, "amount": amount, **slots},
        (Step("match", {**args, **{s: s for s in slots}}, core=True),),
    )


def _flag_payment(name: str, triggers: tuple[str, ...], concept: str) -> Kind:
    return Kind(
        name,
        triggers,
        {"payment": _payment, "flag": Slot("code", concept=concept, fallback="needs_review")},
        (Step("flag", {"record": "payment", "flag": "flag"}, core=True),),
    )


def _ledger(name: str, triggers: tuple[str, ...], amount: Slot) -> Kind:
    return Kind(
        name,
        triggers,
        {
            "account": Slot("id", stated=r"\bACC-\d+\b"),
            "line": _line,
            "amount": amount,
            "flag": Slot("code", concept="reconciled"),
        },
        (
            Step("post_adjustment", {"account": "account", "amount": "amount"}, core=True),
            Step("flag", {"record": "line", "flag": "flag"}, stated=_MARK),
        ),
    )


KINDS = (
    Kind(
        "merge_duplicates",
        (r"\bmerge\b",),
        {
            "customer": Slot("id", stated=r"\bCUS-\d+-\d+\b"),
            "email": Slot("email", stated=_EMAIL),
            "duplicate": Slot(
                "id", results=(FromResult("find_customers", ("customer", "ids"), pick="last"),)
            ),
        },
        (Step("merge", {"customer": "customer", "duplicate": "duplicate"}, core=True),),
    ),
    _flag_payment("duplicate_payment", (r"second import", r"\btwice\b"), "duplicate"),
    _flag_payment(
        "unidentified_payment",
        (r"matches no customer", r"can(?:not|'t)? trace", r"unidentified"),
        "unidentified",
    ),
    _match(
        "split_payment",
        (r"installment",),
        Slot("money", stated=_MONEY, results=(FromResult("get_invoice", ("balance",)),)),
    ),
    _match(
        "early_discount",
        (r"early-payment discount",),
        Slot("money", stated=_MONEY),
        rate=Slot("percent", stated=r"(\d+(?:\.\d+)?) ?%"),
    ),
    _match(
        "match_invoice", (r"pays invoice", r"amount due on invoice"), Slot("money", stated=_MONEY)
    ),
    _ledger("bank_fee", (r"\bfee\b",), Slot("signed", stated=_MONEY, direction="debit")),
    _ledger(
        "interest_credit",
        (r"\binterest\b",),
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

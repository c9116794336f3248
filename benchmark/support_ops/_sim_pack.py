"""What a sim model knows about support operations: a knowledge pack, declared.

Read by the sim engine (``benchmark.sim``), which knows no family. Nothing here looks at a
task's answer: it says how requests are phrased, what they need, and what tools are called.
"""

from __future__ import annotations

from functools import cache
from typing import Any

from benchmark.sim import (
    Action,
    FromResult,
    Kind,
    KnowledgePack,
    LineTotal,
    Slot,
    Step,
)

_EMAIL = r"[\w.+-]+@[\w-]+\.[\w.]+\w"
_MONEY = r"\$(\d+(?:\.\d{1,2})?)"
_CLOSE = r"close (?:the|this|their|that) ticket|close it\b"
_ID = {"id": 1, "number": 1, "ref": 1}

_ORDER = {"order": 3, **_ID}
_CUSTOMER = {"customer": 3, "id": 1}
_TICKET = {"ticket": 3, "id": 1}
_AMOUNT = {"amount": 3, "cents": 2, "dollars": 2, "sum": 1, "value": 1, "money": 1}

ACTIONS = {
    "find_customer": Action(
        {"customer": 2, "find": 2, "email": 1, "lookup": 1, "search": 1},
        {"email": {"email": 3, "mail": 2, "address": 1}},
    ),
    "get_order": Action({"order": 2, "get": 2, "fetch": 2, "read": 1}, {"order": _ORDER}),
    "refund": Action(
        {"refund": 3, "reimburse": 2},
        {
            "order": _ORDER,
            "amount": _AMOUNT,
            "reason": {"reason": 3, "cause": 2, "code": 1, "why": 1},
            "notify": {"notify": 3, "confirmation": 1, "confirm": 1},
        },
    ),
    "close": Action(
        {"close": 3, "resolve": 2, "ticket": 1},
        {"ticket": _TICKET, "resolution": {"resolution": 3, "outcome": 2, "code": 1}},
    ),
    "update_account": Action(
        {"update": 2, "account": 2, "change": 2, "modify": 2, "edit": 2},
        {"customer": _CUSTOMER, "new_email": {"email": 3, "mail": 2, "address": 1, "new": 1}},
    ),
    "adjust_balance": Action(
        {"balance": 3, "adjust": 3, "adjustment": 2},
        {"customer": _CUSTOMER, "amount": {**_AMOUNT, "adjustment": 2}},
    ),
    "set_discount": Action(
        {"discount": 3, "loyalty": 1, "set": 1},
        {"customer": _CUSTOMER, "rate": {"rate": 3, "discount": 2, "percent": 1, "fraction": 1}},
    ),
    "schedule_callback": Action(
        {"callback": 3, "schedule": 2, "call": 1},
        {"ticket": _TICKET, "when": {"at": 2, "time": 2, "when": 2, "callback": 1}},
    ),
}

CONCEPTS = {
    "duplicate": {"duplicate": 3, "double": 2, "twice": 2, "charged": 1, "charge": 1},
    "damaged": {"damaged": 3, "damage": 2, "broken": 2},
    "late": {"late": 3, "delay": 2, "delayed": 2, "delivery": 1},
    "goodwill": {"goodwill": 3},
    "refunded": {"refunded": 3},
    "account_updated": {"account": 2, "updated": 2},
    "escalated": {"escalated": 3, "escalate": 2},
    "no_action": {"action": 2, "no": 1, "none": 2},
}

_ticket = Slot("id", stated=r"\bTCK-\d+\b")
_email = Slot("email", stated=_EMAIL)
_customer = Slot("id", results=(FromResult("find_customer", ("customer", "id")),))
_order = Slot(
    "id",
    stated=r"\bORD-\d+-\d+\b",
    results=(FromResult("find_customer", ("order",), pick="last"),),
    keyed=FromResult("get_order", ("order", "id")),
)


def _resolution(concept: str, stated: str | None = None) -> Slot:
    return Slot("code", concept=concept, stated=stated)


def _reason(concept: str) -> Slot:
    return Slot("code", concept=concept, fallback="goodwill")


def _refund(name: str, triggers: tuple[str, ...], reason: str, amount: Slot) -> Kind:
    return Kind(
        name,
        triggers,
        {
            "ticket": _ticket,
            "email": _email,
            "order": _order,
            "item": Slot("text", stated=r"(?:the|every) ([A-Z][\w-]*(?: [A-Z][\w-]*)*)"),
            "amount": amount,
            "reason": _reason(reason),
            "notify": Slot("flag", value=True),
            "resolution": _resolution("refunded"),
        },
        (
            Step(
                "refund",
                {"order": "order", "amount": "amount", "reason": "reason", "notify": "notify"},
                core=True,
            ),
            Step("close", {"ticket": "ticket", "resolution": "resolution"}, stated=_CLOSE),
        ),
    )


def _account(name: str, triggers: tuple[str, ...], step: Step, **slots: Slot) -> Kind:
    return Kind(
        name,
        triggers,
        {
            "ticket": _ticket,
            "email": _email,
            "customer": _customer,
            "resolution": _resolution("account_updated"),
            **slots,
        },
        (step, Step("close", {"ticket": "ticket", "resolution": "resolution"}, stated=_CLOSE)),
    )


_BALANCE = Step("adjust_balance", {"customer": "customer", "amount": "amount"}, core=True)


KINDS = (
    Kind(
        "withdrawn",
        (r"withdr[ae]w", r"no refund is due", r"with no action"),
        {"ticket": _ticket, "resolution": _resolution("no_action", stated=r"no action")},
        (Step("close", {"ticket": "ticket", "resolution": "resolution"}, core=True),),
    ),
    Kind(
        "escalate_callback",
        (r"escalat", r"call(?:ed)? back|callback"),
        {
            "ticket": _ticket,
            "when": Slot(
                "instant",
                stated=r"\d{4}-\d{2}-\d{2} at \d{1,2}:\d{2} UTC(?:[+-]\d{2}:\d{2})?"
                r"|\d{1,2}:\d{2} UTC(?:[+-]\d{2}:\d{2})? on \d{4}-\d{2}-\d{2}",
            ),
            "resolution": _resolution("escalated"),
        },
        (
            Step("schedule_callback", {"ticket": "ticket", "when": "when"}, core=True),
            Step("close", {"ticket": "ticket", "resolution": "resolution"}, stated=r"escalat"),
        ),
    ),
    _account(
        "change_email",
        (r"chang.{0,30}email", r"email.{0,20}chang", r"new email", r"email address to"),
        Step("update_account", {"customer": "customer", "new_email": "new_email"}, core=True),
        new_email=Slot("email", stated=rf"\bto ({_EMAIL})"),
    ),
    _account(
        "account_debit",
        (r"\bdebit\b",),
        _BALANCE,
        amount=Slot("signed", stated=_MONEY, direction="debit"),
    ),
    _account(
        "account_credit",
        (r"\bcredit\b",),
        _BALANCE,
        amount=Slot("signed", stated=_MONEY, direction="credit"),
    ),
    _account(
        "loyalty_discount",
        (r"discount",),
        Step("set_discount", {"customer": "customer", "rate": "rate"}, core=True),
        rate=Slot("percent", stated=r"(\d+(?:\.\d+)?) ?%"),
    ),
    _refund(
        "refund_duplicate",
        (r"twice", r"identical charges", r"duplicate", r"double charge"),
        "duplicate",
        Slot("money", stated=_MONEY),
    ),
    _refund(
        "refund_late",
        (r"\blate\b", r"delayed"),
        "late",
        Slot("money", results=(FromResult("get_order", ("shipping",)),)),
    ),
    _refund(
        "refund_damaged",
        (r"damaged", r"broken"),
        "damaged",
        Slot("money", derive=LineTotal("get_order", rows="items", match="item")),
    ),
)


@cache
def _remembered() -> dict[str, dict[str, Any]]:
    """The tools as a model trained on support-ops@1 remembers them."""
    from benchmark.support_ops._tools import base_tools

    return {t.name: t.to_openai()["function"] for t in base_tools().tools}


PACK = KnowledgePack(
    family="support_ops",
    actions=ACTIONS,
    kinds=KINDS,
    concepts=CONCEPTS,
    directions={
        "credit": ("credit", "credits", "increase", "add"),
        "debit": ("debit", "debits", "decrease", "charge"),
    },
    remembered=_remembered,
)

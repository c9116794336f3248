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
_PERCENT = r"(\d+(?:\.\d+)?) ?(?:%|percent\b|per cent\b)"
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
            "credit": {"store": 3, "credit": 3},
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
    "duplicate": {
        "duplicate": 3,
        "double": 2,
        "twice": 2,
        "charged": 1,
        "charge": 1,
        "billed": 1,
        "two": 1,
        "times": 1,
        "extra": 1,
        "again": 1,
    },
    "damaged": {
        "damaged": 3,
        "damage": 2,
        "broken": 2,
        "smashed": 2,
        "cracked": 2,
        "defective": 2,
        "pieces": 1,
    },
    "late": {
        "late": 3,
        "delay": 2,
        "delayed": 2,
        "overdue": 2,
        "delivery": 1,
        "promised": 1,
        "date": 1,
        "days": 1,
    },
    "goodwill": {"goodwill": 3},
    "refunded": {"refunded": 3},
    "account_updated": {"account": 2, "updated": 2},
    "escalated": {"escalated": 3, "escalate": 2},
    "no_action": {"action": 2, "no": 1, "none": 2, "nothing": 1},
}

_ticket = Slot("id", stated=r"\bTCK-\d+\b")
_email = Slot("email", stated=_EMAIL)
_customer = Slot("id", results=(FromResult("find_customer", ("customer", "id")),))
_order = Slot(
    "id",
    stated=r"\bORD-\d+-\d+\b",
    results=(FromResult("find_customer", ("order",), pick="latest"),),
    keyed=FromResult("get_order", ("order", "id")),
)


def _resolution(concept: str) -> Slot:
    return Slot("code", concept=concept)


def _reason(concept: str) -> Slot:
    return Slot("code", concept=concept, fallback="goodwill")


def _refund(name: str, cues: dict[str, int], reason: str, amount: Slot) -> Kind:
    return Kind(
        name,
        cues,
        {
            "ticket": _ticket,
            "email": _email,
            "order": _order,
            "item": Slot("text", stated=r"(?:the|every) ([A-Z][\w-]*(?: [A-Z][\w-]*)*)"),
            "amount": amount,
            "reason": _reason(reason),
            "notify": Slot("flag", value=True),
            # a refund goes back to the payment method, not to store credit (requests never
            # ask for credit): an option the model writes only where it knows the field
            "credit": Slot("flag", value=False),
            "resolution": _resolution("refunded"),
        },
        (
            Step(
                "refund",
                {
                    "order": "order",
                    "amount": "amount",
                    "reason": "reason",
                    "notify": "notify",
                    "credit": "credit",
                },
                core=True,
            ),
            Step("close", {"ticket": "ticket", "resolution": "resolution"}),
        ),
    )


def _account(name: str, cues: dict[str, int], step: Step, **slots: Slot) -> Kind:
    return Kind(
        name,
        cues,
        {
            "ticket": _ticket,
            "email": _email,
            "customer": _customer,
            "resolution": _resolution("account_updated"),
            **slots,
        },
        (step, Step("close", {"ticket": "ticket", "resolution": "resolution"})),
    )


_BALANCE = Step("adjust_balance", {"customer": "customer", "amount": "amount"}, core=True)


KINDS = (
    Kind(
        "withdrawn",
        {
            "withdraw": 3,
            "withdrawn": 3,
            "withdrew": 3,
            "complaint": 1,
            "action": 2,
            "nothing": 1,
            "longer": 1,
        },
        {"ticket": _ticket, "resolution": _resolution("no_action")},
        (Step("close", {"ticket": "ticket", "resolution": "resolution"}, core=True),),
    ),
    Kind(
        "escalate_callback",
        {
            "escalate": 3,
            "escalated": 3,
            "escalation": 3,
            "supervisor": 2,
            "senior": 2,
            "phone": 2,
            "callback": 2,
        },
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
            Step("close", {"ticket": "ticket", "resolution": "resolution"}),
        ),
    ),
    _account(
        "change_email",
        {"email": 2, "address": 1, "account": 1, "mail": 1, "change": 1, "new": 1, "swap": 1},
        Step("update_account", {"customer": "customer", "new_email": "new_email"}, core=True),
        new_email=Slot("email", stated=rf"\b(?:to|for|with|set)\s+({_EMAIL})"),
        # the account's email: the one the request does not give as the new one
        email=Slot("email", stated=rf"(?<!to )(?<!for )(?<!with )(?<!set )(?<![\w.+-])({_EMAIL})"),
    ),
    _account(
        "account_debit",
        {"debit": 3, "owes": 2, "recover": 2, "much": 1, "back": 1, "mistake": 1, "charge": 1},
        _BALANCE,
        amount=Slot("signed", stated=_MONEY, direction="debit"),
    ),
    _account(
        "account_credit",
        {"credit": 3, "goodwill": 2, "apology": 1, "gesture": 1, "add": 1, "top": 1},
        _BALANCE,
        amount=Slot("signed", stated=_MONEY, direction="credit"),
    ),
    _account(
        "loyalty_discount",
        {"discount": 3, "loyalty": 2, "loyal": 2, "off": 1},
        Step("set_discount", {"customer": "customer", "rate": "rate"}, core=True),
        rate=Slot("percent", stated=_PERCENT),
    ),
    _refund(
        "refund_duplicate",
        {
            "duplicate": 3,
            "twice": 3,
            "double": 2,
            "identical": 2,
            "two": 1,
            "billed": 1,
            "charged": 1,
            "charge": 1,
            "extra": 1,
        },
        "duplicate",
        Slot("money", stated=_MONEY),
    ),
    _refund(
        "refund_late",
        {"late": 3, "delayed": 3, "delay": 2, "promised": 1, "shipping": 1, "delivery": 1},
        "late",
        Slot("money", results=(FromResult("get_order", ("shipping",)),)),
    ),
    _refund(
        "refund_damaged",
        {"damaged": 3, "broken": 3, "smashed": 3, "cracked": 3, "pieces": 3, "defective": 3},
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

# ruff: noqa: E501  (playbook lines are written one step per line, as people write them)
"""The counterfactual suite's wordings (issue 25, item 6): pairs of artifacts that differ in
what they say or only in how they say it, in every family and artifact form.

Written before the engine that reads them, the way people write playbooks, skills and
memories — not in the phrasings of the families' generators or of the sim's packs. Each case
names its relation to a reference (``RELATIONS``); ``tests/benchmark/sim/_suite.py`` runs them
and checks the direction, ``bench/sim_counterfactuals.py`` prints the full-size table. The
``*-heldout`` cases take their wordings from ``heldout.py``, written later, before the reader was
changed for this suite's misses.
"""

from __future__ import annotations

import json
import re
from dataclasses import dataclass
from functools import cache
from typing import Any, Literal

from benchmark import Task, family
from benchmark.harness import AgentArtifacts, AgentSkill, Episode, Recipe, TrajectorySet, TypedSkill
from drift import ToolCall
from submissions import reference_dir
from tests._skills import SKILLS, reference_contract, reference_skill
from tests.benchmark.sim import heldout

Relation = Literal[
    "same",
    "opposite",
    "stuffing",
    "irrelevant",
    "forbid",
    "scope",
    "provenance",
    "unlearned",
    "impossible",
]
RELATIONS: dict[str, str] = {
    "same": "same meaning in other words: reaches >= 80% of the reference's gain",
    "opposite": "opposite meaning: the gain has the other sign",
    "stuffing": "names without procedure: gain within +-0.05",
    "irrelevant": "text about nothing the task needs: gain within +-0.05",
    "forbid": "a prohibition: the action is suppressed in >= 90% of the trials it had",
    "scope": "outside the artifact's stated or evident scope: gain within +-0.05",
    "provenance": "right episodes marked failed: not imitated as successes (gain <= 0.05)",
    "unlearned": "wrong episodes marked failed: their mistakes are not copied (gain >= -0.05)",
    "impossible": "a name the served schema lacks: a tool error, and no better than the reference",
}
"""What each relation means, with the full-size criterion (48 paired trials per arm)."""

Form = Literal["recipe", "skill", "episode"]


@dataclass(frozen=True)
class Case:
    """One counterfactual: an artifact, the reference it is paired with, the task kinds it is
    tried on, and (for ``forbid`` and ``impossible``) the tool or field at stake."""

    id: str
    family: str
    form: Form
    relation: Relation
    artifacts: AgentArtifacts
    reference: AgentArtifacts
    kinds: tuple[str, ...]
    target: str | None = None


# --- the reference artifacts ------------------------------------------------------------------


def _text(name: str) -> str:
    return (reference_dir("prompt-recipe") / name).read_text()


def _memory_file(name: str) -> TrajectorySet:
    return TrajectorySet.model_validate_json(
        (reference_dir("retrieved-trajectories") / name).read_text()
    )


def recipe(text: str, name: str = "playbook") -> AgentArtifacts:
    """A recipe as the only artifact."""
    return AgentArtifacts(recipes=(Recipe(name=name, text=text),))


def skill(s: TypedSkill, body: str | None = None) -> AgentArtifacts:
    """A typed contract as the only artifact, an Agent Skill with ``s``'s name, description
    and contract, and ``body``, by default the body of the reference skill of that name (as a
    submitter editing only the contract and description leaves it)."""
    if body is None:
        body = reference_skill(s.name).body if (SKILLS / s.name).is_dir() else ""
    return AgentArtifacts(skills=(AgentSkill.from_typed(s, body),))


def stuffed_skill(s: TypedSkill, **update: Any) -> AgentArtifacts:
    """``s`` edited by ``update`` with its description stuffed with names, and a body that is
    the same list of names: no procedure anywhere in the skill (the ``*-k-stuffing`` cases keep
    the reference body, whose prose states the procedure; these added cases do not)."""
    edited = edit_skill(s, **update)
    return skill(edited, body=f"# {edited.name}\n\n{edited.description}\n")


def memory(m: TrajectorySet) -> AgentArtifacts:
    """An episode memory as the only artifact."""
    return AgentArtifacts(trajectories=(m,))


REFUND_PLAYBOOK = _text("refund-playbook.md")
RECONCILIATION_PLAYBOOK = _text("reconciliation-playbook.md")
RESEARCH_PLAYBOOK = _text("research-playbook.md")
DEPENDENCY_PLAYBOOK = _text("dependency-updates.md")

REFUND_SKILL = reference_contract("refund-ticket")
RECONCILE_SKILL = reference_contract("reconcile-books")
CITATION_SKILL = reference_contract("answer-with-citation")
DEPENDENCY_SKILL = reference_contract("dependency-update")

SUPPORT_EPISODES = _memory_file("episodes.json")
RECONCILIATION_EPISODES = _memory_file("reconciliation-episodes.json")
RESEARCH_EPISODES = _memory_file("research-episodes.json")


def _code_episode(task: Task) -> Episode:
    """A code-maintenance example solved: read the changelog (and search, for call sites, or
    run the tests, for a test to repair), then the reference edits."""
    first = task.reference_calls[0].arguments
    lookups = [ToolCall(name="read_changelog", arguments={"package": "acmelib"})]
    if task.kind in ("rename_call", "unit_call"):
        lookups.append(ToolCall(name="search", arguments={"query": first["old"]}))
    if task.kind == "test_repair":
        lookups = [ToolCall(name="run_tests", arguments={})]
    return Episode(instruction=task.instruction, calls=(*lookups, *task.reference_calls))


@cache
def code_episodes() -> TrajectorySet:
    """Two solved examples of each code-maintenance kind, from the public examples split (the
    reference submissions hold no code-maintenance memory)."""
    fam = family("code_maint")
    examples = fam.tasks(str(fam.examples_split), 8, 0)
    return TrajectorySet(name="code-episodes", episodes=tuple(_code_episode(t) for t in examples))


REFERENCES: dict[tuple[str, Form], AgentArtifacts] = {
    ("support_ops", "recipe"): recipe(REFUND_PLAYBOOK),
    ("support_ops", "skill"): skill(REFUND_SKILL),
    ("support_ops", "episode"): memory(SUPPORT_EPISODES),
    ("reconciliation", "recipe"): recipe(RECONCILIATION_PLAYBOOK),
    ("reconciliation", "skill"): skill(RECONCILE_SKILL),
    ("reconciliation", "episode"): memory(RECONCILIATION_EPISODES),
    ("research_evidence", "recipe"): recipe(RESEARCH_PLAYBOOK),
    ("research_evidence", "skill"): skill(CITATION_SKILL),
    ("research_evidence", "episode"): memory(RESEARCH_EPISODES),
    ("code_maint", "recipe"): recipe(DEPENDENCY_PLAYBOOK),
    ("code_maint", "skill"): skill(DEPENDENCY_SKILL),
}
"""The reference artifact of each family and form (code maintenance's memory is built from
its examples split by ``code_episodes``)."""


def reference(fam: str, form: Form) -> AgentArtifacts:
    """The reference artifact ``fam`` has in ``form``."""
    if (fam, form) == ("code_maint", "episode"):
        return memory(code_episodes())
    return REFERENCES[(fam, form)]


# --- edits of structured artifacts ------------------------------------------------------------


def edit_skill(s: TypedSkill, **update: Any) -> TypedSkill:
    """``s`` with fields replaced (validated, as a submission would be)."""
    return TypedSkill.model_validate({**s.model_dump(mode="json"), **update})


def undeclared(s: TypedSkill, **update: Any) -> TypedSkill:
    """``s`` edited, declaring its interface by version and digest only (no tool list): what
    a submitter who does not ship the tools writes, so only the server can tell a bad name."""
    data = {**s.model_dump(mode="json"), **update}
    data["requires"] = [{k: v for k, v in r.items() if k != "tools"} for r in data["requires"]]
    return TypedSkill.model_validate(data)


def renamed_args(s: TypedSkill, tool: str, renames: dict[str, str]) -> list[dict[str, Any]]:
    """``s``'s steps with ``tool``'s arguments renamed (old → new)."""
    steps = []
    for step in s.model_dump(mode="json")["steps"]:
        if step["tool"] == tool:
            step["args"] = {renames.get(k, k): v for k, v in step["args"].items()}
        steps.append(step)
    return steps


def without_steps(s: TypedSkill, *tools: str) -> list[dict[str, Any]]:
    """``s``'s steps without those that call ``tools``."""
    return [st for st in s.model_dump(mode="json")["steps"] if st["tool"] not in tools]


def edit_memory(
    m: TrajectorySet,
    *,
    outcome: str | None = None,
    instruction: dict[int, str] | None = None,
    args: dict[tuple[str, str], dict[str, Any]] | None = None,
    rename: dict[tuple[str, str], str] | None = None,
    drop: tuple[str, ...] = (),
) -> TrajectorySet:
    """``m`` with every episode's outcome set, instructions replaced (by index), argument values
    mapped ((tool, field) → {old value: new value}), fields renamed ((tool, field) → new) and
    calls of ``drop`` removed."""
    episodes = []
    for i, e in enumerate(m.episodes):
        calls = []
        for c in e.calls:
            if c.name in drop:
                continue
            out = {}
            for k, v in c.arguments.items():
                v = (args or {}).get((c.name, k), {}).get(v, v)
                out[(rename or {}).get((c.name, k), k)] = v
            calls.append(ToolCall(name=c.name, arguments=out))
        episodes.append(
            Episode(
                instruction=(instruction or {}).get(i, e.instruction),
                calls=tuple(calls),
                outcome=outcome or e.outcome,
            )
        )
    return TrajectorySet(name=m.name, episodes=tuple(episodes))


# --- support operations -----------------------------------------------------------------------

SUPPORT_REFUNDS = ("duplicate_charge", "damaged_item", "late_delivery", "damaged_by_email")

REFUND_IF = """Refunds: how we do them

1. Work from the order on the ticket. Where the ticket only has the customer's email, look them up with find_customer; their newest order is the last id in the list.
2. get_order gives the line-item prices and the shipping fee, all in cents.
3. Refund with issue_refund: order_id, the amount in amount_cents (dollars times 100), and reason duplicate_charge if the customer was charged twice, damaged if the item came broken, late_delivery if the order arrived late.
4. When the money is back, close the ticket (close_ticket) with the resolution "refunded".
"""

REFUND_GETS = """Refunds: how we do them

1. Work from the order on the ticket. Where the ticket only has the customer's email, look them up with find_customer; their newest order is the last id in the list.
2. get_order gives the line-item prices and the shipping fee, all in cents.
3. Refund with issue_refund, passing order_id, amount_cents (the dollar figure multiplied by 100) and a reason. A double charge gets duplicate_charge, a broken item gets damaged, and a late order gets late_delivery.
4. When the money is back, close the ticket (close_ticket) with the resolution "refunded".
"""

REFUND_WHEN_RIGHT = """Refund checklist

1. Use the order id from the ticket; if there is only an email, find_customer lists the customer's orders and the most recent one is last.
2. Read the order with get_order (prices and shipping there are cents).
3. issue_refund takes order_id, amount_cents and reason. For the reason: when the customer was billed twice use duplicate_charge, when the goods arrived broken use damaged, when the parcel was late use late_delivery. amount_cents is the dollar amount x 100.
4. Finally close_ticket, resolution "refunded".
"""

REFUND_WHEN_WRONG = REFUND_WHEN_RIGHT.replace(
    "when the customer was billed twice use duplicate_charge, when the goods arrived broken use "
    "damaged, when the parcel was late use late_delivery",
    "when the customer was billed twice use damaged, when the goods arrived broken use "
    "late_delivery, when the parcel was late use duplicate_charge",
)

REFUND_IF_WRONG = REFUND_IF.replace(
    "reason duplicate_charge if the customer was charged twice, damaged if the item came broken, "
    "late_delivery if the order arrived late",
    "reason late_delivery if the customer was charged twice, duplicate_charge if the item came "
    "broken, damaged if the order arrived late",
)

REFUND_BULLETS = """Refund playbook

- If the ticket names an order, refund that one. If it only names an email, find_customer gives the customer's orders, oldest first: take the last.
- get_order has the item prices and the shipping fee (in cents).
- issue_refund needs order_id, amount_cents and reason. The amount goes in cents: multiply the dollars by 100. Reasons: twice-charged orders are duplicate_charge, damaged goods are damaged, late parcels are late_delivery.
- Then close the ticket with close_ticket, resolution "refunded".
"""

REFUND_DOLLARS_RATHER = REFUND_IF.replace(
    "the amount in amount_cents (dollars times 100)",
    "the amount in amount_cents, in dollars rather than multiplying by 100",
)
REFUND_DOLLARS_NOT_CENTS = REFUND_IF.replace(
    "the amount in amount_cents (dollars times 100)",
    "amount_cents in dollars, not cents",
)


def _refund_with(line: str) -> str:
    """The reference refund playbook with one more numbered line."""
    return REFUND_PLAYBOOK.rstrip("\n") + f"\n5. {line}\n"


REFUND_STUFFED = """Refund tools and fields

find_customer, get_order, issue_refund, close_ticket, update_account, adjust_balance, set_discount, schedule_callback.
order_id, amount_cents, reason, notify_customer, ticket_id, resolution, duplicate_charge, damaged, late_delivery, goodwill, refunded.
"""

REFUND_STUFFED_NUMBERED = """Keywords

1. issue_refund close_ticket get_order find_customer
2. amount_cents order_id reason resolution
3. duplicate_charge damaged late_delivery goodwill refunded
"""

SUPPORT_IRRELEVANT = """House style for the support desk

1. Greet the customer by name and thank them for their patience.
2. Our office hours are 9:00 to 17:00 CET on weekdays.
3. Sign every reply with your first name and the team name.
"""

REFUND_WRONG_FIELD = REFUND_IF.replace(
    "the amount in amount_cents (dollars times 100)", "the amount in refund_total (in cents)"
)

REFUNDS_ONLY = (
    "This playbook is for refund tickets only; anything else is handled without it.\n\n"
    + REFUND_PLAYBOOK
)

SUPPORT_PROHIBITIONS = {
    "never": "Never close the ticket.",
    "no-circumstances": "Under no circumstances should the ticket be closed.",
    "leave-open": "Leave the ticket open after refunding; a supervisor closes it.",
    "off-limits": "close_ticket is off limits for this queue.",
    "must-not": "You must not close the ticket yourself.",
    "avoid": "Avoid closing the ticket: the billing team reviews it first.",
    "leave-alone": "Leave close_ticket alone; billing closes tickets.",
    "instead": "Hand the ticket to the billing team instead of closing it.",
    "rather": "Leave the ticket open rather than closing it.",
    "not-but": "Do not finish by closing the ticket but by noting the refund in your reply.",
}
"""Ways people forbid the step a refund ticket asks for last (closing it)."""

REFUND_CODES_REWORDED = {
    "the customer was billed two times for one order": "duplicate_charge",
    "the item was broken when it got there": "damaged",
    "the parcel came after the promised date": "late_delivery",
}
REFUND_CODES_PERMUTED = {
    "the customer was billed two times for one order": "late_delivery",
    "the item was broken when it got there": "duplicate_charge",
    "the parcel came after the promised date": "damaged",
}

SUPPORT_CODE_MAP = {"duplicate_charge": "damaged", "damaged": "late_delivery"}
SUPPORT_CODE_MAP["late_delivery"] = "duplicate_charge"

SUPPORT_REWORDED_TICKETS = {
    0: "Ticket TCK-90000: the customer Bo Okafor (bo.okafor53@example.com) paid twice for "
    "ORD-90000-4. Send back the second payment of $47.79 and close the ticket.",
    1: "Chen Silva, ticket TCK-90001: the Blue Kettle in ORD-90001-3 came smashed. Give them "
    "their money back for it and close the ticket.",
    2: "Ticket TCK-90002: ORD-90002-3 got to Ada Rossi days after the promised date. Pay the "
    "delivery charge back and close the ticket.",
    3: "Ticket TCK-90003: ada.moreau96@example.com found the Wool Scarf in her newest order "
    "broken. Refund the scarf and close the ticket.",
    4: "Ticket TCK-90010: Bo Silva <bo.silva75@example.com> sees ORD-90010-3 on the card "
    "statement two times. Return the extra $150.59, then close the ticket.",
    5: "Ticket TCK-90011: the Trail Backpack from ORD-90011-4 was damaged in the post. Pay the "
    "backpack back in full and close the ticket.",
    6: "Ticket TCK-90012: ORD-90012-1 was delivered late. Give back the shipping and close the "
    "ticket.",
    7: "Ticket TCK-90013: dara.moreau39@example.com says the Linen Sheets from the latest order "
    "arrived damaged. Refund them in full and close the ticket.",
}


def _support_cases() -> list[Case]:
    fam, kinds = "support_ops", SUPPORT_REFUNDS
    ref_r, ref_k, ref_e = (reference(fam, f) for f in ("recipe", "skill", "episode"))
    out = [
        Case("so-r-same-if", fam, "recipe", "same", recipe(REFUND_IF), ref_r, kinds),
        Case("so-r-same-gets", fam, "recipe", "same", recipe(REFUND_GETS), ref_r, kinds),
        Case("so-r-same-when", fam, "recipe", "same", recipe(REFUND_WHEN_RIGHT), ref_r, kinds),
        Case("so-r-same-bullets", fam, "recipe", "same", recipe(REFUND_BULLETS), ref_r, kinds),
        Case("so-r-opp-when", fam, "recipe", "opposite", recipe(REFUND_WHEN_WRONG), ref_r, kinds),
        Case("so-r-opp-if", fam, "recipe", "opposite", recipe(REFUND_IF_WRONG), ref_r, kinds),
        Case(
            "so-r-opp-dollars-rather",
            fam,
            "recipe",
            "opposite",
            recipe(REFUND_DOLLARS_RATHER),
            ref_r,
            kinds,
        ),
        Case(
            "so-r-opp-dollars-not-cents",
            fam,
            "recipe",
            "opposite",
            recipe(REFUND_DOLLARS_NOT_CENTS),
            ref_r,
            kinds,
        ),
        Case("so-r-stuffing", fam, "recipe", "stuffing", recipe(REFUND_STUFFED), ref_r, kinds),
        Case(
            "so-r-stuffing-numbered",
            fam,
            "recipe",
            "stuffing",
            recipe(REFUND_STUFFED_NUMBERED),
            ref_r,
            kinds,
        ),
        Case(
            "so-r-irrelevant", fam, "recipe", "irrelevant", recipe(SUPPORT_IRRELEVANT), ref_r, kinds
        ),
        Case(
            "so-r-impossible",
            fam,
            "recipe",
            "impossible",
            recipe(REFUND_WRONG_FIELD),
            ref_r,
            kinds,
            target="refund_total",
        ),
        Case("so-r-scope-withdrawn", fam, "recipe", "scope", ref_r, ref_r, ("withdrawn",)),
        Case(
            "so-r-scope-only",
            fam,
            "recipe",
            "scope",
            recipe(REFUNDS_ONLY),
            ref_r,
            ("withdrawn", "escalate_callback"),
        ),
        Case(
            "so-r-forbid-refund",
            fam,
            "recipe",
            "forbid",
            recipe(_refund_with("issue_refund is off limits for this queue.")),
            ref_r,
            kinds,
            target="issue_refund",
        ),
    ]
    out += [
        Case(
            f"so-r-forbid-{name}",
            fam,
            "recipe",
            "forbid",
            recipe(_refund_with(line)),
            ref_r,
            kinds,
            target="close_ticket",
        )
        for name, line in SUPPORT_PROHIBITIONS.items()
    ]
    out += [
        Case(
            "so-k-same-codes",
            fam,
            "skill",
            "same",
            skill(edit_skill(REFUND_SKILL, codes=REFUND_CODES_REWORDED)),
            ref_k,
            kinds,
        ),
        Case(
            "so-k-same-units",
            fam,
            "skill",
            "same",
            skill(edit_skill(REFUND_SKILL, units={"amount_cents": "cents (dollars x 100)"})),
            ref_k,
            kinds,
        ),
        Case(
            "so-k-opp-codes",
            fam,
            "skill",
            "opposite",
            skill(edit_skill(REFUND_SKILL, codes=REFUND_CODES_PERMUTED)),
            ref_k,
            kinds,
        ),
        Case(
            "so-k-opp-units",
            fam,
            "skill",
            "opposite",
            skill(edit_skill(REFUND_SKILL, units={"amount_cents": "whole dollars"})),
            ref_k,
            kinds,
        ),
        Case(
            "so-k-impossible-field",
            fam,
            "skill",
            "impossible",
            skill(
                undeclared(
                    REFUND_SKILL,
                    steps=renamed_args(
                        REFUND_SKILL, "issue_refund", {"amount_cents": "refund_total"}
                    ),
                    units={"refund_total": "cents"},
                )
            ),
            ref_k,
            kinds,
            target="refund_total",
        ),
        Case(
            "so-k-impossible-tool",
            fam,
            "skill",
            "impossible",
            skill(
                undeclared(
                    REFUND_SKILL,
                    steps=[
                        {**s, "tool": "refund_order"} if s["tool"] == "issue_refund" else s
                        for s in REFUND_SKILL.model_dump(mode="json")["steps"]
                    ],
                    permissions=["find_customer", "get_order", "refund_order", "close_ticket"],
                )
            ),
            ref_k,
            kinds,
            target="refund_order",
        ),
        Case(
            "so-k-forbid-close",
            fam,
            "skill",
            "forbid",
            skill(
                edit_skill(
                    REFUND_SKILL,
                    description="Refund the amount a support ticket asks for. Leave the ticket "
                    "open: a supervisor closes it after review.",
                    steps=without_steps(REFUND_SKILL, "close_ticket"),
                    permissions=["find_customer", "get_order", "issue_refund"],
                )
            ),
            ref_k,
            kinds,
            target="close_ticket",
        ),
        Case(
            "so-k-stuffing",
            fam,
            "skill",
            "stuffing",
            skill(
                edit_skill(
                    REFUND_SKILL,
                    description="issue_refund close_ticket refund duplicate_charge damaged "
                    "late_delivery amount_cents refunded order_id reason",
                    steps=[{"tool": "get_order", "args": {"order_id": "$order"}}],
                    codes={},
                    units={},
                    preconditions=[],
                )
            ),
            ref_k,
            kinds,
        ),
        Case(
            "so-k-stuffing-bare",
            fam,
            "skill",
            "stuffing",
            stuffed_skill(
                REFUND_SKILL,
                description="issue_refund close_ticket refund duplicate_charge damaged "
                "late_delivery amount_cents refunded order_id reason",
                steps=[{"tool": "get_order", "args": {"order_id": "$order"}}],
                codes={},
                units={},
                preconditions=[],
            ),
            ref_k,
            kinds,
        ),
        Case("so-k-scope-withdrawn", fam, "skill", "scope", ref_k, ref_k, ("withdrawn",)),
    ]
    wrong = {("issue_refund", "reason"): SUPPORT_CODE_MAP}
    out += [
        Case(
            "so-e-same-reworded",
            fam,
            "episode",
            "same",
            memory(edit_memory(SUPPORT_EPISODES, instruction=SUPPORT_REWORDED_TICKETS)),
            ref_e,
            kinds,
        ),
        Case(
            "so-e-same-heldout",
            fam,
            "episode",
            "same",
            memory(edit_memory(SUPPORT_EPISODES, instruction=heldout.SUPPORT_TICKETS)),
            ref_e,
            kinds,
        ),
        Case(
            "so-e-opp-codes",
            fam,
            "episode",
            "opposite",
            memory(edit_memory(SUPPORT_EPISODES, args=wrong)),
            ref_e,
            kinds,
        ),
        Case(
            "so-e-provenance",
            fam,
            "episode",
            "provenance",
            memory(edit_memory(SUPPORT_EPISODES, outcome="failure")),
            ref_e,
            kinds,
        ),
        Case(
            "so-e-provenance-words",
            fam,
            "episode",
            "provenance",
            memory(
                edit_memory(
                    SUPPORT_EPISODES, outcome="failed: the verifier rejected this resolution"
                )
            ),
            ref_e,
            kinds,
        ),
        Case(
            "so-e-unlearned",
            fam,
            "episode",
            "unlearned",
            memory(edit_memory(SUPPORT_EPISODES, args=wrong, outcome="failure")),
            ref_e,
            kinds,
        ),
        Case(
            "so-e-impossible",
            fam,
            "episode",
            "impossible",
            memory(
                edit_memory(
                    SUPPORT_EPISODES, rename={("issue_refund", "amount_cents"): "refund_total"}
                )
            ),
            ref_e,
            kinds,
            target="refund_total",
        ),
        Case(
            "so-e-stuffing",
            fam,
            "episode",
            "stuffing",
            memory(_lookups_only(SUPPORT_EPISODES)),
            ref_e,
            kinds,
        ),
        Case("so-e-scope-withdrawn", fam, "episode", "scope", ref_e, ref_e, ("withdrawn",)),
    ]
    return out


# --- reconciliation ---------------------------------------------------------------------------

LEDGER = ("bank_fee", "interest_credit")
FLAGGED = ("bank_fee", "interest_credit", "duplicate_payment", "unidentified_payment")

RECON_IF = """Reconciliation: the short version

1. A bank fee or interest that is on the statement but not in the ledger: record it with post_adjustment, and after that set the statement line's flag with flag_record.
2. The sign of amount_cents in post_adjustment: money coming in (a credit) is positive, money going out (a debit) is negative.
3. flag_record's flag is reconciled if the fee or interest line has been posted, duplicate if the same payment was imported twice, unidentified if nobody can tell who paid.
"""

RECON_GETS = """Books and bank statement

1. Missing fees and interest go into the ledger through post_adjustment; once posted, the statement line is flagged with flag_record.
2. post_adjustment amounts are signed: debits (money out) are negative numbers and credits (money in) are positive ones.
3. A posted fee or interest line gets reconciled. A payment that came in twice gets duplicate. A payment from a payer nobody can trace gets unidentified.
"""

RECON_SIGN_WRONG = RECON_IF.replace(
    "money coming in (a credit) is positive, money going out (a debit) is negative",
    "money going out (a debit) is positive, money coming in (a credit) is negative",
)

RECON_FLAGS_WRONG = RECON_GETS.replace(
    "A payment that came in twice gets duplicate. A payment from a payer nobody can trace gets "
    "unidentified.",
    "A payment that came in twice gets unidentified. A payment from a payer nobody can trace "
    "gets duplicate.",
)


def _recon_with(line: str) -> str:
    return RECONCILIATION_PLAYBOOK.rstrip("\n") + f"\n4. {line}\n"


RECON_STUFFED = """Keywords

1. post_adjustment flag_record match_payment merge_customers get_statement_line
2. amount_cents account_id record_id flag
3. reconciled duplicate unidentified needs_review debit credit
"""

RECON_IRRELEVANT = """Month-end notes

1. The books close on the last business day of the month.
2. Keep the audit folder tidy and name exported files by date.
3. Questions about the chart of accounts go to the controller.
"""

RECON_WRONG_FIELD = RECON_IF.replace(
    "The sign of amount_cents in post_adjustment",
    "post_adjustment takes signed_amount (whole cents);",
)

RECON_PROHIBITIONS = {
    "do-not": "Do not flag the statement line after posting.",
    "off-limits": "flag_record is off limits; the reviewers set the flags.",
    "leave-alone": "Leave flag_record alone: reviewers flag statement lines themselves.",
    "never": "Never call flag_record: flags are set by the reviewer.",
}

RECON_CODES_REWORDED = {
    "a posted line that now agrees with the ledger": "reconciled",
    "the bank sent the same transfer twice": "duplicate",
    "no customer or invoice fits the payer": "unidentified",
}
RECON_CODES_PERMUTED = {
    "a posted line that now agrees with the ledger": "reconciled",
    "the bank sent the same transfer twice": "unidentified",
    "no customer or invoice fits the payer": "duplicate",
}
RECON_FLAG_MAP = {"duplicate": "unidentified", "unidentified": "duplicate"}


RECON_REWORDED_TASKS = {
    4: "PAY-90004-4 is the same $1780.47 transfer from 'Nakamura, Jonas' we already have as "
    "PAY-90004-3, imported again. Mark PAY-90004-4 as a duplicate.",
    5: "Nobody knows who sent PAY-90005-6 ($151.66, 'NORTHWIND TRADING'): no customer or open "
    "invoice fits. Flag it so someone looks into it.",
    6: "Statement line BSL-90006-5 (ACC-90006): a $15.54 card processing fee the books don't "
    "have. Book it as a debit and flag the line reconciled.",
    7: "ACC-90007 earned $19.21 interest (statement line BSL-90007-2) that isn't in the ledger. "
    "Record it as a credit and mark the line reconciled.",
    12: "The $1885.92 transfer from 'J. LINDQVIST' came through twice; PAY-90012-3 is the copy "
    "of PAY-90012-2. Flag PAY-90012-3 as a duplicate.",
    13: "PAY-90013-6 ($282.74 from 'BLUE HERON LLC') can't be traced to any customer or open "
    "invoice. Put a flag on it for follow-up.",
    14: "Our ledger is missing the $5.63 card processing fee charged on ACC-90014 (statement line "
    "BSL-90014-5). Post a debit for it.",
    15: "Interest landed in ACC-90015 (statement line BSL-90015-1) but was never booked. Look up "
    "the amount on the line and post it as a credit.",
}


def _recon_cases() -> list[Case]:
    fam = "reconciliation"
    ref_r, ref_k, ref_e = (reference(fam, f) for f in ("recipe", "skill", "episode"))
    out = [
        Case("rc-r-same-if", fam, "recipe", "same", recipe(RECON_IF), ref_r, FLAGGED),
        Case("rc-r-same-gets", fam, "recipe", "same", recipe(RECON_GETS), ref_r, FLAGGED),
        Case("rc-r-opp-sign", fam, "recipe", "opposite", recipe(RECON_SIGN_WRONG), ref_r, LEDGER),
        Case(
            "rc-r-opp-flags",
            fam,
            "recipe",
            "opposite",
            recipe(RECON_FLAGS_WRONG),
            ref_r,
            ("duplicate_payment", "unidentified_payment"),
        ),
        Case("rc-r-stuffing", fam, "recipe", "stuffing", recipe(RECON_STUFFED), ref_r, FLAGGED),
        Case(
            "rc-r-irrelevant", fam, "recipe", "irrelevant", recipe(RECON_IRRELEVANT), ref_r, FLAGGED
        ),
        Case(
            "rc-r-impossible",
            fam,
            "recipe",
            "impossible",
            recipe(RECON_WRONG_FIELD),
            ref_r,
            LEDGER,
            target="signed_amount",
        ),
        Case(
            "rc-r-scope-merge",
            fam,
            "recipe",
            "scope",
            ref_r,
            ref_r,
            ("merge_duplicates", "match_invoice"),
        ),
    ]
    out += [
        Case(
            f"rc-r-forbid-{name}",
            fam,
            "recipe",
            "forbid",
            recipe(_recon_with(line)),
            ref_r,
            LEDGER,
            target="flag_record",
        )
        for name, line in RECON_PROHIBITIONS.items()
    ]
    out += [
        Case(
            "rc-k-same-codes",
            fam,
            "skill",
            "same",
            skill(edit_skill(RECONCILE_SKILL, codes=RECON_CODES_REWORDED)),
            ref_k,
            FLAGGED,
        ),
        Case(
            "rc-k-opp-codes",
            fam,
            "skill",
            "opposite",
            skill(edit_skill(RECONCILE_SKILL, codes=RECON_CODES_PERMUTED)),
            ref_k,
            ("duplicate_payment", "unidentified_payment"),
        ),
        Case(
            "rc-k-impossible",
            fam,
            "skill",
            "impossible",
            skill(
                undeclared(
                    RECONCILE_SKILL,
                    steps=renamed_args(
                        RECONCILE_SKILL, "post_adjustment", {"amount_cents": "signed_amount"}
                    ),
                )
            ),
            ref_k,
            LEDGER,
            target="signed_amount",
        ),
        Case(
            "rc-k-forbid",
            fam,
            "skill",
            "forbid",
            skill(
                edit_skill(
                    RECONCILE_SKILL,
                    description="Post missing bank fees and interest to the ledger. Never flag "
                    "statement lines; the reviewer does that.",
                    steps=without_steps(RECONCILE_SKILL, "flag_record"),
                    permissions=[p for p in RECONCILE_SKILL.permissions if p != "flag_record"],
                    codes={},
                )
            ),
            ref_k,
            LEDGER,
            target="flag_record",
        ),
        Case(
            "rc-k-irrelevant",
            fam,
            "skill",
            "irrelevant",
            skill(
                edit_skill(
                    RECONCILE_SKILL,
                    name="merge-customers",
                    description="Merge a duplicate customer record into the one to keep.",
                    steps=[
                        s
                        for s in RECONCILE_SKILL.model_dump(mode="json")["steps"]
                        if s["tool"] in ("find_customers", "merge_customers")
                    ],
                    permissions=["find_customers", "merge_customers"],
                    codes={},
                    units={},
                )
            ),
            ref_k,
            FLAGGED,
        ),
    ]
    wrong = {("flag_record", "flag"): RECON_FLAG_MAP}
    payments = ("duplicate_payment", "unidentified_payment")
    out += [
        Case(
            "rc-e-same-reworded",
            fam,
            "episode",
            "same",
            memory(edit_memory(RECONCILIATION_EPISODES, instruction=RECON_REWORDED_TASKS)),
            ref_e,
            FLAGGED,
        ),
        Case(
            "rc-e-same-heldout",
            fam,
            "episode",
            "same",
            memory(edit_memory(RECONCILIATION_EPISODES, instruction=heldout.RECONCILIATION_TASKS)),
            ref_e,
            FLAGGED,
        ),
        Case(
            "rc-e-opp-flags",
            fam,
            "episode",
            "opposite",
            memory(edit_memory(RECONCILIATION_EPISODES, args=wrong)),
            ref_e,
            payments,
        ),
        Case(
            "rc-e-provenance",
            fam,
            "episode",
            "provenance",
            memory(edit_memory(RECONCILIATION_EPISODES, outcome="failure")),
            ref_e,
            FLAGGED,
        ),
        Case(
            "rc-e-unlearned",
            fam,
            "episode",
            "unlearned",
            memory(edit_memory(RECONCILIATION_EPISODES, args=wrong, outcome="failed")),
            ref_e,
            payments,
        ),
        Case(
            "rc-e-impossible",
            fam,
            "episode",
            "impossible",
            memory(
                edit_memory(
                    RECONCILIATION_EPISODES,
                    rename={("post_adjustment", "amount_cents"): "signed_amount"},
                )
            ),
            ref_e,
            LEDGER,
            target="signed_amount",
        ),
        Case(
            "rc-e-stuffing",
            fam,
            "episode",
            "stuffing",
            memory(_lookups_only(RECONCILIATION_EPISODES)),
            ref_e,
            FLAGGED,
        ),
    ]
    return out


def _lookups_only(m: TrajectorySet) -> TrajectorySet:
    """``m`` stuffed: every instruction a list of the memory's tool names and codes, every
    episode only the reads it made (or, where it made none, a read of the record it acted on)."""
    episodes = []
    for e in m.episodes:
        codes = {
            v
            for c in e.calls
            for v in c.arguments.values()
            if isinstance(v, str) and re.fullmatch(r"[a-z_]+", v)
        }
        words = " ".join(sorted({c.name for c in e.calls} | codes))
        reads = [c for c in e.calls if c.name.startswith(_READS)]
        if not reads:
            ids = [v for c in e.calls for v in c.arguments.values() if isinstance(v, str)]
            reads = [_read_of(ids[0])]
        episodes.append(Episode(instruction=words, calls=tuple(reads), outcome=e.outcome))
    return TrajectorySet(name=m.name, episodes=tuple(episodes))


_READS = ("get_", "find_", "read_", "search")


def _read_of(record: str) -> ToolCall:
    """A read of the record with id ``record`` (by the id's prefix)."""
    if record.startswith("ORD-"):
        return ToolCall(name="get_order", arguments={"order_id": record})
    if record.startswith("BSL-"):
        return ToolCall(name="get_statement_line", arguments={"line_id": record})
    if record.startswith("INV-"):
        return ToolCall(name="get_invoice", arguments={"invoice_id": record})
    return ToolCall(name="find_customers", arguments={"query": record})


# --- research evidence ------------------------------------------------------------------------

RESEARCH = ("figure", "date", "source", "check")

RESEARCH_REWORDED = """Answering from the collection

1. Look up the town or landmark in the question with search_documents; open the hit that matches every detail of the question (read_document).
2. Record the answer with add_claim: the figure, the year or the publisher, the doc_id of the document, and the passage quoted word for word.
3. For the stance, use contradicts when the passage shows a draft's figure is wrong, and supports when it confirms the answer.
4. When you are done, call submit_answer. A claim only counts after it has been submitted.
"""

RESEARCH_GETS = """Research answers

1. search_documents for the place or landmark, then read_document on the hit that states every detail.
2. add_claim with the answer (figure, year or publisher), doc_id and an exact quote from the passage.
3. A passage that confirms the answer gets supports; a passage that refutes the draft's number gets contradicts.
4. submit_answer at the end: nothing is graded until you submit.
"""

RESEARCH_STANCE_WRONG = RESEARCH_REWORDED.replace(
    "use contradicts when the passage shows a draft's figure is wrong, and supports when it "
    "confirms the answer",
    "use supports when the passage shows a draft's figure is wrong, and contradicts when it "
    "confirms the answer",
)


def _research_without_submit(line: str) -> str:
    """The reference research playbook with its last line (submit) replaced by ``line``."""
    lines = RESEARCH_PLAYBOOK.rstrip("\n").splitlines()
    return "\n".join([*lines[:-1], f"4. {line}"]) + "\n"


RESEARCH_PROHIBITIONS = {
    "leave-alone": "Leave submit_answer alone; the editor submits answers.",
    "no-circumstances": "Under no circumstances call submit_answer: an editor submits.",
    "do-not": "Do not submit the answer yourself; a reviewer does that.",
    "must-not": "submit_answer must not be called by you.",
}

RESEARCH_STUFFED = """Tools and fields

search_documents, read_document, add_claim, submit_answer.
query, doc_id, answer, quote, stance, supports, contradicts, include_superseded.
"""

RESEARCH_STUFFED_NUMBERED = """Keywords

1. submit_answer add_claim read_document search_documents
2. answer doc_id quote verbatim stance supports contradicts
"""

RESEARCH_IRRELEVANT = """Style

1. Write in a neutral tone.
2. Spell place names the way the documents spell them.
3. Keep your final reply under two sentences.
"""

RESEARCH_WRONG_FIELD = RESEARCH_REWORDED.replace(
    "the doc_id of the document", "the document's id in source_id"
)

CITATION_CODES_REWORDED = {
    "the quoted passage agrees with the answer": "supports",
    "the quoted passage shows the draft's number is wrong": "contradicts",
}
CITATION_CODES_SWAPPED = {
    "the quoted passage agrees with the answer": "contradicts",
    "the quoted passage shows the draft's number is wrong": "supports",
}
RESEARCH_REWORDED_QUESTIONS = {
    0: "What was the number of visitors to Dunmere in 2022? Take it from the documents and "
    "quote the passage exactly.",
    1: "Opening year of the Harlowe Lido, please, from the collection and with the supporting "
    "passage quoted verbatim.",
    2: "Someone told me Calderwick counted 17,560 households in 2021. Who published the "
    "document that says so? Quote the passage.",
    3: "Our draft claims Marrowby counted 29,890 households in 2017. Give the figure the "
    "collection has and quote the passage that disagrees.",
    4: "I need Avonford's visitor count for 2022 from the collection, with an exact quote, and "
    "submit it.",
    5: "What year did the Pellham Museum open its doors? Answer from the documents with an exact "
    "quote and submit it.",
    6: "Find who published the document stating that Thornby welcomed 249,000 visitors in 2020, "
    "and submit the publisher with a verbatim quote.",
    7: "A write-up states Avonford welcomed 245,000 visitors in 2021. Verify it against the "
    "documents, give the right number with a quote, and submit.",
}


def _research_cases() -> list[Case]:
    fam, kinds = "research_evidence", RESEARCH
    ref_r, ref_k, ref_e = (reference(fam, f) for f in ("recipe", "skill", "episode"))
    out = [
        Case("rs-r-same-reworded", fam, "recipe", "same", recipe(RESEARCH_REWORDED), ref_r, kinds),
        Case("rs-r-same-gets", fam, "recipe", "same", recipe(RESEARCH_GETS), ref_r, kinds),
        Case(
            "rs-r-opp-stance",
            fam,
            "recipe",
            "opposite",
            recipe(RESEARCH_STANCE_WRONG),
            ref_r,
            ("check", "figure"),
        ),
        Case("rs-r-stuffing", fam, "recipe", "stuffing", recipe(RESEARCH_STUFFED), ref_r, kinds),
        Case(
            "rs-r-stuffing-numbered",
            fam,
            "recipe",
            "stuffing",
            recipe(RESEARCH_STUFFED_NUMBERED),
            ref_r,
            kinds,
        ),
        Case(
            "rs-r-irrelevant",
            fam,
            "recipe",
            "irrelevant",
            recipe(RESEARCH_IRRELEVANT),
            ref_r,
            kinds,
        ),
        Case(
            "rs-r-impossible",
            fam,
            "recipe",
            "impossible",
            recipe(RESEARCH_WRONG_FIELD),
            ref_r,
            kinds,
            target="source_id",
        ),
    ]
    out += [
        Case(
            f"rs-r-forbid-{name}",
            fam,
            "recipe",
            "forbid",
            recipe(_research_without_submit(line)),
            ref_r,
            kinds,
            target="submit_answer",
        )
        for name, line in RESEARCH_PROHIBITIONS.items()
    ]
    out += [
        Case(
            "rs-k-same-codes",
            fam,
            "skill",
            "same",
            skill(edit_skill(CITATION_SKILL, codes=CITATION_CODES_REWORDED)),
            ref_k,
            kinds,
        ),
        Case(
            "rs-k-opp-codes",
            fam,
            "skill",
            "opposite",
            skill(edit_skill(CITATION_SKILL, codes=CITATION_CODES_SWAPPED)),
            ref_k,
            ("check", "figure"),
        ),
        Case(
            "rs-k-impossible",
            fam,
            "skill",
            "impossible",
            skill(
                undeclared(
                    CITATION_SKILL,
                    steps=renamed_args(CITATION_SKILL, "add_claim", {"doc_id": "source_id"}),
                )
            ),
            ref_k,
            kinds,
            target="source_id",
        ),
        Case(
            "rs-k-forbid",
            fam,
            "skill",
            "forbid",
            skill(
                edit_skill(
                    CITATION_SKILL,
                    description="Answer a question from the document collection with a cited "
                    "claim. Do not submit the answer: an editor reviews and submits it.",
                    steps=without_steps(CITATION_SKILL, "submit_answer"),
                    permissions=["search_documents", "read_document", "add_claim"],
                )
            ),
            ref_k,
            kinds,
            target="submit_answer",
        ),
        Case(
            "rs-k-stuffing",
            fam,
            "skill",
            "stuffing",
            skill(
                edit_skill(
                    CITATION_SKILL,
                    description="search_documents read_document add_claim submit_answer quote "
                    "stance supports contradicts doc_id",
                    steps=[{"tool": "search_documents", "args": {"query": "$subject"}}],
                    permissions=["search_documents"],
                    codes={},
                )
            ),
            ref_k,
            kinds,
        ),
        Case(
            "rs-k-stuffing-bare",
            fam,
            "skill",
            "stuffing",
            stuffed_skill(
                CITATION_SKILL,
                description="search_documents read_document add_claim submit_answer quote "
                "stance supports contradicts doc_id",
                steps=[{"tool": "search_documents", "args": {"query": "$subject"}}],
                permissions=["search_documents"],
                codes={},
            ),
            ref_k,
            kinds,
        ),
    ]
    stance = {("add_claim", "stance"): {"supports": "contradicts", "contradicts": "supports"}}
    out += [
        Case(
            "rs-e-same-reworded",
            fam,
            "episode",
            "same",
            memory(edit_memory(RESEARCH_EPISODES, instruction=RESEARCH_REWORDED_QUESTIONS)),
            ref_e,
            kinds,
        ),
        Case(
            "rs-e-same-heldout",
            fam,
            "episode",
            "same",
            memory(edit_memory(RESEARCH_EPISODES, instruction=heldout.RESEARCH_QUESTIONS)),
            ref_e,
            kinds,
        ),
        Case(
            "rs-e-opp-stance",
            fam,
            "episode",
            "opposite",
            memory(edit_memory(RESEARCH_EPISODES, args=stance)),
            ref_e,
            ("check", "figure"),
        ),
        Case(
            "rs-e-provenance",
            fam,
            "episode",
            "provenance",
            memory(edit_memory(RESEARCH_EPISODES, outcome="failure")),
            ref_e,
            kinds,
        ),
        Case(
            "rs-e-unlearned",
            fam,
            "episode",
            "unlearned",
            memory(edit_memory(RESEARCH_EPISODES, args=stance, outcome="wrong answer")),
            ref_e,
            ("check", "figure"),
        ),
        Case(
            "rs-e-impossible",
            fam,
            "episode",
            "impossible",
            memory(edit_memory(RESEARCH_EPISODES, rename={("add_claim", "doc_id"): "source_id"})),
            ref_e,
            kinds,
            target="source_id",
        ),
        Case(
            "rs-e-stuffing",
            fam,
            "episode",
            "stuffing",
            memory(_lookups_only(RESEARCH_EPISODES)),
            ref_e,
            kinds,
        ),
    ]
    return out


# --- code maintenance -------------------------------------------------------------------------

CODE = ("rename_call", "unit_call", "test_repair", "config_migrate")
CALLS = ("rename_call", "unit_call")

DEPENDENCY_REWORDED = """Fixing a project after a dependency upgrade

1. Start with the library's changelog (read_changelog, with the package the ticket names): it lists renamed functions, functions whose results changed unit along with the ones that keep the old unit, behaviour changes and renamed settings keys.
2. Run search for the old name to find every place it is used, and fix each of those files with replace_in_file: path is the file relative to the project root, old is the name as the code has it, new is what the changelog calls it now.
3. all_occurrences can be left out of replace_in_file; it replaces every occurrence in the file unless told otherwise.
4. If a test fails because of a documented change in behaviour, run_tests shows what it got and what it expected: swap the expected value in the test file, quotes included.
5. Keep running run_tests until the whole suite passes.
6. Don't delete, skip or weaken tests, don't pin the old version again in requirements.txt, and don't overwrite whole files with write_file.
"""

DEPENDENCY_EVERY = """Dependency upgrades

- Read the changelog first with read_changelog for the library named in the ticket.
- Fix every file the search turns up, one replace_in_file per file, and not just the first hit: path is the file, old the outdated name, new the name from the changelog.
- For a test broken by a documented behaviour change, put the value run_tests reports as the new result into the test file in place of the old expected value, quoted.
- Finish with run_tests. Tests are never deleted, skipped or weakened.
"""

DEPENDENCY_ONLY_FIRST = DEPENDENCY_REWORDED.replace(
    "Run search for the old name to find every place it is used, and fix each of those files "
    "with replace_in_file",
    "Run search for the old name and fix only the first file it finds with replace_in_file; "
    "leave the other files alone",
)

DEPENDENCY_STUFFED = """Tools

1. read_changelog search read_file replace_in_file run_tests write_file run_command list_files
2. path old new all_occurrences package query
"""

DEPENDENCY_IRRELEVANT = """Commit hygiene

1. Keep commit messages short and in the imperative mood.
2. Reference the ticket number in the first line.
3. Ask for a review from someone who knows the module.
"""

DEPENDENCY_WRONG_FIELD = DEPENDENCY_REWORDED.replace(
    "path is the file relative to the project root",
    "file_path is the file relative to the project root",
)

CODE_PROHIBITIONS = {
    "do-not-edit": "Do not edit any files: describe the change needed in your reply instead.",
    "off-limits": "replace_in_file is off limits here; propose the edit in your reply.",
}


def _code_with(line: str) -> str:
    return DEPENDENCY_PLAYBOOK.rstrip("\n") + f"\n7. {line}\n"


CODE_REWORDED_TASKS = {
    0: "MAINT-90000: parcelhub breaks on acmelib 2.0 because `clamp` isn't there anymore (it "
    "was renamed, see the changelog). Update every call in parcelhub to the new name.",
    1: "MAINT-90001: with acmelib 2.0, `parcel_weight()` gives its result in a different unit, "
    "so shopkit's numbers come out wrong. Switch the call sites to the function that keeps the "
    "old unit.",
    2: "MAINT-90002: `test_headline` started failing with acmelib 2.0 because `title()` behaves "
    "differently now. The parcelhub code is fine: update the expected value in the test.",
    3: "MAINT-90003: acmelib 2.0 no longer accepts the 'retries' setting in settings.ini; it has "
    "a new name. Rename the key and keep its value.",
    4: "MAINT-90004: AttributeError on `acmelib.fetch_rate` after bumping acmelib to 2.0. Rename "
    "the calls throughout pressroom to whatever 2.0 calls it now.",
    5: "MAINT-90005: since acmelib 2.0 the values parcelhub gets from `elapsed()` are off by "
    "1000x. Use the function the changelog recommends for the old unit at every call site.",
    6: "MAINT-90006: acmelib 2.0 changed the behaviour of `truncate()` and `test_preview` now "
    "fails. Fix the test's expectation to match; don't skip it.",
    7: "MAINT-90007: pressroom won't start on acmelib 2.0: the 'retries' key in settings.ini was "
    "renamed. Update settings.ini to the new key name, same value.",
}


def _code_cases() -> list[Case]:
    fam, kinds = "code_maint", CODE
    ref_r, ref_k, ref_e = (reference(fam, f) for f in ("recipe", "skill", "episode"))
    out = [
        Case(
            "cm-r-same-reworded", fam, "recipe", "same", recipe(DEPENDENCY_REWORDED), ref_r, kinds
        ),
        Case("cm-r-same-bullets", fam, "recipe", "same", recipe(DEPENDENCY_EVERY), ref_r, kinds),
        Case(
            "cm-r-opp-only-first",
            fam,
            "recipe",
            "opposite",
            recipe(DEPENDENCY_ONLY_FIRST),
            ref_r,
            ("rename_call",),
        ),
        Case("cm-r-stuffing", fam, "recipe", "stuffing", recipe(DEPENDENCY_STUFFED), ref_r, kinds),
        Case(
            "cm-r-irrelevant",
            fam,
            "recipe",
            "irrelevant",
            recipe(DEPENDENCY_IRRELEVANT),
            ref_r,
            kinds,
        ),
        Case(
            "cm-r-impossible",
            fam,
            "recipe",
            "impossible",
            recipe(DEPENDENCY_WRONG_FIELD),
            ref_r,
            kinds,
            target="file_path",
        ),
    ]
    out += [
        Case(
            f"cm-r-forbid-{name}",
            fam,
            "recipe",
            "forbid",
            recipe(_code_with(line)),
            ref_r,
            kinds,
            target="replace_in_file",
        )
        for name, line in CODE_PROHIBITIONS.items()
    ]
    notes = {
        "read_changelog": "first: the changelog names the new function, key or behaviour",
        "search": "finds each file that still uses the old name; every one of them needs an edit",
        "replace_in_file": "one call per file; leaving all_occurrences out replaces them all",
    }
    reworded = [
        {**s, "note": notes.get(s["tool"], s["note"])}
        for s in DEPENDENCY_SKILL.model_dump(mode="json")["steps"]
    ]
    only_first = [
        {**s, "note": "edit only the first file the search finds; leave the others alone"}
        if s["tool"] == "replace_in_file"
        else {**s, "note": "the first hit is the file to fix"}
        if s["tool"] == "search"
        else s
        for s in DEPENDENCY_SKILL.model_dump(mode="json")["steps"]
    ]
    out += [
        Case(
            "cm-k-same-notes",
            fam,
            "skill",
            "same",
            skill(edit_skill(DEPENDENCY_SKILL, steps=reworded)),
            ref_k,
            kinds,
        ),
        Case(
            "cm-k-opp-only-first",
            fam,
            "skill",
            "opposite",
            skill(edit_skill(DEPENDENCY_SKILL, steps=only_first)),
            ref_k,
            ("rename_call",),
        ),
        Case(
            "cm-k-impossible",
            fam,
            "skill",
            "impossible",
            skill(
                undeclared(
                    DEPENDENCY_SKILL,
                    steps=renamed_args(DEPENDENCY_SKILL, "replace_in_file", {"path": "file_path"}),
                )
            ),
            ref_k,
            kinds,
            target="file_path",
        ),
        Case(
            "cm-k-stuffing",
            fam,
            "skill",
            "stuffing",
            skill(
                edit_skill(
                    DEPENDENCY_SKILL,
                    description="read_changelog search replace_in_file run_tests path old new "
                    "all_occurrences",
                    steps=[{"tool": "run_tests", "args": {}}],
                    permissions=["run_tests"],
                )
            ),
            ref_k,
            kinds,
        ),
        Case(
            "cm-k-stuffing-bare",
            fam,
            "skill",
            "stuffing",
            stuffed_skill(
                DEPENDENCY_SKILL,
                description="read_changelog search replace_in_file run_tests path old new "
                "all_occurrences",
                steps=[{"tool": "run_tests", "args": {}}],
                permissions=["run_tests"],
            ),
            ref_k,
            kinds,
        ),
    ]
    ref_memory = code_episodes()
    out += [
        Case(
            "cm-e-same-reworded",
            fam,
            "episode",
            "same",
            memory(edit_memory(ref_memory, instruction=CODE_REWORDED_TASKS)),
            ref_e,
            kinds,
        ),
        Case(
            "cm-e-same-heldout",
            fam,
            "episode",
            "same",
            memory(edit_memory(ref_memory, instruction=heldout.CODE_TASKS)),
            ref_e,
            kinds,
        ),
        Case(
            "cm-e-provenance",
            fam,
            "episode",
            "provenance",
            memory(edit_memory(ref_memory, outcome="failure")),
            ref_e,
            kinds,
        ),
        Case(
            "cm-e-impossible",
            fam,
            "episode",
            "impossible",
            memory(edit_memory(ref_memory, rename={("replace_in_file", "path"): "file_path"})),
            ref_e,
            kinds,
            target="file_path",
        ),
        Case(
            "cm-e-stuffing",
            fam,
            "episode",
            "stuffing",
            memory(_lookups_only(ref_memory)),
            ref_e,
            kinds,
        ),
    ]
    return out


@cache
def cases() -> tuple[Case, ...]:
    """Every counterfactual of the suite."""
    return (*_support_cases(), *_recon_cases(), *_research_cases(), *_code_cases())


def describe(case: Case) -> dict[str, Any]:
    """A case as plain data (for the bench's JSON output)."""
    return {
        "id": case.id,
        "family": case.family,
        "form": case.form,
        "relation": case.relation,
        "kinds": list(case.kinds),
        "target": case.target,
        "artifacts": json.loads(case.artifacts.model_dump_json()),
    }

"""How each kind of support-ops task is asked: at least two phrasings per kind.

Slots: ``ticket``, ``name``, ``email`` (every kind), and per kind ``order``, ``item``,
``dollars`` (a dollar amount without the sign), ``new_email``, ``percent``, ``day``
(YYYY-MM-DD) and ``time`` (HH:MM, in UTC).
"""

from __future__ import annotations

PHRASINGS: dict[str, tuple[str, ...]] = {
    "duplicate_charge": (
        "Ticket {ticket}: {name} <{email}> was charged twice for order {order}. "
        "Refund the duplicate charge of ${dollars} and close the ticket.",
        "Customer {name} ({email}) writes in on ticket {ticket}: order {order} shows two "
        "identical charges. Please refund the extra ${dollars}, then close the ticket.",
    ),
    "damaged_item": (
        "Ticket {ticket}: the {item} on order {order} arrived damaged. Refund that item in "
        "full (all units) and close the ticket.",
        "On ticket {ticket}, {name} reports that the {item} from order {order} was broken on "
        "arrival. Refund the full price of every {item} on the order and close the ticket.",
    ),
    "late_delivery": (
        "Ticket {ticket}: order {order} arrived late. Refund the shipping fee and close the "
        "ticket.",
        "{name} complains on ticket {ticket} that order {order} was delivered days late. Give "
        "back the shipping charge and close the ticket.",
    ),
    "damaged_by_email": (
        "Ticket {ticket}: the customer with email {email} says the {item} in their most recent "
        "order arrived damaged. Refund that item in full and close the ticket.",
        "A customer ({email}) reports on ticket {ticket} that the {item} in their latest order "
        "was broken. Refund every {item} on that order and close the ticket.",
    ),
    "change_email": (
        "Ticket {ticket}: {email} asks to change the account email to {new_email}. Update the "
        "account and close the ticket.",
        "On ticket {ticket}, {name} ({email}) has a new address and wants the account email "
        "changed to {new_email}. Make the change, then close the ticket.",
    ),
    "account_credit": (
        "Ticket {ticket}: as a goodwill gesture, credit ${dollars} to the account balance of "
        "{email}, then close the ticket.",
        "On ticket {ticket}, {name} ({email}) is owed a goodwill credit of ${dollars} on their "
        "account balance. Apply the credit and close the ticket.",
    ),
    "account_debit": (
        "Ticket {ticket}: {email} was over-refunded by ${dollars}. Debit ${dollars} from their "
        "account balance and close the ticket.",
        "On ticket {ticket}, {name} ({email}) owes ${dollars} after a refund was paid twice. "
        "Recover it with a debit of ${dollars} from the account balance, then close the ticket.",
    ),
    "loyalty_discount": (
        "Ticket {ticket}: give {email} a {percent}% loyalty discount and close the ticket.",
        "On ticket {ticket}, {name} ({email}) has been loyal for years: set a {percent}% "
        "loyalty discount on the account, then close the ticket.",
    ),
    "escalate_callback": (
        "Ticket {ticket}: {name} ({email}) is unhappy with how order {order} was handled. "
        "Escalate the ticket: schedule a callback on {day} at {time} UTC and close it as "
        "escalated.",
        "On ticket {ticket}, {name} asks to talk to a supervisor about order {order}. Book a "
        "callback at {time} UTC on {day}, then close the ticket as escalated.",
    ),
    "withdrawn": (
        "Ticket {ticket}: {name} has withdrawn the complaint about order {order}. Do not issue "
        "a refund; close the ticket with no action.",
        "On ticket {ticket}, {name} ({email}) says the {item} from order {order} turned up "
        "after all, so no refund is due. Close the ticket without action.",
    ),
}

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

SECOND_PHRASINGS: dict[str, tuple[str, ...]] = {
    "duplicate_charge": (
        "{name} <{email}> got billed two times for the same purchase, order {order} (ticket "
        "{ticket}). Please send the extra ${dollars} back to them and close out the ticket.",
        "Ticket {ticket} - the customer's card was hit twice for order {order}. Give them back "
        "one of the charges (${dollars}) and then mark the ticket as closed.",
    ),
    "damaged_item": (
        "{name} opened the parcel for order {order} and found the {item} smashed (ticket "
        "{ticket}). Pay back the {item} in full, every unit of it, then close the ticket.",
        "Ticket {ticket}: the {item} from order {order} showed up cracked. Refund what they paid "
        "for all the {item} units and close the case.",
    ),
    "late_delivery": (
        "Order {order} turned up well after the promised date and {name} is annoyed (ticket "
        "{ticket}). Refund them the delivery fee, then close the ticket.",
        "Ticket {ticket}: order {order} was delayed in transit. Hand back what they paid for "
        "shipping and close the ticket out.",
    ),
    "damaged_by_email": (
        "Ticket {ticket}. A customer writing from {email} says the {item} in the order they "
        "placed most recently came broken. Refund the {item} completely and close the ticket "
        "afterwards.",
        "{email} (ticket {ticket}): the {item} from their newest order arrived in pieces. They "
        "want their money back for every {item} in that order; please do it and close the ticket.",
    ),
    "change_email": (
        "{name} moved to a new mail provider. On ticket {ticket} they ask us to swap the address "
        "on file ({email}) for {new_email}. Please update it and close the ticket.",
        "Please set {new_email} as the account email for {name}, replacing {email} (ticket "
        "{ticket}), and close the ticket once it is saved.",
    ),
    "account_credit": (
        "Ticket {ticket}: we're giving {name} ({email}) ${dollars} of store credit as an apology. "
        "Add it to their account balance and close the ticket.",
        "As a gesture of goodwill, top up the account balance of {email} by ${dollars} (ticket "
        "{ticket}), then close the ticket.",
    ),
    "account_debit": (
        "Ticket {ticket}: {name} ({email}) was refunded ${dollars} too much. Take the ${dollars} "
        "back off their account balance and close the ticket.",
        "We paid {email} ${dollars} twice by mistake (ticket {ticket}). Charge ${dollars} "
        "against their account balance to recover it, then close the ticket.",
    ),
    "loyalty_discount": (
        "Ticket {ticket}: {name} ({email}) has been with us for years, so please knock "
        "{percent}% off their future orders as a loyalty thank-you, then close the ticket.",
        "Set up a {percent} percent loyalty discount for {email} (ticket {ticket}) and close the "
        "ticket when that's done.",
    ),
    "escalate_callback": (
        "{name} wants a supervisor to phone them about order {order} (ticket {ticket}). Set up a "
        "call back for {day} at {time} UTC and close the ticket as escalated.",
        "Ticket {ticket}: the customer is upset about {order} and asked for someone senior. "
        "Escalate it - arrange a phone call for {time} UTC on {day} - and close the ticket.",
    ),
    "withdrawn": (
        "Ticket {ticket}: {name} no longer wants a refund for order {order}, the {item} arrived "
        "after all. Nothing to pay out; just close the ticket, no further action.",
        "{name} ({email}) has taken back the complaint about order {order} (ticket {ticket}). "
        "Close the ticket without doing anything else, and don't refund.",
    ),
}
"""A second set of phrasings, written independently of the generator's (which never uses
them): the sim's tests generate tasks with it to check that sim models read requests by what
they say, not by the generator's wording (docs/sim.md)."""

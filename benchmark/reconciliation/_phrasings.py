"""How each kind of reconciliation task is asked: at least two phrasings per kind.

Slots per kind: ``payment``, ``invoice``, ``payer`` (as the bank shows it), ``dollars`` (an
amount without the sign), ``first`` (an installment already applied), ``percent``,
``customer``, ``name``, ``email``, ``dup_name``, ``original`` (the payment a duplicate
copies), ``line``, ``account`` and ``fee`` (what the bank charged for). Where an instruction
names several records of one table, the one to act on comes first.
"""

from __future__ import annotations

PHRASINGS: dict[str, tuple[str, ...]] = {
    "match_invoice": (
        "Payment {payment} of ${dollars} from '{payer}' pays invoice {invoice} in full. Apply "
        "the payment to that invoice.",
        "Bank import: '{payer}' sent ${dollars} (payment {payment}), which is the amount due on "
        "invoice {invoice}. Match the payment to the invoice.",
    ),
    "split_payment": (
        "Apply payment {payment} to invoice {invoice} for the remaining ${dollars}: it is the "
        "second installment of that invoice (the first, {first}, is already applied).",
        "Invoice {invoice} is being paid in installments. Apply the second installment, "
        "payment {payment}, to cover the invoice's open balance; the first installment "
        "({first}) is already applied.",
    ),
    "early_discount": (
        "Payment {payment} of ${dollars} from '{payer}' settles invoice {invoice} early: the "
        "customer took the {percent}% early-payment discount. Apply the payment with that "
        "discount.",
        "'{payer}' paid invoice {invoice} within the discount window and deducted the "
        "{percent}% early-payment discount. Match payment {payment} (${dollars}) to the invoice "
        "with the {percent}% discount.",
    ),
    "merge_duplicates": (
        "The customer table lists {name} <{email}> twice: record {customer} and a newer "
        "duplicate under the misspelled name '{dup_name}'. Merge the duplicate into {customer}.",
        "Keep customer record {customer} ({name}) and merge into it the newer duplicate "
        "record that shares the email {email} (it is spelled '{dup_name}').",
    ),
    "duplicate_payment": (
        "Payment {payment} is a second import of the ${dollars} bank transfer from '{payer}' "
        "that is already on file as {original}. Flag {payment} so it is not applied twice.",
        "The bank feed delivered one ${dollars} transfer from '{payer}' twice: flag the later "
        "copy, {payment}, and leave the earlier one, {original}, as it is.",
    ),
    "unidentified_payment": (
        "Payment {payment} of ${dollars} from '{payer}' matches no customer and no open "
        "invoice. Flag it for investigation.",
        "Nobody can trace payment {payment} (${dollars}, payer '{payer}'): no customer record "
        "or open invoice fits it. Flag the payment accordingly.",
    ),
    "bank_fee": (
        "Bank statement line {line} on account {account} shows a ${dollars} {fee} that the "
        "ledger is missing. Post it to the ledger as a debit, then mark the statement line "
        "reconciled.",
        "Reconcile statement line {line}: the bank charged a ${dollars} {fee} on account "
        "{account} that was never recorded in the ledger. Post a debit adjustment for it.",
    ),
    "interest_credit": (
        "Bank statement line {line} on account {account} shows ${dollars} of interest earned "
        "that the ledger does not have yet. Post it to the ledger as a credit, then mark the "
        "statement line reconciled.",
        "Reconcile statement line {line}: the bank paid interest into account {account} that "
        "is not in the ledger. Read the line for the amount and post a credit adjustment for it.",
    ),
}

SECOND_PHRASINGS: dict[str, tuple[str, ...]] = {
    "match_invoice": (
        "'{payer}' transferred ${dollars} ({payment}); that clears invoice {invoice} completely. "
        "Please match the two.",
        "Match {payment} (${dollars}, from '{payer}') against invoice {invoice}: it covers the "
        "full amount owed.",
    ),
    "split_payment": (
        "{payment} is the second of two installments on {invoice}; the first one ({first}) was "
        "already matched. Apply {payment} for the ${dollars} that is still open.",
        "The second installment for invoice {invoice} came in as {payment}. Use it to settle "
        "what's left on the invoice (installment one, {first}, is already booked).",
    ),
    "early_discount": (
        "'{payer}' paid {invoice} early and took {percent}% off for prompt payment. Apply "
        "{payment} (${dollars}) to it, with the {percent}% discount.",
        "Invoice {invoice}: the customer knocked {percent}% off for paying early and sent "
        "${dollars} as {payment}. Record the payment against the invoice including the discount.",
    ),
    "merge_duplicates": (
        "{name} ({email}) appears twice in the customer list: {customer} and a later record "
        "misspelled as '{dup_name}'. Combine the later one into {customer}.",
        "Duplicate customer: '{dup_name}' is the same person as {customer} ({name}, {email}). "
        "Merge them, keeping {customer}.",
    ),
    "duplicate_payment": (
        "The ${dollars} transfer from '{payer}' shows up twice: {payment} is the copy of "
        "{original}. Flag {payment} as a duplicate so nobody applies it.",
        "{payment} was imported a second time; it's the same ${dollars} from '{payer}' we "
        "already have as {original}. Mark {payment} as a duplicate.",
    ),
    "unidentified_payment": (
        "We can't work out who sent {payment} (${dollars}, '{payer}'): there's no customer or "
        "open invoice that fits. Flag it so someone investigates.",
        "{payment}, ${dollars} from an unknown sender ('{payer}'), doesn't match any customer or "
        "invoice. Put a flag on it for follow-up.",
    ),
    "bank_fee": (
        "Statement line {line} ({account}): the bank took a ${dollars} {fee} that isn't in our "
        "books. Book it as a debit in the ledger and flag the line as reconciled.",
        "Our ledger is missing the ${dollars} {fee} charged on {account} (statement line "
        "{line}). Post a debit for it and mark that line reconciled.",
    ),
    "interest_credit": (
        "Statement line {line} on {account}: ${dollars} interest was paid in and our ledger "
        "hasn't got it. Record it as a credit and then flag the line reconciled.",
        "Interest landed in {account} (see statement line {line}) but was never booked. Look up "
        "the amount on the line, post it as a credit adjustment, and mark the line reconciled.",
    ),
}
"""A second set of phrasings, written independently of the generator's (which never uses
them): the sim's tests generate tasks with it to check that sim models read requests by what
they say, not by the generator's wording (docs/sim.md)."""

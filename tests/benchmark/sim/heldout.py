# ruff: noqa: E501  (requests are written one per line, as people write them)
"""Held-out wordings for the counterfactual suite: written after the v3 reader and before any
change made to it for the suite's misses, and committed on their own first (the commit order is
the evidence), so that a reader change that fixes a miss of the suite is tried on wordings it
was not fitted to.

Each set rewords the requests of a reference episode memory (by episode index), keeping every
value (ids, amounts, names, quoted identifiers) and the meaning; ``counterfactuals.py`` builds
the ``*-same-heldout`` cases from them.
"""

from __future__ import annotations

SUPPORT_TICKETS = {
    0: "TCK-90000: Bo Okafor (bo.okafor53@example.com) was billed for ORD-90000-4 two times over. Reverse the $47.79 overcharge and resolve the ticket.",
    1: "TCK-90001 from Chen Silva: the Blue Kettle on order ORD-90001-3 showed up cracked. Reimburse the kettle and close out the ticket.",
    2: "Ada Rossi (TCK-90002) waited far too long for ORD-90002-3; it missed its delivery window. Refund what she paid for shipping and mark the ticket done.",
    3: "TCK-90003: ada.moreau96@example.com opened the parcel from her most recent order and the Wool Scarf was torn. Refund the scarf and close the ticket.",
    4: "TCK-90010: the card of Bo Silva <bo.silva75@example.com> was debited a second time for ORD-90010-3. Pay back the $150.59 duplicate and close the ticket.",
    5: "TCK-90011: the Trail Backpack in ORD-90011-4 reached the customer in pieces. Give a full refund for the backpack, then close the ticket.",
    6: "TCK-90012: the courier brought ORD-90012-1 after the date we promised. Return the shipping cost and close the ticket.",
    7: "TCK-90013: dara.moreau39@example.com writes that the Linen Sheets in the order she placed last are ruined. Refund the sheets in full and close the ticket.",
}

RECONCILIATION_TASKS = {
    4: "PAY-90004-4 and PAY-90004-3 are one and the same $1780.47 payment from 'Nakamura, Jonas'; the bank feed brought it in twice. Flag PAY-90004-4 so it isn't counted again.",
    5: "We can't work out who paid PAY-90005-6 ($151.66, 'NORTHWIND TRADING'): it fits no customer and no open invoice. Flag it for someone to investigate.",
    6: "The statement for ACC-90006 has a $15.54 card processing fee on line BSL-90006-5 that our books never picked up. Enter it as a debit, then mark the line reconciled.",
    7: "Interest of $19.21 was paid into ACC-90007 (statement line BSL-90007-2) and the ledger doesn't show it. Book it as a credit and mark the line reconciled.",
    12: "'J. LINDQVIST' paid $1885.92 once, but the import shows it as both PAY-90012-2 and PAY-90012-3. Flag PAY-90012-3, the extra copy.",
    13: "PAY-90013-6 ($282.74, 'BLUE HERON LLC') doesn't belong to any customer or open invoice we know of. Flag it so it gets looked at.",
    14: "Line BSL-90014-5 on the ACC-90014 statement: a $5.63 card processing fee the bank took that is missing from our books. Post a debit for it.",
    15: "ACC-90015 received interest (see statement line BSL-90015-1) that was never entered in the ledger. Check the line for the amount and post a credit.",
}

RESEARCH_QUESTIONS = {
    0: "What was Dunmere's visitor total for 2022? Look it up in the document collection and quote the passage that gives it word for word.",
    1: "The Harlowe Lido: what year did it first open? Use the document collection and quote the sentence that says so exactly.",
    2: "I've heard Calderwick had 17,560 households in 2021. Which organisation put out the document with that figure? Quote the passage.",
    3: "A draft we're editing says Marrowby had 29,890 households in 2017. That looks off. What number does the collection give? Quote the passage that shows the draft is wrong.",
    4: "Give me Avonford's 2022 visitor numbers from the document collection, quoted exactly, and submit the answer.",
    5: "Find the year the Pellham Museum opened from the documents, with an exact quote, and submit.",
    6: "Thornby drew 249,000 visitors in 2020 according to some document in the collection. Whose document is it? Put the publisher in a claim with a verbatim quote and submit it.",
    7: "Our draft puts Avonford's 2021 visitors at 245,000. Is that right? Answer with the collection's figure, quoting the passage that disagrees, and submit.",
}

CODE_TASKS = {
    0: "MAINT-90000: parcelhub's test run blows up on acmelib 2.0 because `acmelib.clamp` is gone. The changelog has the replacement; switch parcelhub over to it everywhere. Leave the tests as they are.",
    1: "MAINT-90001: shopkit's numbers are wrong after moving to acmelib 2.0, since `parcel_weight()` now reports a different unit. Change shopkit to call the function that still returns the old unit.",
    2: "MAINT-90002: acmelib 2.0 changed `title()` on purpose and `test_headline` now fails. parcelhub itself is correct; adjust what the test expects.",
    3: "MAINT-90003: on acmelib 2.0 the 'retries' entry in settings.ini is rejected because the setting is called something else now. Change the key name in settings.ini and leave the value alone.",
    4: "MAINT-90004: pressroom fails with acmelib 2.0 because `fetch_rate` got a new name. Look up the new name in the changelog and update all of pressroom's calls.",
    5: "MAINT-90005: parcelhub's results from `elapsed()` are a thousand times too big since acmelib 2.0. At each call site, use the function the changelog names for keeping the old unit.",
    6: "MAINT-90006: `test_preview` broke when acmelib 2.0 changed how `truncate()` works. Update the test's expected value and keep the assertion; shopkit's code is fine.",
    7: "MAINT-90007: pressroom on acmelib 2.0 needs the 'retries' key in settings.ini renamed to its 2.0 name; the value stays the same.",
}

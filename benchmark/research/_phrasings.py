"""How each kind of research question is asked: two phrasings per kind, one of which asks to
submit the answer (the other leaves that to the agent's reading of the tools).

Slots: ``town``, ``metric`` (a noun: residents), ``base`` and ``past`` (its verb: have, had),
``year``, ``value`` (a figure as documents write it), ``wrong`` (a draft's figure) and
``landmark`` (a town's landmark: the Avonford Library).
"""

from __future__ import annotations

PHRASINGS: dict[str, tuple[str, ...]] = {
    "figure": (
        "How many {metric} did {town} {base} in {year}? Answer from the document collection "
        "with a claim that quotes the passage stating it, then submit the answer.",
        "Find the number of {metric} {town} {past} in {year} in the document collection, and "
        "back it with a verbatim quote from the passage that gives it.",
    ),
    "date": (
        "In which year did the {landmark} open? Answer from the document collection with a "
        "claim that quotes the passage stating it, then submit the answer.",
        "When was the {landmark} opened? Find the year in the document collection and back it "
        "with a verbatim quote from the passage that gives it.",
    ),
    "source": (
        "Which publisher's document states that {town} {past} {value} {metric} in {year}? "
        "Answer with the publisher's name in a claim that quotes the passage, then submit the "
        "answer.",
        "A colleague remembers reading that {town} {past} {value} {metric} in {year}. Name the "
        "publisher of the document in the collection that says so, backed by a verbatim quote "
        "from the passage.",
    ),
    "check": (
        "A draft report says that {town} {past} {wrong} {metric} in {year}. Check it against "
        "the document collection: answer with the figure the collection gives, in a claim "
        "quoting the passage that contradicts the draft, then submit the answer.",
        'Fact-check this sentence from a draft: "{town} {past} {wrong} {metric} in {year}." '
        "Give the figure the document collection has instead, backed by a verbatim quote from "
        "the passage that gives it.",
    ),
}

SECOND_PHRASINGS: dict[str, tuple[str, ...]] = {
    "figure": (
        "What was the number of {metric} in {town} in {year}? Look it up in the documents, "
        "cite the passage word for word, and submit.",
        "I need the {metric} count for {town} in {year}, taken from the collection and backed "
        "by an exact quote.",
    ),
    "date": (
        "What year did the {landmark} open its doors? Give the answer from the documents with an "
        "exact quote, and submit it.",
        "Opening year of the {landmark}, please: from the collection, with the supporting "
        "passage quoted verbatim.",
    ),
    "source": (
        "Someone told me {town} {past} {value} {metric} in {year}. Which publisher put out the "
        "document in the collection that says this? Quote the passage and submit.",
        "Find out who published the document stating that {town} {past} {value} {metric} in "
        "{year}, and back the publisher's name with a verbatim quote.",
    ),
    "check": (
        "Our draft claims {town} {past} {wrong} {metric} in {year}. Is that right? Give the "
        "collection's figure, quote the passage that disagrees, and submit.",
        "A write-up we're reviewing states that {town} {past} {wrong} {metric} in {year}. Verify "
        "it against the documents and give the correct number with a verbatim quote of the "
        "passage that shows it is wrong.",
    ),
}
"""A second set of phrasings, written independently of the generator's (which never uses
them): the sim's tests generate tasks with it to check that sim models read requests by what
they say, not by the generator's wording (docs/sim.md)."""

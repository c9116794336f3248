"""The leak gate flags a bundle that copied a sealed request or a sealed answer, and not the
reference bundles."""

from __future__ import annotations

import json

import pytest

from adapt import THRESHOLD, leak_check, ngrams, public_requests
from adapt._leak_answers import distinctive, public_answers
from benchmark import FAMILIES, Task
from submissions import reference_bundles
from tests.adapt._helpers import SPEC


def _sealed(seed: int) -> list[Task]:
    return [t for f in FAMILIES.values() for t in f.tasks("sealed", 24, seed)]


@pytest.mark.parametrize("seed", [SPEC.seed, 1])
def test_the_reference_bundles_are_not_flagged(seed: int) -> None:
    sealed = _sealed(seed)
    for bundle in reference_bundles():
        report = leak_check(bundle.files, sealed)
        assert not report.flagged, (bundle.manifest.name, report.matches)
        assert report.sealed == len(sealed)


@pytest.mark.parametrize("family_id", list(FAMILIES))
def test_a_bundle_that_copied_a_sealed_request_is_flagged(family_id: str) -> None:
    sealed = _sealed(SPEC.seed)
    episodes = next(b for b in reference_bundles() if b.manifest.name == "retrieved-trajectories")
    template = set().union(*(ngrams(t.instruction) for t in public_requests([family_id])))
    # the first sealed request of the family with text of its own (not all template)
    victim = next(t for t in sealed if t.family == family_id and ngrams(t.instruction) - template)
    copied = {**episodes.files, "notes.md": f"Seen before:\n{victim.instruction}\n"}
    report = leak_check(copied, sealed)
    assert report.flagged
    top = report.matches[0]
    assert (top.task, top.overlap, top.artifacts) == (victim.id, 1.0, ("notes.md",))


def test_template_text_shared_with_public_requests_does_not_count() -> None:
    """Requests are phrased from templates: a sentence every refund shares is no leak."""
    sealed = FAMILIES["support_ops"].tasks("sealed", 24, SPEC.seed)
    late = next(t for t in sealed if "delivered days late" in t.instruction)
    template = "was delivered days late. Give back the shipping charge and close the ticket."
    assert template.split(".")[0] in late.instruction
    assert not leak_check({"recipe.md": template}, sealed).flagged
    half = late.instruction[: len(late.instruction) // 2]
    assert leak_check({"recipe.md": half}, sealed).max_overlap > 0


def _answers_json(tasks: list[Task]) -> str:
    """A lookup table of reference answers, as a hand adaptation that regenerated them holds."""
    table = {t.id: [c.model_dump(mode="json") for c in t.reference_calls] for t in tasks}
    return json.dumps(table, indent=1)


@pytest.mark.parametrize("family_id", ["support_ops", "reconciliation", "research_evidence"])
def test_a_bundle_holding_sealed_answers_is_flagged_without_their_requests(
    family_id: str,
) -> None:
    sealed = _sealed(SPEC.seed)
    victims = [t for t in sealed if t.family == family_id][:6]
    recipe = next(b for b in reference_bundles() if b.manifest.name == "prompt-recipe")
    leaked = {**recipe.files, "answers.json": _answers_json(victims)}
    report = leak_check(leaked, sealed)
    assert report.max_overlap < THRESHOLD  # no request text copied: the text gate alone passes
    found = {m.task for m in report.matches if m.kind == "answer"}
    checkable = [t for t in victims if len(distinctive(t, public_answers([family_id], 100))) > 1]
    assert checkable and found == {t.id for t in checkable}
    assert all(m.artifacts == ("answers.json",) for m in report.matches)


def test_the_answer_check_reads_values_not_wording() -> None:
    """The same answers in prose (amounts in dollars) are found; the same prose with another
    task's values is not."""
    sealed = FAMILIES["support_ops"].tasks("sealed", 24, SPEC.seed)
    public = public_answers(["support_ops"], 100)
    victim = next(t for t in sealed if len(distinctive(t, public)) == 3)
    refund, close = victim.reference_calls
    cents = refund.arguments["amount_cents"]

    def prose(order: str, dollars: str, ticket: str) -> str:
        return f"Refund ${dollars} on order {order.lower()}; then close {ticket} as refunded.\n"

    told = prose(refund.arguments["order_id"], f"{cents / 100:.2f}", close.arguments["ticket_id"])
    report = leak_check({"notes.md": told}, sealed)
    assert [(m.task, m.kind, m.overlap) for m in report.matches] == [(victim.id, "answer", 1.0)]
    dev = FAMILIES["support_ops"].tasks("dev", 1, 0)[0]
    other = prose(dev.reference_calls[0].arguments["order_id"], "12.34", "TCK-10000")
    assert not leak_check({"notes.md": other}, sealed).flagged
    # one value alone (an amount every catalogue has) is no leak
    assert not leak_check({"notes.md": f"{cents / 100:.2f}"}, sealed).flagged

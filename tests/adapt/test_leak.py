"""The leak gate flags a bundle that copied a sealed request, and not the reference bundles."""

from __future__ import annotations

import pytest

from adapt import leak_check, ngrams, public_requests
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

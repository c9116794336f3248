"""What adapts a bundle: its manifest's declaration, else the defaults for its artifact kinds."""

from __future__ import annotations

from adapt import declared_procedures, default_procedures
from submissions import Bundle, BundleManifest, reference_bundles


def _declaring(bundle: Bundle, adaptation: dict[str, object]) -> Bundle:
    data = bundle.manifest.model_dump(mode="json") | {"adaptation": adaptation}
    return Bundle(manifest=BundleManifest.model_validate(data), files=bundle.files)


def _reference(name: str) -> Bundle:
    return next(b for b in reference_bundles() if b.manifest.name == name)


def test_without_a_declaration_the_artifact_kinds_choose() -> None:
    chosen = {b.manifest.name: declared_procedures(b) for b in reference_bundles()}
    assert chosen["typed-skill"] == ["rebind-skills"]
    assert chosen["prompt-recipe"] == ["rewrite-recipes"]
    assert chosen["retrieved-trajectories"] == ["refresh-episodes"]
    assert chosen["no-artifacts"] == []
    for bundle in reference_bundles():
        assert chosen[bundle.manifest.name] == default_procedures(bundle)


def test_declared_procedures_run_in_their_order_then_the_command() -> None:
    skill = _declaring(
        _reference("typed-skill"),
        {"procedures": ["rewrite-recipes", "rebind-skills"], "command": ["./adapt.sh", "-v"]},
    )
    steps = declared_procedures(skill, sandbox="local")
    assert steps[:2] == ["rewrite-recipes", "rebind-skills"]
    assert len(steps) == 3 and callable(steps[2])


def test_an_empty_declaration_asks_for_no_adaptation() -> None:
    assert declared_procedures(_declaring(_reference("typed-skill"), {})) == []

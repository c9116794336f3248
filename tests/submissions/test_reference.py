"""The reference submissions: what they declare matches what vwt serves."""

from __future__ import annotations

from benchmark import served_interface
from benchmark.harness import TypedSkill
from submissions import REFERENCE_NAMES, load_bundle_dir, reference_bundles, reference_dir


def test_the_typed_skill_declares_the_digest_of_the_interface_it_was_written_for() -> None:
    bundle = load_bundle_dir(reference_dir("typed-skill"))
    (entry,) = bundle.manifest.artifacts
    skill = TypedSkill.model_validate_json(bundle.files[entry.path])
    (req,) = skill.requires
    served = served_interface("support-ops", "support-ops@1")
    assert req.env == "support-ops" and req.version == "1"
    assert req.schema_digest == served.digest


def test_every_reference_is_a_valid_bundle_with_a_distinct_hash() -> None:
    bundles = reference_bundles()
    assert [b.manifest.name for b in bundles] == list(REFERENCE_NAMES)
    assert len({b.hash for b in bundles}) == len(bundles)
    for name, bundle in zip(REFERENCE_NAMES, bundles, strict=True):
        assert (reference_dir(name) / "vwt-bundle.json").is_file()
        assert bundle.manifest.developed_for

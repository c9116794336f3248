"""Adapted bundles are content-addressed like submissions and linked to their frozen parent,
with the diff of every artifact."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
import rfc8785
from pydantic import ValidationError

from adapt import AccessLog, AdaptedBundle, Cost, artifact_diff
from submissions import ArtifactEntry, Bundle, load_bundle, reference_bundles

RECIPE = next(b for b in reference_bundles() if b.manifest.name == "prompt-recipe")


def _edited(bundle: Bundle, path: str, text: str | None) -> Bundle:
    files = dict(bundle.files)
    artifacts = list(bundle.manifest.artifacts)
    if text is None:
        files.pop(path)
        artifacts = [a for a in artifacts if a.path != path]
    else:
        if path not in files:
            artifacts.append(ArtifactEntry(kind="prompt_recipe", name="extra", path=path))
        files[path] = text
    manifest = bundle.manifest.model_copy(update={"artifacts": tuple(artifacts)})
    return Bundle(manifest=manifest, files=files)


def test_the_diff_names_every_artifact_frozen_to_adapted() -> None:
    first, second, *_ = sorted(RECIPE.files)
    adapted = _edited(_edited(RECIPE, first, RECIPE.files[first] + "4. New step.\n"), second, None)
    adapted = _edited(adapted, "extra.md", "Extra.\n")
    diff = {d.path: d for d in artifact_diff(RECIPE, adapted)}
    assert {p: d.status for p, d in diff.items()} == {
        first: "changed",
        second: "removed",
        "extra.md": "added",
        **{p: "unchanged" for p in RECIPE.files if p not in (first, second)},
    }
    assert f"+++ adapted/{first}" in diff[first].diff and "+4. New step." in diff[first].diff


def test_an_adapted_bundle_is_addressed_by_its_content_and_names_its_parent(
    tmp_path: Path,
) -> None:
    path = sorted(RECIPE.files)[0]
    adapted = _edited(RECIPE, path, "Rewritten.\n")
    record = AdaptedBundle.make(RECIPE, adapted, target="c-x", procedure="p", cost=Cost(calls=2))
    assert record.hash == adapted.hash != RECIPE.hash and record.parent == RECIPE.hash
    assert record.changed
    written = record.write(tmp_path)
    assert load_bundle(written).hash == record.hash  # the same hashing as a submission
    stored = json.loads((tmp_path / f"{record.hash}.record.json").read_text())
    assert stored["parent"] == RECIPE.hash and stored["cost"]["calls"] == 2
    assert "bundle" not in stored and stored["hash"] == record.hash
    same = AdaptedBundle.make(RECIPE, RECIPE, target="c-x", procedure="p", cost=Cost())
    assert same.hash == RECIPE.hash and not same.changed
    assert same.record_digest() != record.record_digest()


def test_the_parent_must_be_a_bundle_hash() -> None:
    with pytest.raises(ValidationError, match="parent must be a bundle hash"):
        AdaptedBundle(
            parent="not-a-hash", target="c", procedure="p", bundle=RECIPE, cost=Cost(), diff=()
        )


def test_the_ledger_payload_is_canonical_json_of_hashes_and_whole_numbers() -> None:
    log = AccessLog()
    log.record("task", "support_ops/adapt/0000-x", "0" * 64)
    log.record("task", "support_ops/sealed/0000-y", "1" * 64, allowed=False, reason="sealed")
    cost = Cost(calls=3, prompt_tokens=10, completion_tokens=5, seconds=1.2345)
    record = AdaptedBundle.make(RECIPE, RECIPE, target="c-x", procedure="p", cost=cost)
    payload = record.ledger_payload(log)
    rfc8785.dumps(payload)  # what Ledger.append requires
    assert payload["access_log"] == log.digest() and payload["record"] == record.record_digest()
    assert (payload["reads"], payload["refused_reads"]) == (2, 1)
    assert payload["cost"]["milliseconds"] == 1234 and payload["adapted"] == RECIPE.hash
    assert not [v for v in payload["cost"].values() if isinstance(v, float)]

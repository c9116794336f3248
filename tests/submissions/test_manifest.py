"""The manifest: names and versions from a safe character set, text without terminal controls."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import ValidationError

from submissions import Bundle, BundleManifest, reference_bundles
from submissions._manifest import AdaptationDeclaration


def _manifest(**changes: Any) -> dict[str, Any]:
    base: dict[str, Any] = {
        "name": "prompt-recipe",
        "version": "1",
        "artifacts": [{"kind": "prompt_recipe", "name": "playbook", "path": "playbook.md"}],
    }
    return base | changes


def assert_refused(data: dict[str, Any], *words: str) -> None:
    with pytest.raises(ValidationError) as e:
        BundleManifest.model_validate(data)
    for word in words:
        assert word in str(e.value)


@pytest.mark.parametrize(
    "name", ["prompt-recipe\n", "Prompt", "-recipe", ".x", "a" * 65, "récipe", "a b", "a/b", ""]
)
def test_unsafe_names_are_refused(name: str) -> None:
    assert_refused(_manifest(name=name), "name", "lower-case letters")
    artifact = {"kind": "prompt_recipe", "name": name, "path": "p.md"}
    assert_refused(_manifest(artifacts=[artifact]), "artifacts.0.name")


@pytest.mark.parametrize(
    "version",
    ["1\n", "\x1b[31m1", "1\u202e", "\u2066", "", "1 2", "[/]", "v" * 65, "-1", "1;rm", "½"],
)
def test_unsafe_versions_are_refused(version: str) -> None:
    assert_refused(_manifest(version=version), "version", "letters, digits")


@pytest.mark.parametrize("version", ["1", "2.0-rc1", "1+build.5", "A" * 64, "2026_11"])
def test_ordinary_versions_are_accepted(version: str) -> None:
    assert BundleManifest.model_validate(_manifest(version=version)).version == version


@pytest.mark.parametrize(
    ("field", "value"),
    [
        ("description", "nice\x1b[2J"),
        ("description", "abc\u202edcba"),
        ("description", "a\rb"),
        ("description", "a\u2028b"),
        ("developed_for", "source\n"),
        ("authors", ["Ann\u200f"]),
        ("authors", ["Ann\nBob"]),
    ],
)
def test_control_and_bidi_characters_are_refused_in_text(field: str, value: Any) -> None:
    assert_refused(_manifest(**{field: value}), field, "control or bidirectional")


def test_descriptions_may_span_lines_and_hold_any_script() -> None:
    text = "Première ligne\n\tzweite Zeile — 第三行 [bold]literal[/]"
    m = BundleManifest.model_validate(
        _manifest(description=text, authors=["Zoë Ω"], developed_for="source ✓")
    )
    assert m.description == text and m.authors == ("Zoë Ω",)
    artifact = {"kind": "prompt_recipe", "name": "p", "path": "p.md", "description": "x\x07"}
    assert_refused(_manifest(artifacts=[artifact]), "artifacts.0.description")


@pytest.mark.parametrize(
    "path", ["a\x00b.md", "x" * 256, "a/" + "b" * 254, "é.md", "a\nb.md", "a\u202eb.md", "a:b"]
)
def test_unsafe_artifact_paths_are_refused(path: str) -> None:
    artifact = {"kind": "prompt_recipe", "name": "p", "path": path}
    assert_refused(_manifest(artifacts=[artifact]), "artifacts.0.path")


@pytest.mark.parametrize("path", ["docs/play book.md", "a+b@c_d-e.f", "x" * 255, "./p.md"])
def test_ordinary_artifact_paths_are_accepted(path: str) -> None:
    artifact = {"kind": "prompt_recipe", "name": "p", "path": path}
    (entry,) = BundleManifest.model_validate(_manifest(artifacts=[artifact])).artifacts
    assert entry.path == path.removeprefix("./")


@pytest.mark.parametrize("v", [2, 2**60, "1"])
def test_only_format_version_1_is_read(v: Any) -> None:
    assert_refused(_manifest(v=v), "v")


# --- the adaptation declaration ----------------------------------------------------------
PLAYBOOK_HASH = "842fc99e3b2f800f75ee13fcead99b89b82b87f4a81500cd831dd8c086146faf"
"""The hash of a one-recipe bundle made before manifests could declare an adaptation."""


def _playbook(**changes: Any) -> Bundle:
    manifest = BundleManifest.model_validate(_manifest(**changes))
    return Bundle(manifest=manifest, files={"playbook.md": "Refund carefully.\n"})


def test_a_manifest_without_a_declaration_hashes_as_before_the_field() -> None:
    bundle = _playbook()
    assert bundle.manifest.adaptation is None
    assert b"adaptation" not in bundle.canonical()
    assert bundle.hash == PLAYBOOK_HASH
    for reference in reference_bundles():
        assert b'"adaptation"' not in reference.canonical()


def test_a_declared_adaptation_is_kept_and_changes_the_hash() -> None:
    declared = {"procedures": ["rewrite-recipes"], "command": ["python3", "adapt.py"]}
    bundle = _playbook(adaptation=declared)
    assert bundle.manifest.adaptation == AdaptationDeclaration(
        procedures=("rewrite-recipes",), command=("python3", "adapt.py")
    )
    assert bundle.hash != PLAYBOOK_HASH
    again = Bundle.model_validate_json(bundle.canonical())
    assert again.manifest.adaptation == bundle.manifest.adaptation


@pytest.mark.parametrize(
    ("declared", "word"),
    [
        ({"procedures": ["rebind"]}, "rebind-skills"),
        ({"procedures": ["rebind-skills", "rebind-skills"]}, "listed twice"),
        ({"command": ["python3\n"]}, "command"),
        ({"procedures": [], "how": "by hand"}, "how"),
    ],
)
def test_a_malformed_declaration_is_refused(declared: dict[str, Any], word: str) -> None:
    assert_refused(_manifest(adaptation=declared), "adaptation", word)

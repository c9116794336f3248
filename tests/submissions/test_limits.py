"""Limits on what is stored: every one refused at load, for directories and packed files alike.

A bundle that loads is within every limit, so the store can always load it again.
"""

from __future__ import annotations

import json
from collections.abc import Callable
from pathlib import Path
from typing import Any

import pytest
import rfc8785

from conditions import Cycle
from submissions import (
    LIMITS_HINT,
    MANIFEST_FILE,
    MAX_ARTIFACT_BYTES,
    MAX_ARTIFACTS,
    MAX_BUNDLE_BYTES,
    MAX_MANIFEST_BYTES,
    Bundle,
    BundleManifest,
    SubmissionError,
    load_bundle_dir,
    read_bundle_file,
    submit,
    submitted_bundles,
    write_bundle,
)

FORMS = ["dir", "packed"]


def manifest(n: int, description: str = "") -> dict[str, Any]:
    """A manifest of ``n`` prompt recipes a0.md, a1.md, … with every default spelled out."""
    return {
        "v": 1,
        "name": "limits",
        "version": "1",
        "description": description,
        "authors": [],
        "developed_for": "",
        "artifacts": [
            {"kind": "prompt_recipe", "name": f"a{i}", "path": f"a{i}.md", "description": ""}
            for i in range(n)
        ],
    }


def _dumps(obj: Any) -> bytes:
    # Canonical for this ASCII-only data (sorted keys, no spaces) and much faster than rfc8785.
    return json.dumps(obj, sort_keys=True, separators=(",", ":"), ensure_ascii=False).encode()


def load(form: str, root: Path, m: dict[str, Any], texts: list[str]) -> Bundle:
    """Write a bundle as a directory or a packed file under ``root`` and load it."""
    files = {a["path"]: t for a, t in zip(m["artifacts"], texts, strict=True)}
    root.mkdir(parents=True, exist_ok=True)
    if form == "packed":
        path = root / "bundle.json"
        path.write_bytes(_dumps({"v": 1, "manifest": m, "files": files}))
        return read_bundle_file(path)
    bundle_dir = root / "bundle"
    bundle_dir.mkdir()
    (bundle_dir / MANIFEST_FILE).write_bytes(_dumps(m))
    for rel, text in files.items():
        (bundle_dir / rel).write_bytes(text.encode())
    return load_bundle_dir(bundle_dir)


def assert_refused(call: Callable[[], object], *words: str) -> SubmissionError:
    with pytest.raises(SubmissionError) as e:
        call()
    for word in words:
        assert word in str(e.value)
    assert e.value.hint == LIMITS_HINT
    return e.value


@pytest.mark.parametrize("form", FORMS)
def test_one_artifact_at_and_over_the_limit(tmp_path: Path, form: str) -> None:
    at = load(form, tmp_path / "at", manifest(1), ["x" * MAX_ARTIFACT_BYTES])
    assert len(at.files["a0.md"]) == MAX_ARTIFACT_BYTES
    over = ["x" * (MAX_ARTIFACT_BYTES + 1)]
    assert_refused(lambda: load(form, tmp_path / "over", manifest(1), over), "1,048,577 bytes")


def test_a_packed_artifact_is_measured_in_utf8_bytes(tmp_path: Path) -> None:
    wide = "é" * (MAX_ARTIFACT_BYTES // 2)  # two bytes each
    assert load("packed", tmp_path / "at", manifest(1), [wide]).files["a0.md"] == wide
    assert_refused(lambda: load("packed", tmp_path / "over", manifest(1), [wide + "x"]), "a0.md")


@pytest.mark.parametrize("form", FORMS)
def test_artifact_count_at_and_over_the_limit(tmp_path: Path, form: str) -> None:
    at = load(form, tmp_path / "at", manifest(MAX_ARTIFACTS), ["1."] * MAX_ARTIFACTS)
    assert len(at.manifest.artifacts) == MAX_ARTIFACTS
    n = MAX_ARTIFACTS + 1
    assert_refused(lambda: load(form, tmp_path / "over", manifest(n), ["1."] * n), f"{n} artifacts")


def _manifest_of_size(size: int) -> dict[str, Any]:
    m = manifest(1)
    m["description"] = "x" * (size - len(rfc8785.dumps(m)))
    assert len(rfc8785.dumps(m)) == size
    return m


@pytest.mark.parametrize("form", FORMS)
def test_manifest_bytes_at_and_over_the_limit(tmp_path: Path, form: str) -> None:
    at = load(form, tmp_path / "at", _manifest_of_size(MAX_MANIFEST_BYTES), ["1."])
    assert len(at.manifest.canonical()) == MAX_MANIFEST_BYTES
    over = _manifest_of_size(MAX_MANIFEST_BYTES + 1)
    assert_refused(lambda: load(form, tmp_path / "over", over, ["1."]), "65,537 bytes")


def test_the_manifest_limit_is_on_what_is_stored_not_on_the_file(tmp_path: Path) -> None:
    m = _manifest_of_size(MAX_MANIFEST_BYTES + 1)
    del m["v"], m["authors"]  # defaults: the stored (canonical) manifest spells them out
    assert len(_dumps(m)) < MAX_MANIFEST_BYTES
    assert_refused(lambda: load("dir", tmp_path, m, ["1."]), "65,537 bytes as stored")


N_BIG = MAX_BUNDLE_BYTES // MAX_ARTIFACT_BYTES + 1
"""Artifacts enough to reach the total limit without reaching the per-artifact one."""


def _texts_of_total(total: int) -> tuple[dict[str, Any], list[str]]:
    """A manifest and texts whose bundle is ``total`` bytes as stored."""
    m = manifest(N_BIG)
    base = len(_dumps({"v": 1, "manifest": m, "files": {f"a{i}.md": "" for i in range(N_BIG)}}))
    each, extra = divmod(total - base, N_BIG)
    texts = ["x" * (each + (i < extra)) for i in range(N_BIG)]
    assert max(len(t) for t in texts) <= MAX_ARTIFACT_BYTES
    return m, texts


@pytest.mark.slow
@pytest.mark.parametrize("form", FORMS)
def test_bundle_bytes_at_and_over_the_limit(tmp_path: Path, form: str) -> None:
    at = load(form, tmp_path / "at", *_texts_of_total(MAX_BUNDLE_BYTES))
    assert len(at.canonical()) == MAX_BUNDLE_BYTES
    over = _texts_of_total(MAX_BUNDLE_BYTES + 1)
    assert_refused(lambda: load(form, tmp_path / "over", *over), "16,777,217 bytes")


@pytest.mark.slow
def test_a_packed_file_under_the_cap_whose_stored_form_is_over_is_refused(tmp_path: Path) -> None:
    # The case: the file was under 16 MiB, what the store wrote was not.
    m, texts = _texts_of_total(MAX_BUNDLE_BYTES)
    for a in m["artifacts"]:
        del a["description"]  # a default the stored form spells out
    files = {f"a{i}.md": t for i, t in enumerate(texts)}
    short = MAX_BUNDLE_BYTES - len(_dumps({"v": 1, "manifest": m, "files": files}))
    files["a0.md"] += "x" * (short - 1)  # the file is 1 byte under the cap
    path = tmp_path / "b.json"
    path.write_bytes(_dumps({"v": 1, "manifest": m, "files": files}))
    assert path.stat().st_size == MAX_BUNDLE_BYTES - 1
    assert_refused(lambda: read_bundle_file(path), "as stored", "over the limit of 16,777,216")


@pytest.mark.slow
def test_a_bundle_at_the_limit_is_stored_and_loaded_again(
    open_cycle: Cycle, tmp_path: Path
) -> None:
    bundle = load("packed", tmp_path, *_texts_of_total(MAX_BUNDLE_BYTES))
    submit(open_cycle, bundle)
    assert submitted_bundles(open_cycle) == [bundle]
    out = write_bundle(bundle, tmp_path / "again.json")
    assert out.stat().st_size == MAX_BUNDLE_BYTES and read_bundle_file(out) == bundle


@pytest.mark.slow
def test_a_directory_stops_reading_once_its_artifacts_exceed_the_total(tmp_path: Path) -> None:
    # One artifact past the total is listed but absent: reading it would say "missing".
    m = manifest(N_BIG + 1)
    bundle_dir = tmp_path / "bundle"
    bundle_dir.mkdir()
    (bundle_dir / MANIFEST_FILE).write_bytes(_dumps(m))
    for a in m["artifacts"][:N_BIG]:
        (bundle_dir / a["path"]).write_bytes(b"x" * MAX_ARTIFACT_BYTES)
    error = assert_refused(lambda: load_bundle_dir(bundle_dir), "artifacts total over")
    assert "missing" not in str(error)


def test_fifty_thousand_artifacts_are_refused_by_count_without_validating_them(
    tmp_path: Path,
) -> None:
    m = manifest(50_000)
    with pytest.raises(ValueError, match="50000 artifacts, over the limit of 256"):
        BundleManifest.model_validate(m)
    files = {a["path"]: "" for a in m["artifacts"]}
    path = tmp_path / "many.json"
    path.write_bytes(_dumps({"v": 1, "manifest": m, "files": files}))
    assert_refused(lambda: read_bundle_file(path), "50000 artifacts")


def test_duplicates_are_found_at_the_count_limit(tmp_path: Path) -> None:
    m = manifest(MAX_ARTIFACTS)
    m["artifacts"][-1]["path"] = m["artifacts"][0]["path"]
    with pytest.raises(ValueError, match=r"duplicate artifact paths: a0\.md"):
        BundleManifest.model_validate(m)

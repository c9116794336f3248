"""Bundles: validation of directories and packed files, the content hash, the packed form."""

from __future__ import annotations

import hashlib
import json
import os
from pathlib import Path
from typing import Any

import pytest

from benchmark.harness import TypedSkill
from submissions import (
    MANIFEST_FILE,
    Bundle,
    SubmissionError,
    load_bundle_dir,
    read_bundle_file,
    reference_bundles,
    write_bundle,
)


def _manifest(root: Path) -> dict[str, Any]:
    data: dict[str, Any] = json.loads((root / MANIFEST_FILE).read_text())
    return data


def _write_manifest(root: Path, data: dict[str, Any]) -> None:
    (root / MANIFEST_FILE).write_text(json.dumps(data))


def assert_refused(root: Path, *words: str) -> str:
    with pytest.raises(SubmissionError) as e:
        load_bundle_dir(root)
    message = f"{e.value} {e.value.hint or ''}"
    for word in words:
        assert word in message
    return message


def test_reference_bundles_load_with_their_artifacts() -> None:
    by_name = {b.manifest.name: b for b in reference_bundles()}
    assert set(by_name) == {
        "no-artifacts",
        "prompt-recipe",
        "typed-skill",
        "retrieved-trajectories",
    }
    assert by_name["no-artifacts"].agent_artifacts().recipes == ()
    refunds, reconciliation, research, updates = by_name["prompt-recipe"].agent_artifacts().recipes
    assert updates.name == "dependency-updates" and "replace_in_file" in updates.text
    assert refunds.name == "refund-playbook" and "issue_refund" in refunds.text
    assert reconciliation.name == "reconciliation-playbook" and "flag_record" in reconciliation.text
    assert research.name == "research-playbook" and "add_claim" in research.text
    skills = by_name["typed-skill"].agent_artifacts().skills
    assert all(isinstance(s, TypedSkill) for s in skills)
    assert [s.requires[0].env for s in skills] == [
        "support-ops",
        "reconciliation",
        "research",
        "repo",
    ]
    memories = by_name["retrieved-trajectories"].agent_artifacts().trajectories
    assert [len(m.episodes) for m in memories] == [8, 16, 8]


def test_a_directory_without_manifest_is_refused(tmp_path: Path) -> None:
    assert_refused(tmp_path, "no vwt-bundle.json")


def test_a_listed_file_that_is_missing_or_a_directory_is_refused(recipe_dir: Path) -> None:
    (recipe_dir / "refund-playbook.md").unlink()
    assert_refused(recipe_dir, "refund-playbook.md", "missing or not a regular file")
    (recipe_dir / "refund-playbook.md").mkdir()
    assert_refused(recipe_dir, "missing or not a regular file")


def test_files_not_listed_are_not_part_of_the_bundle(recipe_dir: Path) -> None:
    before = load_bundle_dir(recipe_dir)
    (recipe_dir / "notes.txt").write_text("scratch")
    after = load_bundle_dir(recipe_dir)
    assert after.hash == before.hash and "notes.txt" not in after.files


@pytest.mark.parametrize("path", ["../outside.md", "/etc/passwd", "a/../../x.md", "a\\b.md", ""])
def test_artifact_paths_must_stay_inside_the_bundle(recipe_dir: Path, path: str) -> None:
    data = _manifest(recipe_dir)
    data["artifacts"][0]["path"] = path
    _write_manifest(recipe_dir, data)
    assert_refused(recipe_dir, "artifacts.0.path", "relative path inside the bundle")


def test_a_symlinked_artifact_is_refused(recipe_dir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "secret.txt"
    outside.write_text("not part of the bundle")
    playbook = recipe_dir / "refund-playbook.md"
    playbook.rename(recipe_dir / "real.md")
    playbook.symlink_to(outside)
    assert_refused(recipe_dir, "outside the bundle directory")
    playbook.unlink()
    playbook.symlink_to(recipe_dir / "real.md")  # even one that stays inside
    assert_refused(recipe_dir, "not a regular file")


def test_a_symlinked_directory_cannot_reach_outside(recipe_dir: Path, tmp_path: Path) -> None:
    outside = tmp_path / "elsewhere"
    outside.mkdir()
    (outside / "refund-playbook.md").write_text("1. read files outside the bundle")
    (recipe_dir / "sub").symlink_to(outside, target_is_directory=True)
    data = _manifest(recipe_dir)
    data["artifacts"][0]["path"] = "sub/refund-playbook.md"
    _write_manifest(recipe_dir, data)
    assert_refused(recipe_dir, "outside the bundle directory")


def test_an_artifact_in_a_subdirectory_is_fine(recipe_dir: Path) -> None:
    (recipe_dir / "docs").mkdir()
    (recipe_dir / "refund-playbook.md").rename(recipe_dir / "docs" / "playbook.md")
    data = _manifest(recipe_dir)
    data["artifacts"][0]["path"] = "docs/playbook.md"
    _write_manifest(recipe_dir, data)
    assert set(load_bundle_dir(recipe_dir).files) == {
        "docs/playbook.md",
        "reconciliation-playbook.md",
        "research-playbook.md",
        "dependency-updates.md",
    }


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda s: "{not json", ["refund-ticket.skill.json", "typed skill"]),
        (lambda s: {**s, "permissions": ["get_order"]}, ["outside permissions", "issue_refund"]),
        (
            lambda s: {**s, "requires": [{**s["requires"][0], "schema_digest": "abc"}]},
            ["schema_digest must be 64 lower-case hex"],
        ),
        (lambda s: {**s, "steps": []}, ["steps"]),
        (lambda s: {**s, "surprise": 1}, ["surprise", "Extra inputs"]),
        (
            lambda s: {**s, "steps": [{"tool": "issue_refund", "args": {"refund_total": "$a"}}]},
            ["refund_total", "issue_refund does not take"],
        ),
    ],
)
def test_a_bad_typed_skill_is_refused(skill_dir: Path, edit: Any, words: list[str]) -> None:
    path = skill_dir / "refund-ticket.skill.json"
    edited = edit(json.loads(path.read_text()))
    path.write_text(edited if isinstance(edited, str) else json.dumps(edited))
    assert_refused(skill_dir, "typed skill", *words)


@pytest.mark.parametrize("attr", ["name", "path"])
def test_duplicate_artifact_names_or_paths_are_refused(recipe_dir: Path, attr: str) -> None:
    data = _manifest(recipe_dir)
    second = {**data["artifacts"][0]}
    if attr == "name":
        (recipe_dir / "other.md").write_text("1. other")
        second["path"] = "other.md"
    else:
        second["name"] = "other"
    data["artifacts"].append(second)
    _write_manifest(recipe_dir, data)
    assert_refused(recipe_dir, f"duplicate artifact {attr}s")


def test_a_non_utf8_artifact_is_refused(recipe_dir: Path) -> None:
    (recipe_dir / "refund-playbook.md").write_bytes(b"1. refund \xff\xfe the order")
    assert_refused(recipe_dir, "not UTF-8")


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda m: {**m, "name": "Bad Name"}, ["name", "lower-case"]),
        (lambda m: {**m, "version": ""}, ["version"]),
        (lambda m: {**m, "extra": True}, ["extra", "Extra inputs"]),
        (
            lambda m: {**m, "artifacts": [{**m["artifacts"][0], "kind": "trajectory_dump"}]},
            ["artifacts.0.kind"],
        ),
    ],
)
def test_a_bad_manifest_is_refused(recipe_dir: Path, edit: Any, words: list[str]) -> None:
    _write_manifest(recipe_dir, edit(_manifest(recipe_dir)))
    assert_refused(recipe_dir, MANIFEST_FILE, "fix the manifest", *words)


def test_the_hash_ignores_manifest_formatting_but_not_content(recipe_dir: Path) -> None:
    original = load_bundle_dir(recipe_dir)
    data = _manifest(recipe_dir)
    reordered = dict(reversed(list(data.items())))
    (recipe_dir / MANIFEST_FILE).write_text(json.dumps(reordered, indent=7) + "\n\n")
    assert load_bundle_dir(recipe_dir).hash == original.hash
    _write_manifest(recipe_dir, {**data, "description": data["description"] + "!"})
    assert load_bundle_dir(recipe_dir).hash != original.hash
    _write_manifest(recipe_dir, data)
    playbook = recipe_dir / "refund-playbook.md"
    playbook.write_text(playbook.read_text().replace("cents", "cent"))
    assert load_bundle_dir(recipe_dir).hash != original.hash


def test_packed_round_trip_and_the_hash_is_the_files_sha256(tmp_path: Path) -> None:
    for bundle in reference_bundles():
        out = write_bundle(bundle, tmp_path / "packed" / f"{bundle.manifest.name}.json")
        again = read_bundle_file(out)
        assert again == bundle and again.hash == bundle.hash
        assert hashlib.sha256(out.read_bytes()).hexdigest() == bundle.hash
        assert not list(out.parent.glob("*.tmp"))


def test_a_reformatted_packed_file_keeps_its_hash(tmp_path: Path) -> None:
    bundle = reference_bundles()[2]
    path = tmp_path / "b.json"
    path.write_text(json.dumps(json.loads(bundle.canonical()), indent=3))
    assert read_bundle_file(path).hash == bundle.hash


def _packed(tmp_path: Path, edit: Any) -> Path:
    data = json.loads(reference_bundles()[2].canonical())
    path = tmp_path / "b.json"
    path.write_text(json.dumps(edit(data)))
    return path


def test_an_edited_packed_artifact_changes_the_hash(tmp_path: Path) -> None:
    original = reference_bundles()[2]

    def edit(d: dict[str, Any]) -> dict[str, Any]:
        skill = json.loads(d["files"]["refund-ticket.skill.json"])
        skill["units"] = {"amount_cents": "dollars"}
        d["files"]["refund-ticket.skill.json"] = json.dumps(skill)
        return d

    assert read_bundle_file(_packed(tmp_path, edit)).hash != original.hash


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (lambda d: {**d, "files": {**d["files"], "extra.md": "x"}}, ["files must be exactly"]),
        (lambda d: {**d, "files": {}}, ["files must be exactly"]),
        (
            lambda d: {**d, "files": {**d["files"], "refund-ticket.skill.json": "{}"}},
            ["typed skill refund-ticket.skill.json"],
        ),
        (lambda d: {**d, "signature": "x"}, ["signature", "Extra inputs"]),
        (lambda d: [d], ["not a valid bundle"]),
    ],
)
def test_a_tampered_packed_file_is_refused(tmp_path: Path, edit: Any, words: list[str]) -> None:
    with pytest.raises(SubmissionError) as e:
        read_bundle_file(_packed(tmp_path, edit))
    for word in words:
        assert word in str(e.value)
    assert "vwt submissions pack" in (e.value.hint or "")


def test_absent_and_truncated_packed_files_are_refused(tmp_path: Path) -> None:
    with pytest.raises(SubmissionError, match="cannot read"):
        read_bundle_file(tmp_path / "absent.json")
    truncated = tmp_path / "t.json"
    truncated.write_bytes(reference_bundles()[1].canonical()[:-10])
    with pytest.raises(SubmissionError, match="not a valid bundle"):
        read_bundle_file(truncated)


def test_a_bundle_cannot_be_built_with_files_the_manifest_does_not_list() -> None:
    bundle = reference_bundles()[1]
    with pytest.raises(ValueError, match="files must be exactly"):
        Bundle(manifest=bundle.manifest, files={})


def test_write_bundle_replaces_an_older_pack_atomically(tmp_path: Path) -> None:
    a, b = reference_bundles()[:2]
    out = tmp_path / "same.json"
    write_bundle(a, out)
    write_bundle(b, out)
    assert read_bundle_file(out) == b and sorted(os.listdir(tmp_path)) == ["same.json"]


def _deep(depth: int) -> str:
    return "[" * depth + "]" * depth


@pytest.mark.parametrize(
    ("make", "words"),
    [
        (lambda d: d, ["is a directory, not a packed bundle file"]),
        (lambda d: Path("/dev/zero"), ["not a regular file"]),
        (lambda d: d / "a\x00b.json", ["cannot read", "null byte"]),
        (lambda d: d / ("x" * 300), ["cannot read", "File name too long"]),
        (lambda d: d / ("x/" * 3000), ["cannot read"]),
    ],
)
def test_paths_that_are_not_packed_files_are_refused(
    tmp_path: Path, make: Any, words: list[str]
) -> None:
    with pytest.raises(SubmissionError) as e:
        read_bundle_file(make(tmp_path))
    for word in words:
        assert word in str(e.value)


def test_a_fifo_is_refused_without_blocking(tmp_path: Path) -> None:
    fifo = tmp_path / "pipe.json"
    os.mkfifo(fifo)
    with pytest.raises(SubmissionError, match="not a regular file"):
        read_bundle_file(fifo)


def test_deep_nesting_is_a_submission_error_everywhere(skill_dir: Path, tmp_path: Path) -> None:
    packed = tmp_path / "deep.json"
    packed.write_text('{"v": 1, "manifest": ' + _deep(100_000) + "}")
    with pytest.raises(SubmissionError, match="recursion limit"):
        read_bundle_file(packed)
    data = _manifest(skill_dir)
    (skill_dir / MANIFEST_FILE).write_text(
        json.dumps(data)[:-1] + ', "deep": ' + _deep(10_000) + "}"
    )
    assert_refused(skill_dir, "recursion limit", "fix the manifest")
    _write_manifest(skill_dir, data)
    (skill_dir / "refund-ticket.skill.json").write_text(_deep(50_000))
    assert_refused(skill_dir, "typed skill", "recursion limit")


def test_a_manifest_or_artifact_that_is_not_a_regular_file_is_refused(recipe_dir: Path) -> None:
    playbook = recipe_dir / "refund-playbook.md"
    playbook.unlink()
    os.mkfifo(playbook)
    assert_refused(recipe_dir, "missing or not a regular file")
    playbook.unlink()
    playbook.symlink_to(playbook)  # a loop
    assert_refused(recipe_dir, "refund-playbook.md")
    (recipe_dir / MANIFEST_FILE).unlink()
    (recipe_dir / MANIFEST_FILE).mkdir()
    assert_refused(recipe_dir, "no vwt-bundle.json")


def test_crlf_artifacts_hash_like_lf_ones(recipe_dir: Path) -> None:
    before = load_bundle_dir(recipe_dir)
    playbook = recipe_dir / "refund-playbook.md"
    playbook.write_bytes(playbook.read_bytes().replace(b"\n", b"\r\n"))
    assert load_bundle_dir(recipe_dir).hash == before.hash


def test_errors_print_bundle_text_escaped(tmp_path: Path) -> None:
    data = json.loads(reference_bundles()[1].canonical())
    data["files"]["\x1b[2Jevil"] = 1  # a non-string file text: the error names the key
    path = tmp_path / "b.json"
    path.write_text(json.dumps(data))
    with pytest.raises(SubmissionError) as e:
        read_bundle_file(path)
    assert "\\x1b[2Jevil" in str(e.value) and "\x1b" not in str(e.value)

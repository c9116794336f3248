"""Agent Skills folders in bundles: a folder with a script and a reference validates, packs and
loads back the same; an invalid one is refused with one line naming the file and the rule,
before anything is written or stored."""

from __future__ import annotations

import json
import os
import shutil
from pathlib import Path
from typing import Any

import pytest

from conditions import Cycle
from submissions import (
    MAX_ARTIFACT_BYTES,
    MAX_SKILL_FILES,
    SubmissionError,
    load_bundle_dir,
    read_bundle_file,
    skill_bundle,
    submit,
    submitted_bundles,
    write_bundle,
)

EXAMPLE = Path(__file__).parents[2] / "docs" / "examples" / "skills" / "refund-helper"


@pytest.fixture
def skill(tmp_path: Path) -> Path:
    """An editable copy of the example skill folder (SKILL.md, a reference, a script)."""
    return Path(shutil.copytree(EXAMPLE, tmp_path / "src" / "refund-helper"))


def _refusal(call: Any) -> SubmissionError:
    with pytest.raises(SubmissionError) as e:
        call()
    message = str(e.value)
    assert "\n" not in message and e.value.hint, message
    return e.value


def test_a_skill_folder_with_a_script_and_a_reference_makes_a_valid_bundle(
    skill: Path, tmp_path: Path
) -> None:
    bundle = skill_bundle(tmp_path / "b", [skill])
    assert set(bundle.files) == {
        "skills/refund-helper/SKILL.md",
        "skills/refund-helper/references/reason-codes.md",
        "skills/refund-helper/scripts/amount_format.py",
    }
    (entry,) = bundle.manifest.artifacts
    assert (entry.kind.value, entry.name, entry.path) == (
        "agent_skill",
        "refund-helper",
        "skills/refund-helper",
    )
    (agent,) = bundle.agent_artifacts().skills
    assert agent.scripts == ["scripts/amount_format.py"] and agent.contract is None
    assert "references/reason-codes.md" in agent.files
    again = load_bundle_dir(tmp_path / "b")
    packed = read_bundle_file(write_bundle(again, tmp_path / "b.json"))
    assert again.hash == bundle.hash == packed.hash


def test_a_text_change_in_any_file_of_the_folder_changes_the_hash(
    skill: Path, tmp_path: Path
) -> None:
    before = skill_bundle(tmp_path / "a", [skill]).hash
    script = tmp_path / "a" / "skills" / "refund-helper" / "scripts" / "amount_format.py"
    script.write_text(script.read_text() + "# edited\n")
    assert load_bundle_dir(tmp_path / "a").hash != before


@pytest.mark.parametrize(
    ("edit", "file", "rule"),
    [
        (lambda d: (d / "SKILL.md").write_text("# just markdown\n"), "SKILL.md", "front matter"),
        (
            lambda d: (d / "SKILL.md").write_text("---\nname: Refund\ndescription: d\n---\n"),
            "SKILL.md",
            "lower-case letters, digits and hyphens",
        ),
        (
            lambda d: (d / "SKILL.md").write_text("---\nname: other\ndescription: d\n---\n"),
            "SKILL.md",
            "must be the folder's name, 'refund-helper'",
        ),
        (lambda d: (d / "SKILL.md").unlink(), "SKILL.md", "missing"),
        (
            lambda d: (d / "references" / "leak.md").symlink_to("/etc/passwd"),
            "references/leak.md",
            "a symbolic link",
        ),
        (
            lambda d: (d / "up").symlink_to(d.parent, target_is_directory=True),
            "refund-helper/up",
            "a symbolic link",
        ),
        (lambda d: os.mkfifo(d / "scripts" / "pipe"), "scripts/pipe", "not a regular file"),
        (
            lambda d: (d / "assets.bin").write_bytes(b"\x89PNG\r\n\x1a\n\xff\x00"),
            "assets.bin",
            "not UTF-8 text",
        ),
        (
            lambda d: (d / "references" / "huge.md").write_text("x" * (MAX_ARTIFACT_BYTES + 1)),
            "references/huge.md",
            "over the limit",
        ),
        (
            lambda d: [(d / f"f{i}.md").write_text("x") for i in range(MAX_SKILL_FILES + 1)],
            "refund-helper",
            f"more than {MAX_SKILL_FILES} files",
        ),
        (lambda d: (d / "a:b.md").write_text("x"), "a:b.md", "file name"),
    ],
)
def test_an_invalid_folder_is_refused_in_one_line_naming_file_and_rule(
    skill: Path, tmp_path: Path, edit: Any, file: str, rule: str
) -> None:
    edit(skill)
    dest = tmp_path / "b"
    e = _refusal(lambda: skill_bundle(dest, [skill]))
    assert file in str(e) and rule in str(e), str(e)
    assert not dest.exists()  # nothing written


def test_a_folder_edited_inside_a_bundle_is_refused_on_load(skill: Path, tmp_path: Path) -> None:
    skill_bundle(tmp_path / "b", [skill])
    md = tmp_path / "b" / "skills" / "refund-helper" / "SKILL.md"
    md.write_text(md.read_text().replace("name: refund-helper", "name: refund--helper"))
    e = _refusal(lambda: load_bundle_dir(tmp_path / "b"))
    assert str(e).startswith(f"{tmp_path / 'b'}/skills/refund-helper/SKILL.md: name")
    assert "docs/skills.md" in str(e.hint)


def _packed(tmp_path: Path, skill: Path, edit: Any) -> Path:
    bundle = skill_bundle(tmp_path / "b", [skill])
    data = json.loads(bundle.canonical())
    edit(data)
    path = tmp_path / "edited.json"
    path.write_text(json.dumps(data))
    return path


@pytest.mark.parametrize(
    ("edit", "words"),
    [
        (
            lambda d: d["files"].update({"skills/refund-helper/../../etc/passwd": "x"}),
            ["without '..'"],
        ),
        (lambda d: d["files"].update({"skills/refund-helper//x.md": "x"}), ["normalised"]),
        (lambda d: d["files"].update({"elsewhere/x.md": "x"}), ["is neither"]),
        (
            lambda d: d["files"].update(
                {"skills/refund-helper/SKILL.md": "---\nname: refund-helper\n---\n"}
            ),
            ["skills/refund-helper/SKILL.md: front matter has no description"],
        ),
        (
            lambda d: d["manifest"]["artifacts"][0].update({"name": "renamed"}),
            ["must be the artifact's name in the manifest, 'renamed'"],
        ),
    ],
)
def test_a_tampered_packed_skill_is_refused(
    skill: Path, tmp_path: Path, edit: Any, words: list[str]
) -> None:
    e = _refusal(lambda: read_bundle_file(_packed(tmp_path, skill, edit)))
    for word in words:
        assert word in str(e), str(e)


def test_an_invalid_skill_is_not_stored_by_a_submission(
    skill: Path, tmp_path: Path, open_cycle: Cycle
) -> None:
    path = _packed(
        tmp_path,
        skill,
        lambda d: d["files"].update({"skills/refund-helper/SKILL.md": "no front matter"}),
    )
    _refusal(lambda: submit(open_cycle, read_bundle_file(path)))
    assert submitted_bundles(open_cycle) == []

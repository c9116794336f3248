"""A human adaptation: the kit exported (every file logged), the adapted bundle imported with
declared minutes, validated before anything is written."""

from __future__ import annotations

import json
import shutil
from pathlib import Path

import pytest

from adapt import KIT_FILE, AdaptError, Budget, BudgetExceeded, export_kit, import_adapted
from submissions import MANIFEST_FILE, load_bundle, reference_bundles
from tests.adapt._helpers import kit

SKILL = next(b for b in reference_bundles() if b.manifest.name == "typed-skill")
BUDGET = Budget(tokens=0, calls=0, seconds=0, human_minutes=60)


def _export(tmp_path: Path) -> Path:
    return export_kit(kit("support-ops@2-units", sample=3), SKILL, BUDGET, tmp_path / "kit")


def test_the_exported_kit_holds_the_sample_the_served_tools_and_the_bundle(
    tmp_path: Path,
) -> None:
    k = kit("support-ops@2-units", sample=3)
    out = export_kit(k, SKILL, BUDGET, tmp_path / "kit")
    described = json.loads((out / KIT_FILE).read_text())
    assert described["parent"] == SKILL.hash and described["budget"]["human_minutes"] == 60
    assert described["interfaces"]["support-ops"]["version"] == "2"
    tasks = sorted(p.name for p in (out / "tasks").iterdir())
    assert len(tasks) == 3 and all("__adapt__" in t for t in tasks)
    tools = json.loads((out / "tools" / "support-ops.json").read_text())
    assert (
        "amount"
        in next(t for t in tools if t["name"] == "issue_refund")["inputSchema"]["properties"]
    )
    assert load_bundle(out / "bundle").hash == SKILL.hash
    files = {str(p.relative_to(out)) for p in out.rglob("*") if p.is_file()}
    assert {e.id for e in k.log.entries if e.kind == "file"} == files
    with pytest.raises(AdaptError, match="not an empty directory"):
        export_kit(k, SKILL, BUDGET, out)


def test_an_adapted_bundle_is_imported_with_its_declared_minutes(tmp_path: Path) -> None:
    out = _export(tmp_path)
    skill_file = out / "bundle" / "skills" / "refund-ticket" / "SKILL.md"
    skill_file.write_text(skill_file.read_text().replace('"stop"', '"rebind_preserving"', 1))
    record = import_adapted(
        out / "bundle", SKILL, target="c-t", human_minutes=45, budget=BUDGET, out=tmp_path / "store"
    )
    assert record.procedure == "human" and record.cost.human_minutes == 45
    assert record.parent == SKILL.hash and (tmp_path / "store" / f"{record.hash}.json").is_file()


@pytest.mark.parametrize(
    ("minutes", "edit", "error"),
    [
        (61, None, "exceed the budget of 60"),
        (-1, None, "whole number"),
        (10, "missing", "not valid"),
        (10, "renamed", "is named 'someone-else'"),
    ],
)
def test_nothing_is_written_before_the_import_is_valid(
    tmp_path: Path, minutes: int, edit: str | None, error: str
) -> None:
    out = _export(tmp_path)
    manifest = json.loads((out / "bundle" / MANIFEST_FILE).read_text())
    if edit == "missing":
        shutil.rmtree(out / "bundle" / manifest["artifacts"][0]["path"])
    if edit == "renamed":
        manifest["name"] = "someone-else"
        (out / "bundle" / MANIFEST_FILE).write_text(json.dumps(manifest))
    store = tmp_path / "store"
    with pytest.raises((AdaptError, BudgetExceeded), match=error):
        import_adapted(
            out / "bundle", SKILL, target="c-t", human_minutes=minutes, budget=BUDGET, out=store
        )
    assert not store.exists()

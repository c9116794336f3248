"""Agent Skills folders from the command line: a skill written the way third parties write them
(the format's example shape: front matter with the optional fields, a Markdown body with code
fences, a bundled license, nested scripts, references and text assets, CRLF line ends) becomes a
bundle with `vwt submissions init --skill`, validates, packs and loads as the harness holds it;
a malformed one is refused with one `error:` and one `hint:` line before anything is written;
an old-IR typed skill converts."""

from __future__ import annotations

import json
from pathlib import Path

import pytest
from skills_ref import validate as reference_validate
from typer.testing import CliRunner

from benchmark.harness import AgentArtifacts
from benchmark.harness._artifacts import render_index
from submissions import MANIFEST_FILE, load_bundle_dir, read_bundle_file
from tests._skills import reference_contract
from tests.vwt.test_errors import assert_one_line_error
from vwt.cli import app

runner = CliRunner()

SKILL_MD = """\
---
name: csv-report
description: "Summarise CSV exports into a short report: totals, outliers and a chart spec. \
Use when the user shares a .csv file or asks for a spreadsheet summary."
license: Complete terms in LICENSE.txt
compatibility: Requires python3 (standard library only); works offline.
allowed-tools: Bash(python3:*) Read
metadata:
  author: example-org
  version: "2.1"
---

# CSV report

## Quick start

Run the summariser on the file, then read the thresholds before you call anything an outlier:

```bash
python3 scripts/summarise.py data.csv --top 5
```

---

## Details

- Column types: see [references/COLUMNS.md](references/COLUMNS.md).
- The report layout is `assets/report-template.md`.
- Helpers live in `scripts/lib/`; do not run them directly.
"""
FILES = {
    "LICENSE.txt": "Permission is hereby granted, free of charge, to any person ...\n",
    "scripts/summarise.py": "import sys\n\nprint('rows: 0', sys.argv[1:])\n",
    "scripts/lib/__init__.py": "",
    "scripts/lib/parse.py": "def parse(line):\n    return line.split(',')\n",
    "references/COLUMNS.md": "# Columns\n\n| type | rule |\n|---|---|\n| money | 2 dp |\n",
    "assets/report-template.md": "# Report for {{file}}\n\n{{totals}}\n",
}


def vwt(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    return result.exit_code, result.output


def _folder(root: Path, skill_md: str = SKILL_MD, crlf: bool = False) -> Path:
    folder = root / "csv-report"
    for rel, text in {"SKILL.md": skill_md, **FILES}.items():
        path = folder / rel
        path.parent.mkdir(parents=True, exist_ok=True)
        path.write_bytes(text.replace("\n", "\r\n" if crlf else "\n").encode())
    return folder


@pytest.mark.parametrize("crlf", [False, True], ids=["lf", "crlf"])
def test_a_third_party_skill_validates_packs_and_loads(tmp_path: Path, crlf: bool) -> None:
    folder = _folder(tmp_path / "src", crlf=crlf)
    assert reference_validate(folder) == []  # the format's own validator accepts it too
    dest = tmp_path / "bundle"
    code, out = vwt("submissions", "init", str(dest), "--skill", str(folder))
    assert code == 0, out
    assert "skill csv-report" in out
    code, out = vwt("submissions", "validate", str(dest))
    assert code == 0, out
    assert "agent_skill" in out and "csv-report" in out
    packed = tmp_path / "b.json"
    code, out = vwt("submissions", "pack", str(dest), "--out", str(packed))
    assert code == 0, out
    bundle = read_bundle_file(packed)
    assert bundle.hash == load_bundle_dir(dest).hash
    (skill,) = bundle.agent_artifacts().skills
    assert skill.front.license == "Complete terms in LICENSE.txt"
    assert skill.front.allowed_tools == "Bash(python3:*) Read"
    assert skill.front.metadata == {"author": "example-org", "version": "2.1"}
    assert skill.contract is None
    assert set(skill.files) == set(FILES)
    assert skill.scripts == [
        "scripts/lib/__init__.py",
        "scripts/lib/parse.py",
        "scripts/summarise.py",
    ]
    # the body is the Markdown after the front matter, its code fence and rule kept
    assert skill.body.lstrip().startswith("# CSV report") and "\n---\n" in skill.body
    assert "```bash\npython3 scripts/summarise.py" in skill.body
    index = render_index(AgentArtifacts(skills=(skill,)))
    assert "- csv-report: Summarise CSV exports into a short report: totals" in index


@pytest.mark.parametrize(
    ("edit", "rule"),
    [
        (lambda t: t.replace("name: csv-report", "name: CSV_Report"), "lower-case letters"),
        (lambda t: t.replace("name: csv-report", "name: csv-reports"), "folder's name"),
        (lambda t: t.split("---\n", 2)[2], "front matter"),
        (lambda t: t.replace('description: "', 'description: "' + "x" * 1100), "1024"),
        (lambda t: t.replace("license:", "owner: me\nlicense:"), "owner"),
        (lambda t: t.replace('  version: "2.1"', "  version:\n    major: 2"), "'version'"),
    ],
    ids=["name", "folder", "no-front-matter", "long-description", "unknown-field", "metadata"],
)
def test_a_malformed_skill_is_refused_in_one_line_before_anything_is_written(
    tmp_path: Path, edit: object, rule: str
) -> None:
    folder = _folder(tmp_path / "src", edit(SKILL_MD))  # type: ignore[operator]
    dest = tmp_path / "bundle"
    result = runner.invoke(
        app, ["submissions", "init", str(dest), "--skill", str(folder)], env={"COLUMNS": "250"}
    )
    error = assert_one_line_error(result, "SKILL.md", rule)
    assert "csv-report" in error
    assert not dest.exists()  # nothing written


def test_a_malformed_skill_inside_a_bundle_is_refused_by_validate_and_pack(tmp_path: Path) -> None:
    dest = tmp_path / "bundle"
    code, out = vwt("submissions", "init", str(dest), "--skill", str(_folder(tmp_path / "src")))
    assert code == 0, out
    md = dest / "skills" / "csv-report" / "SKILL.md"
    md.write_text(md.read_text().replace("name: csv-report", "name: csv--report"))
    packed = tmp_path / "b.json"
    for args in (["validate", str(dest)], ["pack", str(dest), "--out", str(packed)]):
        result = runner.invoke(app, ["submissions", *args], env={"COLUMNS": "250"})
        assert_one_line_error(result, "skills/csv-report/SKILL.md", "--")
    assert not packed.exists()


def test_an_old_ir_typed_skill_converts_to_an_agent_skill_with_its_contract(tmp_path: Path) -> None:
    legacy_bundle = tmp_path / "legacy"
    legacy_bundle.mkdir()
    contract = reference_contract("refund-ticket").model_dump(mode="json", exclude_unset=True)
    (legacy_bundle / "refund-ticket.skill.json").write_text(json.dumps(contract, indent=2))
    artifact = {"kind": "typed_skill", "name": "refund-ticket", "path": "refund-ticket.skill.json"}
    manifest = {"v": 1, "name": "legacy", "version": "1", "artifacts": [artifact]}
    (legacy_bundle / MANIFEST_FILE).write_text(json.dumps(manifest))
    out_dir = tmp_path / "converted"
    code, out = vwt("submissions", "convert", str(legacy_bundle), "--out", str(out_dir))
    assert code == 0, out
    assert "converted" in out
    (skill,) = load_bundle_dir(out_dir).agent_artifacts().skills
    assert skill.name == "refund-ticket" and skill.contract is not None
    assert skill.contract == reference_contract("refund-ticket")
    assert reference_validate(out_dir / "skills" / "refund-ticket") == []

"""The submitter's own command runs in a sandbox with only the kit mounted, and its bundle is
taken only if it is a valid bundle of the same submission."""

from __future__ import annotations

import sys

from adapt import OUTPUT, command_procedure
from submissions import reference_bundles
from tests.adapt._helpers import gateway, kit

RECIPE = next(b for b in reference_bundles() if b.manifest.name == "prompt-recipe")

ADAPT = f"""
import json, os, pathlib
kit = pathlib.Path("kit")
names = sorted(p.name for p in kit.iterdir())
assert names == ["README.md", "bundle", "kit.json", "tasks", "tools"], names
manifest = json.loads((kit / "bundle" / "vwt-bundle.json").read_text())
files = {{a["path"]: (kit / "bundle" / a["path"]).read_text() for a in manifest["artifacts"]}}
first = sorted(files)[0]
files[first] += "Amounts are in dollars now.\\n"
os.makedirs("out")
pathlib.Path("{OUTPUT}").write_text(json.dumps({{"v": 1, "manifest": manifest, "files": files}}))
"""


def test_the_command_sees_the_kit_and_its_bundle_is_taken() -> None:
    k = kit("support-ops@2-units", sample=2)
    run = command_procedure([sys.executable, "-I", "-c", ADAPT], sandbox="local")
    adapted = run(RECIPE, k, gateway())
    assert adapted.notes == ("the command exited 0",)
    first = sorted(RECIPE.files)[0]
    assert adapted.bundle.files[first].endswith("Amounts are in dollars now.\n")
    assert [d.path for d in adapted.diff if d.status == "changed"] == [first]
    assert adapted.parent == RECIPE.hash and adapted.procedure == "command"
    assert any(e.kind == "task" for e in k.log.entries) and not k.log.refused()


def test_a_failing_or_silent_command_leaves_the_bundle_as_it_was() -> None:
    for code, why in (
        ("import sys; sys.stderr.write('no luck'); sys.exit(3)", "exited 3: no luck"),
        ("pass", f"wrote no {OUTPUT}"),
        (
            "import os; os.makedirs('out'); open('out/bundle.json', 'w').write('{}')",
            "(manifest: Field required)",
        ),
    ):
        run = command_procedure([sys.executable, "-I", "-c", code], sandbox="local")
        adapted = run(RECIPE, kit("support-ops@2-units", sample=1), gateway())
        assert adapted.hash == RECIPE.hash and not adapted.changed
        assert why in " ".join(adapted.notes), adapted.notes


def test_the_command_runs_for_the_seconds_left_at_most() -> None:
    run = command_procedure(
        [sys.executable, "-I", "-c", "import time; time.sleep(30)"], sandbox="local"
    )
    adapted = run(RECIPE, kit("support-ops@2-units", sample=1), gateway(seconds=2))
    assert "timed out" in adapted.notes[0] and adapted.hash == RECIPE.hash
    assert adapted.cost.seconds < 10

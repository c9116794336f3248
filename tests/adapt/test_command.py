"""The submitter's own command runs in a sandbox with only the kit mounted, and its bundle is
taken only if it is a valid bundle of the same submission; its output is read as untrusted
(bounded, never through a link), in the local and the Docker sandbox."""

from __future__ import annotations

import pytest

from adapt import OUTPUT, command_procedure
from runner import docker_status
from submissions import MAX_BUNDLE_BYTES, reference_bundles
from tests.adapt._helpers import gateway, kit

PYTHON = ["python3", "-I", "-c"]
"""The command's interpreter, found on the sandbox's PATH (the host's may live in a home the
sandbox's user cannot enter)."""

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
    run = command_procedure([*PYTHON, ADAPT], sandbox="local")
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
        run = command_procedure([*PYTHON, code], sandbox="local")
        adapted = run(RECIPE, kit("support-ops@2-units", sample=1), gateway())
        assert adapted.hash == RECIPE.hash and not adapted.changed
        assert why in " ".join(adapted.notes), adapted.notes


def test_the_command_runs_for_the_seconds_left_at_most() -> None:
    run = command_procedure([*PYTHON, "import time; time.sleep(30)"], sandbox="local")
    adapted = run(RECIPE, kit("support-ops@2-units", sample=1), gateway(seconds=2))
    assert "timed out" in adapted.notes[0] and adapted.hash == RECIPE.hash
    assert adapted.cost.seconds < 10


_DOCKER, _WHY = docker_status()
SANDBOXES = [
    "local",
    pytest.param(
        "docker",
        marks=[
            pytest.mark.docker,
            pytest.mark.skipif(not _DOCKER, reason=f"{_WHY}; run `make sandbox`"),
        ],
    ),
]
HUGE = f"import os; os.makedirs('out'); open('{OUTPUT}', 'wb').truncate({MAX_BUNDLE_BYTES + 1})"
"""An output one byte over the bundle limit (sparse: cheap to write, costly to read)."""


@pytest.mark.parametrize("sandbox", SANDBOXES)
@pytest.mark.parametrize(
    ("code", "why"),
    [
        (HUGE, f"{MAX_BUNDLE_BYTES + 1} bytes, over {MAX_BUNDLE_BYTES}"),
        (f"import os; os.makedirs('out'); os.symlink('/dev/zero', '{OUTPUT}')", "symbolic link"),
        (
            "import os; os.makedirs('real'); open('real/bundle.json', 'w').write('{}'); "
            "os.symlink('real', 'out')",
            "symbolic link",
        ),
        (f"import os; os.makedirs('out'); os.mkfifo('{OUTPUT}')", "not a regular file"),
    ],
    ids=["over-the-limit", "link-to-dev-zero", "linked-directory", "fifo"],
)
def test_an_output_that_cannot_be_read_safely_is_a_note_not_a_crash(
    sandbox: str, code: str, why: str
) -> None:
    run = command_procedure([*PYTHON, code], sandbox=sandbox)
    adapted = run(RECIPE, kit("support-ops@2-units", sample=1), gateway())
    assert adapted.hash == RECIPE.hash and not adapted.changed
    assert len(adapted.notes) == 1, adapted.notes
    assert adapted.notes[0].startswith(f"the command exited 0; {OUTPUT} not read: "), adapted.notes
    assert why in adapted.notes[0], adapted.notes

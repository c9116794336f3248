"""The README's and docs' shell blocks say what the CLI does.

Every ```` ```bash ```` block of README.md and docs/*.md is read line by line: each ``vwt``
command in it must name a command that exists and only options that command has (placeholders
such as ``H``, ``KEY`` or ``[--json]`` are taken as written: an optional option in brackets must
exist too). Blocks whose info string is ``bash run`` are run as well, in order, each document's
in one scratch directory with ``vwt`` on the path: every line must exit 0.
"""

from __future__ import annotations

import os
import re
import shlex
import subprocess
import sys
import textwrap
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import typer

from vwt.cli import app

ROOT = Path(__file__).resolve().parents[1]
DOCS = [ROOT / "README.md", *sorted((ROOT / "docs").glob("*.md"))]
FENCE = re.compile(r"^[ \t]*```(\S*)([^\n]*)\n(.*?)^[ \t]*```[ \t]*$", re.M | re.S)


@dataclass(frozen=True)
class Block:
    doc: Path
    line: int
    run: bool
    text: str


def blocks(doc: Path) -> list[Block]:
    """The bash blocks of ``doc``."""
    text = doc.read_text()
    found = []
    for match in FENCE.finditer(text):
        if match.group(1) not in ("bash", "sh"):
            continue
        line = text.count("\n", 0, match.start()) + 1
        body = textwrap.dedent(match.group(3))
        found.append(Block(doc, line, match.group(2).split() == ["run"], body))
    return found


def commands(block: Block) -> list[str]:
    """Each ``vwt …`` command of a block: continuation lines joined, comments, prompts and the
    commands around it (``&&``, ``;``, ``|``, ``$(…)``, ``(…)``) cut off."""
    joined = re.sub(r"\\\n\s*", " ", block.text)
    found = []
    for raw in joined.splitlines():
        line = re.sub(r"(^|\s)#.*$", "", raw).strip()
        for part in re.split(r"&&|\|\||;|\||\$\(|\(|\)|`", line):
            part = part.strip()
            part = re.sub(r"^(\w+=\S*\s+)+", "", part)  # VAR=value vwt …
            if part.startswith("vwt ") or part == "vwt":
                found.append(part)
    return found


ALL = [b for doc in DOCS for b in blocks(doc)]
CLI = typer.main.get_command(app)


def _resolve(words: list[str]) -> tuple[Any, list[str], list[str]]:
    """(command, its path, the words after it)."""
    command, path = CLI, []
    while words and hasattr(command, "get_command"):
        sub = command.get_command(None, words[0])
        if sub is None:
            break
        command, path, words = sub, [*path, words[0]], words[1:]
    return command, path, words


def _options(command: Any) -> set[str]:
    names = {"--help"}
    for param in command.params:
        names |= set(getattr(param, "opts", ())) | set(getattr(param, "secondary_opts", ()))
    return names


def check(command_line: str) -> list[str]:
    """What is wrong with one documented ``vwt`` command: unknown commands or options."""
    try:
        words = shlex.split(command_line)[1:]
    except ValueError as err:
        return [f"cannot be read as shell: {err}"]
    command, path, rest = _resolve(words)
    if hasattr(command, "get_command") and not any(w.startswith("-") for w in rest[:1]):
        if rest and not rest[0].isupper() and rest[0] not in ("…", "..."):
            return [f"'vwt {' '.join(path)}' has no command {rest[0]!r}"]
        if not rest:
            return []
    known = _options(command)
    wrong = []
    for word in rest:
        for token in re.findall(r"(?<![\w-])(--?[A-Za-z][\w-]*)", word.replace("|", " ")):
            if token not in known:
                wrong.append(f"'vwt {' '.join(path)}' has no option {token}")
    return wrong


def test_the_docs_have_bash_blocks_with_vwt_commands() -> None:
    readme = [b for b in ALL if b.doc.name == "README.md"]
    assert readme and sum(len(commands(b)) for b in readme) >= 10
    assert any(b.run for b in ALL)


def test_the_checker_finds_unknown_commands_and_options() -> None:
    assert check("vwt report verify public/ --json") == []
    assert check("vwt report verify public/ [--key FINGERPRINT]") == []
    assert check("vwt report verifyy public/") != []
    assert check("vwt report verify public/ --jsn") != []
    assert check("vwt run frozen --home H [--sandbox auto|docker|local]") == []
    text = "a\n```bash\nvwt drift diff a b  # compare\ncd x && vwt cycle status --home H\n```\n"
    block = Block(Path("x.md"), 1, False, FENCE.search(text).group(3))  # type: ignore[union-attr]
    assert commands(block) == ["vwt drift diff a b", "vwt cycle status --home H"]


@pytest.mark.parametrize("block", ALL, ids=lambda b: f"{b.doc.name}:{b.line}")
def test_every_documented_command_exists_with_its_options(block: Block) -> None:
    problems = [f"{c}: {p}" for c in commands(block) for p in check(c)]
    assert not problems, f"{block.doc.name}:{block.line}: " + "; ".join(problems)


RUN = sorted({b.doc for b in ALL if b.run})


@pytest.mark.slow
@pytest.mark.parametrize("doc", RUN, ids=lambda d: d.name)
def test_the_runnable_blocks_run(doc: Path, tmp_path: Path) -> None:
    env = {
        **os.environ,
        "PATH": f"{Path(sys.executable).parent}{os.pathsep}{os.environ.get('PATH', '')}",
        "HOME": str(tmp_path),
        "COLUMNS": "100",
    }
    env.pop("VWT_HOME", None)
    for block in (b for b in blocks(doc) if b.run):
        script = "set -euo pipefail\n" + block.text
        done = subprocess.run(
            ["bash", "-c", script], cwd=tmp_path, env=env, capture_output=True, text=True
        )
        where = f"{doc.name}:{block.line}"
        assert done.returncode == 0, f"{where}\n{done.stdout[-2000:]}\n{done.stderr[-2000:]}"


def test_the_readme_is_a_front_door_linking_every_doc() -> None:
    readme = (ROOT / "README.md").read_text()
    assert len(readme.splitlines()) <= 300
    linked = set(re.findall(r"\]\(docs/([\w.-]+\.md)\)", readme))
    assert {d.name for d in DOCS if d.parent.name == "docs"} <= linked
    assert all((ROOT / "docs" / name).is_file() for name in linked)

"""Skill scripts run in the batch's sandbox: the harness's ``ScriptRunner``, as the worker
passes it in.

Before the sandbox starts, :func:`skill_mount` writes the folders of the skills that have
scripts to a private host directory, with the in-sandbox runner (``_skill_exec.py``) and
``run_limited`` beside them, and mounts it read-only. :class:`SandboxScripts` then runs each
script as ``sandbox.exec`` of that runner, in the skill's folder, under the sandbox's limits
(Docker: no network, bounded memory, CPUs and processes) and its own time and output limits.
Nothing of a script runs on the host outside the sandbox.
"""

from __future__ import annotations

import contextlib
import json
import os
import shutil
import tempfile
from collections.abc import Iterator, Sequence
from pathlib import Path, PurePosixPath

from benchmark._sandbox_exec import run_limited
from benchmark.harness import AgentSkill, ScriptRun
from runner._sandbox_base import Mount, Sandbox

SKILLS_TARGET = "vwt-skills"
"""Where the skills with scripts are mounted, relative to the sandbox's working directory."""
SCRIPT_TIMEOUT_S = 30.0
"""Seconds a script may run before it and everything it started is killed."""
SCRIPT_OUTPUT = 16 * 1024
"""Bytes of each of a script's stdout and stderr kept and returned to the model."""
_GRACE_S = 10.0
"""Extra seconds the sandbox gives the runner around the script's own limit."""
_RUNNER = Path(__file__).with_name("_skill_exec.py")
_EXEC = Path(run_limited.__code__.co_filename)
_INTERPRETERS = {".py": None, ".sh": ("sh",), ".bash": ("bash",)}
"""Script suffix → interpreter (None: the sandbox's Python)."""


@contextlib.contextmanager
def skill_mount(skills: Sequence[AgentSkill]) -> Iterator[Mount | None]:
    """A read-only mount of the folders of ``skills`` that have scripts, with the runner; None
    when none has. The host directory is removed on leaving."""
    with_scripts = [s for s in skills if s.scripts]
    if not with_scripts:
        yield None
        return
    root = Path(tempfile.mkdtemp(prefix="vwt-skills-"))
    try:
        shutil.copyfile(_RUNNER, root / "skill_exec.py")
        shutil.copyfile(_EXEC, root / "_sandbox_exec.py")
        for skill in with_scripts:
            for rel, text in skill.files.items():
                # paths were checked when the bundle was (relative, no '..'): stay inside
                dest = root / "s" / skill.name / PurePosixPath(rel)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_text(text, encoding="utf-8")
        for path in [root, *root.rglob("*")]:
            os.chmod(path, 0o755 if path.is_dir() else 0o644)
        yield Mount(root, SKILLS_TARGET)
    finally:
        shutil.rmtree(root, ignore_errors=True)


class SandboxScripts:
    """Runs skill scripts in ``sandbox`` (started, with :func:`skill_mount`'s mount)."""

    def __init__(self, sandbox: Sandbox, timeout_s: float = SCRIPT_TIMEOUT_S) -> None:
        """Scripts run in ``sandbox``, each killed after ``timeout_s`` seconds."""
        self.sandbox, self.timeout_s = sandbox, timeout_s

    async def run(self, skill: str, path: str, args: Sequence[str]) -> ScriptRun:
        """Run script ``path`` of ``skill`` with ``args`` in the skill's folder."""
        suffix = PurePosixPath(path).suffix
        if suffix not in _INTERPRETERS:
            return self._refused(
                f"{path}: scripts run as Python (.py) or shell (.sh, .bash), not {suffix or '?'}"
            )
        interpreter = _INTERPRETERS[suffix] or tuple(self.sandbox.python)
        cmd = [
            *self.sandbox.python,
            f"{SKILLS_TARGET}/skill_exec.py",
            f"{self.timeout_s:g}",
            str(SCRIPT_OUTPUT),
            f"{SKILLS_TARGET}/s/{skill}",
            *interpreter,
            path,
            *args,
        ]
        done = await self.sandbox.exec(cmd, timeout=self.timeout_s + _GRACE_S)
        try:
            result = json.loads(done.stdout.decode(errors="replace").strip().splitlines()[-1])
        except (json.JSONDecodeError, IndexError):
            # the runner itself was killed (the sandbox's time or memory limit)
            return ScriptRun(
                exit_code=done.returncode or 137,
                stdout="",
                stderr=done.stderr.decode(errors="replace")[-SCRIPT_OUTPUT:],
                timed_out=done.timed_out,
                where=self.sandbox.kind,
            )
        return ScriptRun(
            exit_code=int(result["exit"]),
            stdout=str(result["stdout"]),
            stderr=str(result["stderr"]),
            timed_out=bool(result["timed_out"]),
            truncated=bool(result["truncated"]),
            where=self.sandbox.kind,
        )

    def _refused(self, why: str) -> ScriptRun:
        return ScriptRun(exit_code=126, stdout="", stderr=why, where=self.sandbox.kind)

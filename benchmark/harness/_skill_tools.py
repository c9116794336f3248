"""The harness's skill tools: activation (``load_skill``), reading a skill's files and running
its scripts. They are harness tools, not the environment's: they never reach the backend.

Files are served from the skill as submitted (its text in the bundle), so a read cannot leave
the skill's folder: only a path the folder holds is found. Scripts run through a
:class:`ScriptRunner` the caller passes in — the runner's, in the batch's sandbox — and never
on the host; without one the harness does not offer ``run_skill_script``.
"""

from __future__ import annotations

from collections.abc import Callable, Sequence
from dataclasses import dataclass
from posixpath import normpath
from typing import Any, Protocol

from benchmark._environment import ToolResult
from benchmark.harness._agent_skill import SCRIPTS_DIR, AgentSkill
from benchmark.harness._artifacts import Recipe, render_recipe, render_skill
from benchmark.harness._skill_ir import TypedSkill

LOAD_SKILL = "load_skill"
READ_SKILL_FILE = "read_skill_file"
RUN_SKILL_SCRIPT = "run_skill_script"
SKILL_TOOLS = frozenset({LOAD_SKILL, READ_SKILL_FILE, RUN_SKILL_SCRIPT})
"""The names of the harness's skill tools."""
MAX_FILE_CHARS = 32_000
"""Characters of a skill file returned to the model by one read."""
MAX_SCRIPT_ARGS = 32
MAX_ARG_CHARS = 1_000


@dataclass(frozen=True)
class ScriptRun:
    """How one script run ended."""

    exit_code: int
    """Its exit status (128 + the signal number when killed, 137 at the time limit)."""
    stdout: str
    """The first bytes of its standard output (decoded, bad bytes replaced)."""
    stderr: str
    """The first bytes of its standard error."""
    timed_out: bool = False
    """Whether it was killed at the time limit."""
    truncated: bool = False
    """Whether either stream was longer than what is kept."""
    where: str = "sandbox"
    """Where it ran (the sandbox kind), for the trace."""


class ScriptRunner(Protocol):
    """Runs a skill's script somewhere isolated (the batch's sandbox)."""

    async def run(self, skill: str, path: str, args: Sequence[str]) -> ScriptRun:
        """Run the script ``path`` of skill ``skill`` with ``args``, in the skill's folder."""
        ...


Guard = Callable[[TypedSkill], TypedSkill | None]
"""The runtime's check of a contract: the contract to show (maybe rebound), or None after a
safe stop."""


def _tool(name: str, description: str, properties: dict[str, Any], required: list[str]) -> dict:
    return {
        "type": "function",
        "function": {
            "name": name,
            "description": description,
            "parameters": {
                "type": "object",
                "properties": properties,
                "required": required,
                "additionalProperties": False,
            },
        },
    }


def _inside(path: Any) -> str | None:
    """``path`` as a normalised relative path, or None if it is not one inside a folder."""
    if not isinstance(path, str) or not path or path.startswith("/") or "\\" in path:
        return None
    norm = normpath(path)
    return None if norm == ".." or norm.startswith("../") else norm


def _error(text: str) -> ToolResult:
    return ToolResult(content=f"error: {text}", is_error=True)


class SkillTools:
    """The skill tools of one agent run: which it offers, and what each call returns."""

    def __init__(
        self,
        recipes: Sequence[Recipe],
        skills: Sequence[AgentSkill],
        guard: Guard,
        runner: ScriptRunner | None,
        on_demand: bool,
    ) -> None:
        self.recipes = {r.name: r for r in recipes}
        self.skills = {s.name: s for s in skills}
        self.guard, self.runner, self.on_demand = guard, runner, on_demand

    def definitions(self) -> list[dict[str, Any]]:
        """The tool definitions to offer the model."""
        out = []
        names = [*self.recipes, *self.skills]
        if self.on_demand and names:
            out.append(
                _tool(
                    LOAD_SKILL,
                    "Load the full text of a skill or playbook by name.",
                    {"name": {"type": "string", "enum": names}},
                    ["name"],
                )
            )
        with_files = [s.name for s in self.skills.values() if s.files]
        if with_files:
            out.append(
                _tool(
                    READ_SKILL_FILE,
                    "Read a file of a skill: a path its instructions name, relative to the "
                    "skill's folder (e.g. references/guide.md).",
                    {"skill": {"type": "string", "enum": with_files}, "path": {"type": "string"}},
                    ["skill", "path"],
                )
            )
        with_scripts = [s.name for s in self.skills.values() if s.scripts]
        if with_scripts and self.runner is not None:
            out.append(
                _tool(
                    RUN_SKILL_SCRIPT,
                    "Run a script of a skill (a path under scripts/, e.g. scripts/check.py) in "
                    "the sandbox, without network; returns its exit status, stdout and stderr.",
                    {
                        "skill": {"type": "string", "enum": with_scripts},
                        "path": {"type": "string"},
                        "args": {"type": "array", "items": {"type": "string"}},
                    },
                    ["skill", "path"],
                )
            )
        return out

    def rendered(self, skill: AgentSkill) -> str | None:
        """``skill`` as the model reads it once activated, or None after a safe stop."""
        if skill.contract is None:
            return render_skill(skill)
        usable = self.guard(skill.contract)
        return None if usable is None else render_skill(skill, usable)

    async def call(self, name: str, args: dict[str, Any]) -> ToolResult:
        """The result of the skill tool ``name`` called with ``args``."""
        if name == LOAD_SKILL:
            return self._load(args)
        skill = self.skills.get(args.get("skill"))  # type: ignore[arg-type]
        if skill is None:
            return _error(f"no skill named {args.get('skill')!r}")
        path = _inside(args.get("path"))
        if path is None:
            return _error("path must be a relative path inside the skill's folder")
        if name == READ_SKILL_FILE:
            return self._read(skill, path)
        return await self._run(skill, path, args.get("args", []))

    def _load(self, args: dict[str, Any]) -> ToolResult:
        name = args.get("name")
        if name in self.recipes:
            return ToolResult(content=render_recipe(self.recipes[name]))
        skill = self.skills.get(name)  # type: ignore[arg-type]
        if skill is None:
            return _error(f"no skill named {name!r}")
        text = self.rendered(skill)
        if text is None:
            return _error(f"skill {name!r} stopped: its declared interface is not the served one")
        return ToolResult(content=text)

    @staticmethod
    def _read(skill: AgentSkill, path: str) -> ToolResult:
        text = skill.files.get(path)
        if text is None:
            listed = ", ".join(sorted(skill.files)) or "none"
            return _error(f"skill {skill.name!r} has no file {path!r} (files: {listed})")
        more = len(text) - MAX_FILE_CHARS
        cut = f"\n… ({more:,} more characters)" if more > 0 else ""
        return ToolResult(
            content=f'<skill name="{skill.name}" file="{path}">\n{text[:MAX_FILE_CHARS]}{cut}\n'
            "</skill>"
        )

    async def _run(self, skill: AgentSkill, path: str, args: Any) -> ToolResult:
        if self.runner is None:
            return _error("scripts cannot run in this harness (no sandbox)")
        if not path.startswith(SCRIPTS_DIR) or path not in skill.files:
            listed = ", ".join(skill.scripts) or "none"
            return _error(f"skill {skill.name!r} has no script {path!r} (scripts: {listed})")
        if (
            not isinstance(args, list)
            or len(args) > MAX_SCRIPT_ARGS
            or not all(isinstance(a, str) and len(a) <= MAX_ARG_CHARS for a in args)
        ):
            return _error(
                f"args must be a list of at most {MAX_SCRIPT_ARGS} strings of at most "
                f"{MAX_ARG_CHARS} characters"
            )
        done = await self.runner.run(skill.name, path, args)
        status = "timed out" if done.timed_out else f"exited {done.exit_code}"
        cut = " (output truncated)" if done.truncated else ""
        head = f"script {path} of skill {skill.name} {status} in the {done.where} sandbox{cut}"
        text = (
            f'{head}\n<skill name="{skill.name}" script="{path}">\n{done.stdout.strip()}\n'
            f"</skill>\nstderr:\n{done.stderr.strip()}"
        )
        failed = done.timed_out or done.exit_code != 0
        return ToolResult(content=f"error: {text}" if failed else text, is_error=failed)

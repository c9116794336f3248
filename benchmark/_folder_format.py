"""The format of a task family written as a folder: ``family.yaml`` and its task lines.

Pydantic models with ``extra="forbid"`` and bounds on every size; the loader
(:mod:`benchmark._folder_load`) validates a folder against them before anything is used.
docs/folder-families.md describes the format for people.
"""

from __future__ import annotations

import re
from typing import Any, Literal, Self

from pydantic import BaseModel, ConfigDict, Field, field_validator, model_validator

from drift import ToolCall

FAMILY_FILE = "family.yaml"
"""The file that makes a folder a task family."""
EXAMPLES = "examples"
"""The split name of worked examples: public, never evaluated."""
PLACES = ("state", "family", "servers")
"""Placeholders a server command may use: the trial's state directory, the family's folder,
the directory of installed MCP servers (``VWT_MCP_SERVERS``), each as a sandbox path."""
VERIFIER_PLACES = ("family",)
"""Placeholders a verifier command may use (it runs in the trial's state directory)."""
MAX_TASK_FILES = 500
"""Files a task's initial state holds at most (the family's ``state`` folder included)."""
MAX_TASK_BYTES = 4 * 1024 * 1024
"""Largest total size of a task's initial files."""
MAX_PATH = 255
"""Longest path of a state file."""

_ID = r"^[a-z][a-z0-9_]{0,39}$"
_ENV = r"^[a-z][a-z0-9-]{0,39}$"
_WORD = r"^[A-Za-z0-9][A-Za-z0-9._+-]{0,63}$"
_PLACE = re.compile(r"\{([^{}]*)\}")


class _Strict(BaseModel):
    model_config = ConfigDict(frozen=True, extra="forbid")


def state_path(value: str) -> str:
    """``value`` if it is a relative POSIX path inside a state directory, else ValueError."""
    parts = value.split("/")
    if (
        not value
        or len(value) > MAX_PATH
        or value.startswith("/")
        or any(p in ("", ".", "..") for p in parts)
        or not value.isprintable()
        or "\\" in value
    ):
        raise ValueError(
            f"{value[:80]!r} is not a relative path inside the state (no '..', no leading '/', "
            f"no empty parts, at most {MAX_PATH} characters)"
        )
    return value


def _command(argv: list[str], places: tuple[str, ...]) -> list[str]:
    for arg in argv:
        unknown = [p for p in _PLACE.findall(arg) if p not in places]
        if unknown:
            raise ValueError(
                f"{arg[:80]!r} uses {{{unknown[0]}}}; a command may use "
                + ", ".join(f"{{{p}}}" for p in places)
            )
    return argv


Command = list[str]


class Verifier(_Strict):
    """The family's verifier command: run in the sandbox, in the trial's state directory, after
    the agent stopped; it prints one JSON verdict ``{"passed": bool, "reasons": [str]}``."""

    command: Command = Field(
        min_length=1,
        max_length=32,
        description="argv, e.g. [sh, '{family}/verify.sh']; {family} is the family's folder.",
    )
    timeout_s: float = Field(default=20, gt=0, le=120, description="Seconds it may run.")

    @field_validator("command")
    @classmethod
    def _places(cls, argv: list[str]) -> list[str]:
        if any(len(a) > 1024 for a in argv):
            raise ValueError("an argument is longer than 1024 characters")
        return _command(argv, VERIFIER_PLACES)


class Version(_Strict):
    """A tool-interface version: a *release* (its own server command and tools file: e.g. one
    released version of a real server) or a *drifted* version (drift operators applied, through
    the drift proxy, to the version ``parent`` names)."""

    id: str = Field(pattern=_WORD.replace("^", "^[a-z][a-z0-9-]{0,39}@"), max_length=80)
    label: str = Field(pattern=_WORD, description="The version the server announces.")
    server: Command | None = Field(
        default=None,
        min_length=1,
        max_length=32,
        description="A release's stdio MCP server command; {state} is the trial's state "
        "directory, {family} the family's folder, {servers} the installed MCP servers.",
    )
    tools: str | None = Field(
        default=None, description="A release's tools file in the folder (a tools/list result)."
    )
    parent: str | None = Field(default=None, description="A drifted version's parent version id.")
    ops: list[dict[str, Any]] = Field(
        default_factory=list,
        max_length=32,
        description="A drifted version's operators ({op: KIND, ...}, as `vwt drift ops` lists).",
    )

    @field_validator("server")
    @classmethod
    def _places(cls, argv: list[str] | None) -> list[str] | None:
        if argv is not None and any(len(a) > 1024 for a in argv):
            raise ValueError("an argument is longer than 1024 characters")
        return None if argv is None else _command(argv, PLACES)

    @model_validator(mode="after")
    def _one_kind(self) -> Self:
        release = self.server is not None or self.tools is not None
        drifted = self.parent is not None or bool(self.ops)
        if release == drifted:
            raise ValueError(
                "a version is a release (server and tools) or drifted (parent and ops), not "
                "both or neither"
            )
        if release and (self.server is None or self.tools is None):
            raise ValueError("a release needs both server and tools")
        if drifted and (self.parent is None or not self.ops):
            raise ValueError("a drifted version needs parent and ops")
        return self

    @property
    def release(self) -> bool:
        """Whether this version is a release (its own server), not drift over another."""
        return self.server is not None


class Environment(_Strict):
    """The environment: an MCP server per trial over a state directory of files."""

    id: str = Field(pattern=_ENV, description="Environment id, e.g. 'files'.")
    state: str | None = Field(
        default=None, description="A folder of files every task's state starts with."
    )
    effects: dict[str, list[str]] = Field(
        min_length=1,
        max_length=64,
        description="Tools with effect → the arguments that identify the effect (for the "
        "drift oracle), e.g. {move_file: [source, destination]}.",
    )
    versions: list[Version] = Field(
        min_length=1, max_length=32, description="Interface versions; the first is the base."
    )
    concurrency: int = Field(
        default=6, ge=1, le=16, description="Trial servers one sandbox runs at once."
    )

    @model_validator(mode="after")
    def _versions(self) -> Self:
        ids = [v.id for v in self.versions]
        for i, v in enumerate(self.versions):
            if not v.id.startswith(f"{self.id}@"):
                raise ValueError(f"versions.{i}.id {v.id!r} must start with '{self.id}@'")
            if ids.count(v.id) > 1:
                raise ValueError(f"versions.{i}.id {v.id!r} is listed twice")
            if v.parent is not None and v.parent not in ids[:i]:
                raise ValueError(f"versions.{i}.parent {v.parent!r} is not a version above it")
        if not self.versions[0].release:
            raise ValueError("versions.0 must be a release (server and tools): the base")
        return self


class FamilyFile(_Strict):
    """``family.yaml``."""

    v: Literal[1] = Field(description="Format version (1).")
    id: str = Field(pattern=_ID, description="Family id, e.g. 'file_ops'.")
    description: str = Field(min_length=1, max_length=2000, description="What the tasks are.")
    version: str = Field(pattern=_WORD, description="Version of the task set; bump on a change.")
    verifier_version: str | None = Field(
        default=None, pattern=_WORD, description="Version of the verifier (default: version)."
    )
    splits: dict[str, str] = Field(
        min_length=1,
        max_length=8,
        description="Split name → its JSON-lines file; a split named 'examples' holds worked "
        "examples, never evaluated.",
    )
    environment: Environment = Field(description="The MCP server and its state.")
    verifier: Verifier | None = Field(
        default=None, description="The verifier command, for tasks without 'expected'."
    )
    sim_pack: str | None = Field(
        default=None, description="A sim knowledge pack (YAML file), so sim models know it."
    )

    @field_validator("splits")
    @classmethod
    def _split_names(cls, splits: dict[str, str]) -> dict[str, str]:
        for name in splits:
            if not re.match(r"^[a-z][a-z0-9_]{0,31}$", name):
                raise ValueError(f"split name {name!r}: lower-case letters, digits and '_'")
        if set(splits) == {EXAMPLES}:
            raise ValueError("every split is 'examples': a family needs a split to evaluate")
        return splits


class Expected(_Strict):
    """The end state a task asks for, compared by vwt: the initial files with these changes,
    and nothing else changed."""

    files: dict[str, str | None] = Field(
        default_factory=dict,
        max_length=MAX_TASK_FILES,
        description="Path → its content afterwards; null: the file is gone.",
    )
    dirs: list[str] = Field(
        default_factory=list, max_length=MAX_TASK_FILES, description="Folders that must exist."
    )

    @field_validator("files")
    @classmethod
    def _file_paths(cls, files: dict[str, str | None]) -> dict[str, str | None]:
        for path in files:
            state_path(path)
        return files

    @field_validator("dirs")
    @classmethod
    def _dir_paths(cls, dirs: list[str]) -> list[str]:
        return [state_path(d) for d in dirs]


class PlantedLine(_Strict):
    """A planted wrong answer: canonical calls the verifier must reject."""

    name: str = Field(min_length=1, max_length=80, description="What is wrong.")
    check: str = Field(min_length=1, max_length=40, description="The check it targets.")
    calls: list[ToolCall] = Field(max_length=64, description="The calls, from the initial state.")


class TaskLine(_Strict):
    """One line of a split's JSON-lines file."""

    id: str = Field(pattern=_WORD, description="Task id, unique in the family.")
    kind: str = Field(default="task", pattern=_ID, description="Kind of task.")
    instruction: str = Field(min_length=1, max_length=8000, description="What the agent is asked.")
    files: dict[str, str] = Field(
        default_factory=dict,
        max_length=MAX_TASK_FILES,
        description="Initial files (path → text), over the family's state folder.",
    )
    dirs: list[str] = Field(
        default_factory=list, max_length=MAX_TASK_FILES, description="Initial empty folders."
    )
    expected: Expected | None = Field(
        default=None, description="The end state vwt compares; without it the verifier runs."
    )
    check: dict[str, Any] = Field(
        default_factory=dict,
        max_length=64,
        description="What the verifier command is given for this task (in VWT_TASK; each "
        "text, number or boolean also as VWT_CHECK_<KEY>).",
    )
    reference: list[ToolCall] = Field(
        min_length=1, max_length=64, description="Canonical calls with effect that solve it."
    )
    planted: list[PlantedLine] = Field(
        default_factory=list, max_length=32, description="Planted wrong answers."
    )

    @field_validator("files")
    @classmethod
    def _file_paths(cls, files: dict[str, str]) -> dict[str, str]:
        for path in files:
            state_path(path)
        return files

    @field_validator("dirs")
    @classmethod
    def _dir_paths(cls, dirs: list[str]) -> list[str]:
        return [state_path(d) for d in dirs]

    @field_validator("check")
    @classmethod
    def _check_keys(cls, check: dict[str, Any]) -> dict[str, Any]:
        for key in check:
            if not re.match(r"^[A-Za-z_][A-Za-z0-9_]{0,39}$", key):
                raise ValueError(f"key {key[:40]!r}: letters, digits and '_' (an env variable)")
        return check

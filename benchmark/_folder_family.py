"""A task family written as a folder: tasks from JSON lines, the environment an MCP server
command run per trial in the sandbox over a directory of files, the verifier vwt's comparison
of an expected end state or a command run in the sandbox (docs/folder-families.md).

Nothing of the folder runs on the host: its server and verifier run only in a sandbox, and
end states exist only there, so the red-team gate runs there too (:meth:`FolderFamily.verdicts`).
"""

from __future__ import annotations

import functools
import hashlib
import json
import os
import shutil
import tempfile
import weakref
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass
from pathlib import Path, PurePosixPath
from typing import TYPE_CHECKING, Any

import numpy as np

from benchmark._folder_format import EXAMPLES, FamilyFile, TaskLine
from benchmark._folder_gate import sandbox_verdicts
from benchmark._mcp_backend import mcp_servers_dir
from benchmark._sandbox_types import ExternalServer, GateSandbox
from benchmark._task import Family, Planted, Task, VerifierResult
from benchmark.errors import BenchmarkError
from drift import InterfaceVersion, ServedInterface, ToolCall, ToolSet

if TYPE_CHECKING:
    from benchmark._folder_pack import PackFile
    from benchmark.sim import KnowledgePack

MAX_STATE_PROBLEM = 200
"""Characters of a state problem shown in a verifier reason."""


@dataclass(frozen=True)
class FolderContent:
    """A family folder as it was read and checked once: the only copy vwt uses afterwards."""

    root: Path
    """Where it was read from."""
    digest: str
    """drift.folder_digest of its files."""
    files: Mapping[str, bytes]
    """Its files, by relative path."""
    spec: FamilyFile
    """family.yaml."""
    lines: Mapping[str, tuple[TaskLine, ...]]
    """Each split's task lines, in file order."""
    state: Mapping[str, str]
    """The files every task starts with (the environment's state folder)."""
    releases: Mapping[str, ToolSet]
    """Each release's tools, by version id."""
    versions: Mapping[str, InterfaceVersion]
    """Every interface version, by id."""
    pack: PackFile | None
    """The sim knowledge pack, if any."""


class FolderFamily(Family):
    """A task family loaded from a folder (``benchmark.load_family_folder`` makes one)."""

    def __init__(self, content: FolderContent) -> None:
        """The family of ``content`` (checked by the loader)."""
        spec = content.spec
        self.content = content
        self.id = spec.id
        self.env_id = spec.environment.id
        self.generator_version = spec.version
        self.verifier_version = spec.verifier_version or spec.version
        self.splits = tuple(content.lines)
        self.examples_split = EXAMPLES if EXAMPLES in content.lines else None
        self.effectful_tools = tuple(spec.environment.effects)
        self._lines = {
            f"{self.id}/{split}/{line.id}": line
            for split, lines in content.lines.items()
            for line in lines
        }
        self._snapshot: Path | None = None
        self._built_pack: KnowledgePack | None = None
        self._orders: dict[tuple[str, int], list[int]] = {}

    @property
    def root(self) -> Path:
        """The folder the family was read from."""
        return self.content.root

    @property
    def digest(self) -> str:
        """The digest of the folder's content (what a cycle pins and commits)."""
        return self.content.digest

    def source_digest(self) -> str:
        """The folder's digest and the Python that reads folders: a folder's tasks, server and
        verifier are made from both."""
        return hashlib.sha256(f"{super().source_digest()}\x1f{self.digest}".encode()).hexdigest()

    # --- tasks -------------------------------------------------------------------------------
    def split_size(self, split: str) -> int | None:
        return len(self._split(split))

    def _split(self, split: str) -> tuple[TaskLine, ...]:
        if split not in self.content.lines:
            raise BenchmarkError(
                f"family {self.id!r} has no split {split!r}", f"splits: {', '.join(self.splits)}"
            )
        return self.content.lines[split]

    def order(self, split: str, seed: int) -> list[int]:
        """The order the split's lines are drawn in: file order for the public dev and
        examples splits, a permutation drawn from the split's seed for the others."""
        n = len(self._split(split))
        if split in ("dev", self.examples_split):
            return list(range(n))
        if (split, seed) not in self._orders:
            drawn = np.random.default_rng(seed).permutation(n)
            self._orders[(split, seed)] = [int(i) for i in drawn]
        return self._orders[(split, seed)]

    def generate(self, split: str, index: int, seed: int) -> Task:
        lines = self._split(split)
        if not 0 <= index < len(lines):
            raise BenchmarkError(
                f"family {self.id!r}: split {split!r} holds {len(lines)} tasks, task {index} "
                "was asked for",
                "ask for fewer tasks per split (--tasks, the spec's evaluation.tasks_per_split), "
                "or add task lines to the split",
            )
        line = lines[self.order(split, seed)[index]]
        return Task(
            id=f"{self.id}/{split}/{line.id}",
            family=self.id,
            split=split,
            index=index,
            seed=seed,
            generator_version=self.generator_version,
            kind=line.kind,
            instruction=line.instruction,
            initial_state=self.initial_state(line),
            reference_calls=tuple(line.reference),
        )

    def tasks(self, split: str, n: int, cycle_seed: int) -> list[Task]:
        seed = self.split_seed(split, cycle_seed)
        return [self.generate(split, i, seed) for i in range(n)]

    def initial_state(self, line: TaskLine) -> dict[str, Any]:
        """The state a trial of ``line`` opens with: the files (the state folder's, then the
        task's), the empty folders, and — for the verifier command — the task's check."""
        files = {**self.content.state, **line.files}
        state: dict[str, Any] = {"files": files, "dirs": sorted(line.dirs)}
        if line.expected is None:
            state["check"] = {"id": line.id, "kind": line.kind, "check": line.check}
        return state

    def line(self, task: Task) -> TaskLine:
        """The task line ``task`` was made from."""
        found = self._lines.get(task.id)
        if found is None:
            raise BenchmarkError(f"task {task.id} is not a task of family {self.id!r}")
        return found

    def planted(self, task: Task) -> list[Planted]:
        return [
            Planted(name=p.name, check=p.check, calls=tuple(p.calls))
            for p in self.line(task).planted
        ]

    # --- tools -------------------------------------------------------------------------------
    def base_tools(self) -> ToolSet:
        return self.content.releases[self.content.spec.environment.versions[0].id]

    def release_of(self, version: InterfaceVersion) -> str:
        """The release ``version`` runs on: itself, the release its parents lead to, else (a
        version defined elsewhere, e.g. in a cycle spec, with no parent here) the base."""
        seen: set[str] = set()
        vid: str | None = version.id
        while vid is not None and vid not in seen:
            if vid in self.content.releases:
                return vid
            seen.add(vid)
            known = self.content.versions.get(vid)
            vid = known.parent if known is not None else version.parent
        return self.content.spec.environment.versions[0].id

    def base_tools_for(self, version: InterfaceVersion) -> ToolSet:
        return self.content.releases[self.release_of(version)]

    def interface_versions(self) -> dict[str, InterfaceVersion]:
        return dict(self.content.versions)

    def backend_file(self) -> Path:
        raise BenchmarkError(
            f"family {self.id!r} is a folder family: its environment is a server command",
            "serve it with McpBackend.of(family, version)",
        )

    def external_server(self, version: InterfaceVersion | None) -> ExternalServer:
        base = self.content.spec.environment.versions[0].id
        release_id = self.release_of(version) if version is not None else base
        release = next(v for v in self.content.spec.environment.versions if v.id == release_id)
        assert release.server is not None
        servers = None
        if any("{servers}" in a for a in release.server):
            servers = mcp_servers_dir()
            self._require_servers(release.id, release.server, servers)
        verifier = self.content.spec.verifier
        return ExternalServer(
            command=tuple(release.server),
            tools=tuple(self.content.releases[release_id].to_mcp()),
            family_dir=self.snapshot(),
            servers_dir=servers,
            verifier=tuple(verifier.command) if verifier else None,
            verifier_timeout_s=verifier.timeout_s if verifier else 0.0,
            concurrency=self.content.spec.environment.concurrency,
            release=release_id,
        )

    def _require_servers(self, release: str, argv: Sequence[str], servers: Path) -> None:
        for arg in argv:
            if not arg.startswith("{servers}/"):
                continue
            needed = servers / PurePosixPath(arg.removeprefix("{servers}/")).parts[0]
            if not needed.is_dir():
                raise BenchmarkError(
                    f"family {self.id!r}: the server of {release} needs {needed}, which is not "
                    "installed",
                    "install the pinned MCP servers: `bash scripts/mcp-servers-setup.sh` (or set "
                    "VWT_MCP_SERVERS to the directory holding them)",
                )

    def snapshot(self) -> Path:
        """A private read-only copy of the folder as it was read (for the sandbox to mount):
        what runs is what was digested, whatever happens to the folder afterwards."""
        if self._snapshot is None:
            root = Path(tempfile.mkdtemp(prefix=f"vwt-family-{self.id}-"))
            weakref.finalize(self, shutil.rmtree, root, True)
            for rel, data in self.content.files.items():
                dest = root / PurePosixPath(rel)
                dest.parent.mkdir(parents=True, exist_ok=True)
                dest.write_bytes(data)
                os.chmod(dest, 0o644)
            for path in [root, *root.rglob("*")]:
                if path.is_dir():
                    os.chmod(path, 0o755)
            self._snapshot = root
        return self._snapshot

    # --- verification ------------------------------------------------------------------------
    def verify(self, task: Task, end_state: dict[str, Any]) -> VerifierResult:
        problem = end_state.get("problem")
        if problem:
            return VerifierResult(
                passed=False, reasons=(f"state: {str(problem)[:MAX_STATE_PROBLEM]}",)
            )
        line = self.line(task)
        if line.expected is not None:
            return compare_files(
                task.initial_state, line.expected.files, line.expected.dirs, end_state
            )
        error = end_state.get("verifier_error")
        verdict = end_state.get("verdict")
        if error or not isinstance(verdict, dict):
            raise BenchmarkError(
                f"family {self.id!r}: the verifier of task {task.id} failed: "
                f"{error or 'no verdict in the end state'}",
                "fix the family's verifier command (`vwt families redteam` runs it)",
            )
        return VerifierResult(
            passed=bool(verdict["passed"]), reasons=tuple(map(str, verdict.get("reasons", ())))
        )

    def end_state(self, task: Task, calls: Sequence[ToolCall]) -> dict[str, Any]:
        raise BenchmarkError(
            f"family {self.id!r} is a folder family: its end states exist only in a sandbox",
            "its red-team gate runs there (`vwt families redteam`)",
        )

    def verdicts(
        self,
        answers: Sequence[tuple[Task, Sequence[ToolCall]]],
        sandbox: Callable[[list[tuple[Path, str, bool]]], GateSandbox] | None,
    ) -> list[tuple[bool | None, str]]:
        if sandbox is None:
            raise BenchmarkError(
                f"the red-team gate of folder family {self.id!r} runs its server and verifier, "
                "which run only in a sandbox, and none was given",
                "run it through `vwt families redteam` or `vwt run`",
            )
        releases = [self.content.versions[r] for r in self.content.releases]
        return sandbox_verdicts(
            self, releases, self.content.spec.environment.concurrency, answers, sandbox
        )

    def effect_key(self, call: ToolCall) -> tuple[Any, ...]:
        fields = self.content.spec.environment.effects.get(call.name, ())
        return (call.name, *(_scalar(call.arguments.get(f)) for f in fields))

    def sim_pack(self) -> KnowledgePack | None:
        if self._built_pack is None:
            self._built_pack = self._make_pack()
        return self._built_pack

    def _make_pack(self) -> KnowledgePack | None:
        pack = self.content.pack
        if pack is None:
            return None
        version = self.content.versions[
            pack.remembered or self.content.spec.environment.versions[0].id
        ]
        served = ServedInterface(self.base_tools_for(version), version)

        @functools.cache
        def remembered() -> dict[str, dict[str, Any]]:
            return {t.name: t.to_openai()["function"] for t in served.tools.tools}

        return pack.build(self.id, remembered)


def _scalar(value: Any) -> Any:
    """An effect-key element: a scalar as it is, anything else as its canonical JSON."""
    if value is None or isinstance(value, str | int | float | bool):
        return value
    return json.dumps(value, sort_keys=True, separators=(",", ":"))


def _parents(path: str) -> set[str]:
    parts = path.split("/")[:-1]
    return {"/".join(parts[: i + 1]) for i in range(len(parts))}


def compare_files(
    initial: Mapping[str, Any],
    changes: Mapping[str, str | None],
    dirs: Sequence[str],
    end: Mapping[str, Any],
) -> VerifierResult:
    """The built-in verifier: the end state's files are the initial ones with ``changes``
    applied (a None removes a file) and nothing else; every folder of ``dirs`` exists, and no
    folder exists that is neither initial, asked for, nor holds an expected file."""
    want = dict(initial.get("files", {}))
    for path, content in changes.items():
        if content is None:
            want.pop(path, None)
        else:
            want[path] = content
    got: dict[str, Any] = {**end.get("files", {}), **end.get("binary", {})}
    reasons = []
    for path in sorted(want.keys() | got.keys()):
        if path not in got:
            reasons.append(f"files: {path} missing")
        elif path not in want:
            reasons.append(f"files: {path} not asked for")
        elif got[path] != want[path]:
            reasons.append(f"files: {path} differs from what was asked")
    initial_dirs = set(initial.get("dirs", ())).union(*map(_parents, initial.get("files", {})))
    allowed = initial_dirs | set(dirs) | set().union(*map(_parents, want), *map(_parents, dirs))
    got_dirs = set(end.get("dirs", ()))
    reasons += [f"dirs: {d} missing" for d in sorted(set(dirs) - got_dirs)]
    reasons += [f"dirs: {d} not asked for" for d in sorted(got_dirs - allowed)]
    return VerifierResult(passed=not reasons, reasons=tuple(reasons))

"""Loading a task family's folder: untrusted input, read once (bounded), validated whole before
anything is used; a malformed folder is refused with one error naming the file and the field.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from pathlib import Path
from typing import Any, TypeVar

from pydantic import BaseModel, ValidationError

from benchmark._folder_family import FolderContent, FolderFamily
from benchmark._folder_format import (
    EXAMPLES,
    FAMILY_FILE,
    MAX_TASK_BYTES,
    MAX_TASK_FILES,
    FamilyFile,
    TaskLine,
)
from benchmark._folder_pack import PackFile
from benchmark.errors import BenchmarkError
from conditions import ConditionsError, parse_yaml, read_family_folder
from drift import (
    DriftError,
    InterfaceVersion,
    ServedInterface,
    ToolSet,
    deeper_than,
    folder_digest,
    parse_tool_list,
)

M = TypeVar("M", bound=BaseModel)

FORMAT_HINT = "the format of a family folder: docs/folder-families.md"
MAX_JSON_DEPTH = 32
"""Deepest nesting of a task line."""


class _Refused(Exception):
    """A problem in one file of the folder: (file, field, problem)."""

    def __init__(self, file: str, field: str | None, problem: str) -> None:
        super().__init__(file, field, problem)
        self.file, self.field, self.problem = file, field, problem


def _first_error(e: ValidationError) -> tuple[str, str]:
    """(field path, message) of a validation error's first problem."""
    first = e.errors()[0]
    loc = ".".join(str(p) for p in first["loc"]) or "(top level)"
    return loc, str(first["msg"]).removeprefix("Value error, ")


def _model(model: type[M], data: Any, file: str, prefix: str = "") -> M:
    try:
        return model.model_validate(data)
    except ValidationError as e:
        loc, msg = _first_error(e)
        raise _Refused(file, prefix + loc, msg) from None


def _text(files: Mapping[str, bytes], file: str, field: str) -> str:
    if file not in files:
        raise _Refused(FAMILY_FILE, field, f"names {file!r}, which is not a file of the folder")
    try:
        return files[file].decode("utf-8")
    except UnicodeDecodeError:
        raise _Refused(file, None, "is not UTF-8 text") from None


def _yaml(files: Mapping[str, bytes], file: str, field: str) -> Any:
    try:
        return parse_yaml(_text(files, file, field), file)
    except ConditionsError as e:
        raise _Refused(file, None, str(e).removeprefix(f"{file} ")) from None


def _lines(files: Mapping[str, bytes], file: str, split: str) -> list[tuple[int, TaskLine]]:
    out = []
    for n, raw in enumerate(_text(files, file, f"splits.{split}").splitlines(), 1):
        if not raw.strip():
            continue
        where = f"{file} line {n}"
        try:
            data = json.loads(raw)
        except (ValueError, RecursionError) as e:
            raise _Refused(where, None, f"is not JSON ({type(e).__name__}: {e})") from None
        if deeper_than(data, MAX_JSON_DEPTH):
            raise _Refused(where, None, f"nests deeper than {MAX_JSON_DEPTH} levels")
        out.append((n, _model(TaskLine, data, where)))
    if not out:
        raise _Refused(file, None, "holds no task lines")
    return out


def _tools(files: Mapping[str, bytes], file: str, field: str) -> ToolSet:
    try:
        data = json.loads(_text(files, file, field))
        return parse_tool_list(data, file)
    except (ValueError, RecursionError) as e:
        raise _Refused(file, None, f"is not a tools/list result ({e})") from None
    except DriftError as e:
        raise _Refused(file, None, str(e).removeprefix(f"{file}: ")) from None


def _state(files: Mapping[str, bytes], folder: str | None) -> dict[str, str]:
    if folder is None:
        return {}
    prefix = folder.strip("/") + "/"
    found = {p.removeprefix(prefix): d for p, d in files.items() if p.startswith(prefix)}
    if not found:
        raise _Refused(FAMILY_FILE, "environment.state", f"{folder!r} is no folder of files here")
    out = {}
    for rel, data in found.items():
        try:
            out[rel] = data.decode("utf-8")
        except UnicodeDecodeError:
            raise _Refused(prefix + rel, None, "is not UTF-8 text (state files are text)") from None
    return out


def _versions(
    spec: FamilyFile, files: Mapping[str, bytes]
) -> tuple[dict[str, ToolSet], dict[str, InterfaceVersion]]:
    env = spec.environment
    releases: dict[str, ToolSet] = {}
    versions: dict[str, InterfaceVersion] = {}
    for i, v in enumerate(env.versions):
        field = f"environment.versions.{i}"
        if v.release:
            assert v.tools is not None
            releases[v.id] = _tools(files, v.tools, f"{field}.tools")
            versions[v.id] = InterfaceVersion(id=v.id, env=env.id, label=v.label)
            continue
        data = {"id": v.id, "env": env.id, "label": v.label, "parent": v.parent, "ops": v.ops}
        version = _model(InterfaceVersion, data, FAMILY_FILE, f"{field}.")
        release = v.parent
        while release not in releases:
            release = versions[str(release)].parent
        try:
            ServedInterface(releases[str(release)], version)
        except DriftError as e:
            raise _Refused(FAMILY_FILE, f"{field}.ops", f"do not apply: {e}") from None
        versions[v.id] = version
    base = releases[env.versions[0].id]
    for tool, fields in env.effects.items():
        found = base.get(tool)
        if found is None:
            raise _Refused(FAMILY_FILE, f"environment.effects.{tool}", "is not a tool of the base")
        unknown = [f for f in fields if f not in found.properties()]
        if unknown:
            raise _Refused(
                FAMILY_FILE, f"environment.effects.{tool}", f"{unknown[0]!r} is not an argument"
            )
    return releases, versions


def _commands(spec: FamilyFile, files: Mapping[str, bytes]) -> None:
    """Every ``{family}/FILE`` a command names is a file of the folder."""
    commands = [
        (f"environment.versions.{i}.server", v.server or [])
        for i, v in enumerate(spec.environment.versions)
    ]
    if spec.verifier is not None:
        commands.append(("verifier.command", spec.verifier.command))
    for field, argv in commands:
        for arg in argv:
            if arg.startswith("{family}/") and arg.removeprefix("{family}/") not in files:
                raise _Refused(FAMILY_FILE, field, f"{arg!r} is not a file of the folder")


def _task_checks(spec: FamilyFile, where: str, line: TaskLine, state: Mapping[str, str]) -> None:
    effects = spec.environment.effects
    calls = [(f"reference.{j}", c) for j, c in enumerate(line.reference)]
    calls += [
        (f"planted.{p}.calls.{j}", c)
        for p, planted in enumerate(line.planted)
        for j, c in enumerate(planted.calls)
    ]
    for field, call in calls:
        if call.name not in effects:
            raise _Refused(where, f"{field}.name", f"{call.name!r} is not a tool with effect")
    if line.expected is None and spec.verifier is None:
        raise _Refused(where, "expected", "missing, and family.yaml has no verifier command")
    merged = {**state, **line.files}
    if len(merged) > MAX_TASK_FILES:
        raise _Refused(where, "files", f"the state holds more than {MAX_TASK_FILES} files")
    if sum(len(t.encode()) for t in merged.values()) > MAX_TASK_BYTES:
        raise _Refused(where, "files", f"the state is larger than {MAX_TASK_BYTES:,} bytes")


def read_content(root: Path, pin: str | None = None) -> FolderContent:
    """Read and check the family folder ``root``; BenchmarkError on the first problem, naming
    the folder, the file and the field, with a hint. With ``pin``, a folder whose digest is
    not ``pin`` (changed since a cycle spec pinned it) is refused."""
    try:
        files = read_family_folder(root)
    except ConditionsError as e:
        raise BenchmarkError(str(e), e.hint) from None
    digest = folder_digest(files)
    if pin is not None and digest != pin:
        raise BenchmarkError(
            f"task family folder {root} changed since the cycle spec pinned it (its digest is "
            f"{digest[:12]}…, the spec's {pin[:12]}…)",
            "put the folder back as it was: a cycle's families cannot change once pinned (start "
            "a new cycle with `vwt cycle init --force` to use the new content)",
        )
    try:
        return _check(root, files, digest)
    except _Refused as e:
        field = f": {e.field}" if e.field else ""
        raise BenchmarkError(
            f"task family folder {root}: {e.file}{field}: {e.problem}", FORMAT_HINT
        ) from None


def _check(root: Path, files: dict[str, bytes], digest: str) -> FolderContent:
    if FAMILY_FILE not in files:
        raise _Refused(FAMILY_FILE, None, "is missing: a family folder starts with it")
    spec = _model(FamilyFile, _yaml(files, FAMILY_FILE, ""), FAMILY_FILE)
    _commands(spec, files)
    releases, versions = _versions(spec, files)
    state = _state(files, spec.environment.state)
    lines: dict[str, tuple[TaskLine, ...]] = {}
    seen: dict[str, str] = {}
    content: dict[tuple[str, str], str] = {}
    for split, file in spec.splits.items():
        found = []
        for n, line in _lines(files, file, split):
            where = f"{file} line {n}"
            if line.id in seen:
                raise _Refused(where, "id", f"{line.id!r} is also a task of {seen[line.id]}")
            key = (line.instruction, json.dumps(line.files, sort_keys=True))
            if key in content and split != EXAMPLES:
                raise _Refused(
                    where,
                    "instruction",
                    f"repeats task {content[key]} (same instruction and "
                    "files): splits must be disjoint",
                )
            seen[line.id] = f"split {split}"
            content.setdefault(key, f"{line.id!r} of split {split}")
            _task_checks(spec, where, line, state)
            found.append(line)
        lines[split] = tuple(found)
    pack = None
    if spec.sim_pack is not None:
        pack = _model(PackFile, _yaml(files, spec.sim_pack, "sim_pack"), spec.sim_pack)
        if pack.remembered is not None and pack.remembered not in versions:
            raise _Refused(spec.sim_pack, "remembered", f"{pack.remembered!r} is no version here")
    return FolderContent(
        root=root,
        digest=digest,
        files=files,
        spec=spec,
        lines=lines,
        state=state,
        releases=releases,
        versions=versions,
        pack=pack,
    )


def load_family_folder(path: Path, pin: str | None = None) -> FolderFamily:
    """The task family in the folder ``path`` (see :func:`read_content`)."""
    return FolderFamily(read_content(Path(path).resolve(), pin))


def is_family_folder(path: Path) -> bool:
    """Whether ``path`` is a directory holding a ``family.yaml``."""
    return (Path(path) / FAMILY_FILE).is_file()


def family_folders(path: Path) -> list[Path]:
    """The family folders ``path`` names: itself if it holds a ``family.yaml``, else its
    subfolders that do (sorted); BenchmarkError when there is none."""
    path = Path(path)
    if is_family_folder(path):
        return [path]
    found = sorted(p for p in path.iterdir() if is_family_folder(p)) if path.is_dir() else []
    if not found:
        raise BenchmarkError(
            f"{path} is not a task family folder (no {FAMILY_FILE}) and holds none",
            "pass a folder holding family.yaml, or a folder of such folders; " + FORMAT_HINT,
        )
    return found

"""Agent Skills folders in a bundle: their files, checked by the format's rules.

A bundle holds a skill folder as the artifact's ``path`` plus one bundle file per file of the
folder (``<path>/SKILL.md``, ``<path>/scripts/…``, …). The checks here run on every bundle,
packed or not, before anything is stored: ``SKILL.md`` present and valid (front matter, name,
description, the typed contract in its metadata), the name the folder's, at most
``MAX_SKILL_FILES`` files. What reading a folder from disk needs besides (no link, no device,
nothing outside the folder) is in ``submissions._bundle``.
"""

from __future__ import annotations

import functools
import os
import stat
from collections.abc import Mapping
from pathlib import Path, PurePosixPath

from benchmark import BenchmarkError, family_for_env, serve
from benchmark.harness import (
    SKILL_FILE,
    AgentSkill,
    FrontMatter,
    SkillFormatError,
    TypedSkill,
    parse_skill_md,
    read_contract,
)
from submissions._files import read_capped
from submissions._limits import LIMITS_HINT, MAX_ARTIFACT_BYTES, MAX_SKILL_FILES, LimitExceeded
from submissions._manifest import check_path
from submissions._text import check_text, shown
from submissions.errors import SubmissionError

_RULE = "a skill folder holds regular files and folders only, all inside it"


def skill_files(files: Mapping[str, str], folder: str) -> dict[str, str]:
    """The bundle files under ``folder``, by their path relative to it."""
    prefix = f"{folder}/"
    return {p.removeprefix(prefix): t for p, t in files.items() if p.startswith(prefix)}


@functools.cache
def _builtin_digests(env: str, label: str) -> dict[str, str]:
    """Built-in interface versions of ``env`` announcing ``label``: version id → digest."""
    try:
        versions = family_for_env(env).interface_versions()
    except BenchmarkError:  # not a built-in environment
        return {}
    return {v.id: serve(env, v).digest for v in versions.values() if v.label == label}


def _contract_problem(contract: TypedSkill) -> str | None:
    """Why ``contract`` would stop on every interface it names, if it would: a requirement of
    a built-in environment, without its tools, whose digest no built-in version of its label
    has. The message gives the right digest and how to get it."""
    for i, req in enumerate(contract.requires):
        known = _builtin_digests(req.env, req.version)
        if req.tools is not None or not known or req.schema_digest in known.values():
            continue
        vid, digest = next(iter(sorted(known.items())))
        return (
            f"requires.{i}: schema_digest {req.schema_digest[:12]}… is no digest of {req.env} "
            f"version {req.version}: {vid} serves {digest} (`vwt drift builtin {vid}` prints "
            "it, `--out FILE` writes its tools)"
        )
    return None


def _check_front(front: FrontMatter) -> None:
    """Control and bidirectional characters, refused in every front-matter text."""
    texts = {
        "description": front.description,
        "license": front.license or "",
        "compatibility": front.compatibility or "",
        "allowed-tools": front.allowed_tools or "",
        **{f"metadata {k}": f"{k}{v}" for k, v in front.metadata.items()},
    }
    for field, text in texts.items():
        try:
            check_text(text, multiline=True)
        except ValueError as e:
            raise SkillFormatError(f"{field} {e}") from None


def check_skill(folder: str, name: str, files: Mapping[str, str]) -> AgentSkill:
    """The skill in bundle folder ``folder`` (the manifest names it ``name``) from the bundle's
    ``files``; ValueError ``"<file>: <rule>"`` naming the first rule broken."""
    own = skill_files(files, folder)
    where = f"{folder}/{SKILL_FILE}"
    if SKILL_FILE not in own:
        raise ValueError(f"{where}: missing (a skill folder holds a {SKILL_FILE})")
    if len(own) > MAX_SKILL_FILES:
        raise LimitExceeded(
            f"{folder}: the skill folder holds {len(own)} files, over the limit of "
            f"{MAX_SKILL_FILES}"
        )
    dirname = PurePosixPath(folder).name
    try:
        front, _ = parse_skill_md(own[SKILL_FILE])
        _check_front(front)
        if front.name != dirname:
            raise SkillFormatError(f"name {front.name!r} must be the folder's name, {dirname!r}")
        if front.name != name:
            raise SkillFormatError(
                f"name {front.name!r} must be the artifact's name in the manifest, {name!r}"
            )
        contract = read_contract(front)
        problem = _contract_problem(contract) if contract is not None else None
        if problem is not None:
            raise SkillFormatError(problem)
        return AgentSkill(
            skill_md=own[SKILL_FILE], files={p: t for p, t in own.items() if p != SKILL_FILE}
        )
    except SkillFormatError as e:
        raise ValueError(f"{where}: {e}") from None


def _walk(folder: Path) -> list[Path]:
    """Every file under ``folder``, sorted; SubmissionError at the first link, device, FIFO or
    socket, or once there are more than ``MAX_SKILL_FILES`` files."""
    out: list[Path] = []
    pending = [folder]
    while pending:
        here = pending.pop()
        try:
            entries = sorted(os.scandir(here), key=lambda e: e.name)
        except OSError as e:
            raise SubmissionError(
                f"{shown(str(here))}: cannot read ({e.strerror})", _RULE
            ) from None
        for entry in entries:
            path = Path(entry.path)
            mode = entry.stat(follow_symlinks=False).st_mode
            if stat.S_ISLNK(mode):
                raise SubmissionError(f"{shown(str(path))}: a symbolic link", _RULE)
            if stat.S_ISDIR(mode):
                pending.append(path)
            elif not stat.S_ISREG(mode):
                raise SubmissionError(
                    f"{shown(str(path))}: not a regular file (a device, FIFO or socket)", _RULE
                )
            else:
                out.append(path)
            if len(out) > MAX_SKILL_FILES:
                raise SubmissionError(
                    f"{shown(str(folder))}: the skill folder holds more than {MAX_SKILL_FILES} "
                    "files",
                    LIMITS_HINT,
                )
    return sorted(out)


def read_skill_folder(root: Path, rel: str) -> dict[str, str]:
    """The files of the skill folder ``rel`` of bundle directory ``root``, by bundle path.

    Untrusted input: the folder must be a real directory inside ``root`` (no link on the way),
    holding only regular files and folders, each file UTF-8 text of at most
    ``MAX_ARTIFACT_BYTES`` with a path of allowed parts; SubmissionError naming the file and
    the rule otherwise.
    """
    folder = root / rel
    where = shown(str(folder))
    try:
        outside = not folder.resolve().is_relative_to(root.resolve())
        real = folder.is_dir() and not folder.is_symlink()
    except (OSError, ValueError, RuntimeError) as e:  # RuntimeError: a symlink loop
        raise SubmissionError(f"{where}: cannot read ({shown(str(e))})", _RULE) from None
    if outside or not real:
        why = "resolves outside the bundle directory" if outside else "is not a directory"
        raise SubmissionError(f"{where}: the skill folder {why}", _RULE)
    files = {}
    for path in _walk(folder):
        inner = path.relative_to(folder).as_posix()
        name = f"{rel}/{inner}"
        try:
            check_path(name)
        except ValueError as e:
            raise SubmissionError(f"{shown(str(path))}: file name {e}", "rename the file") from None
        data = read_capped(path, MAX_ARTIFACT_BYTES, "skill file")
        try:
            text = data.decode("utf-8")
        except UnicodeDecodeError:
            raise SubmissionError(
                f"{shown(str(path))}: not UTF-8 text",
                "a skill's files are text (scripts, references, text assets); binary files "
                "are not supported",
            ) from None
        files[name] = text.replace("\r\n", "\n").replace("\r", "\n")
    return files

"""Writing bundle directories: a new bundle of skill folders, and old-IR typed skills converted
into Agent Skills.

Both write a directory that ``load_bundle_dir`` reads back as the same bundle, and write it only
once the bundle is valid: to a path that is absent or an empty directory, never over files.
"""

from __future__ import annotations

import json
import re
from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from benchmark.harness import SKILL_FILE, AgentSkill, TypedSkill
from submissions._bundle import SKILL_HINT, Bundle, first_problem, load_bundle_dir
from submissions._limits import LIMITS_HINT, LimitExceeded
from submissions._manifest import MANIFEST_FILE, ArtifactEntry, ArtifactKind, BundleManifest
from submissions._skill_folder import check_skill, read_skill_folder
from submissions._text import shown
from submissions.errors import SubmissionError

SKILLS_DIR = "skills"
"""Where in a bundle ``init --skill`` and ``convert`` put skill folders."""


def _empty_target(dest: Path) -> None:
    if dest.exists() and (not dest.is_dir() or any(dest.iterdir())):
        raise SubmissionError(
            f"{shown(str(dest))} exists and is not an empty directory", "pick a new path"
        )


def write_bundle_dir(bundle: Bundle, dest: Path) -> Path:
    """Write ``bundle`` as a directory at ``dest`` (absent or empty): its manifest and files."""
    _empty_target(dest)
    manifest = json.dumps(bundle.manifest.model_dump(mode="json"), indent=2, ensure_ascii=False)
    try:
        dest.mkdir(parents=True, exist_ok=True)
        (dest / MANIFEST_FILE).write_text(manifest + "\n", encoding="utf-8")
        for rel, text in sorted(bundle.files.items()):
            (dest / rel).parent.mkdir(parents=True, exist_ok=True)
            (dest / rel).write_text(text, encoding="utf-8", newline="\n")
    except (OSError, ValueError) as e:  # ValueError: a NUL byte in the path
        reason = getattr(e, "strerror", None) or str(e)
        raise SubmissionError(
            f"cannot write {shown(str(dest))} ({reason})", "pick another path"
        ) from None
    return dest


def _skill_entry(folder: Path) -> tuple[ArtifactEntry, dict[str, str]]:
    """A skill folder on disk as a bundle artifact under ``skills/<its name>``, checked where
    it is (a refusal names the file there)."""
    read = read_skill_folder(folder.parent, folder.name)
    try:
        skill = check_skill(folder.name, folder.name, read)
    except ValueError as e:
        hint = LIMITS_HINT if isinstance(e, LimitExceeded) else SKILL_HINT
        raise SubmissionError(f"{shown(str(folder.parent))}/{shown(str(e))}", hint) from None
    rel = f"{SKILLS_DIR}/{skill.name}"
    files = {f"{rel}/{p.removeprefix(folder.name + '/')}": t for p, t in read.items()}
    entry = ArtifactEntry(
        kind=ArtifactKind.agent_skill,
        name=skill.name,
        path=rel,
        description=" ".join(skill.description.split())[:300],
    )
    return entry, files


def _bundle_name(dest: Path) -> str:
    name = re.sub(r"[^a-z0-9._-]+", "-", dest.name.lower()).strip("-._")[:64]
    return name or "skills"


def skill_bundle(dest: Path, skills: Sequence[Path], start: Bundle | None = None) -> Bundle:
    """Write a new bundle directory at ``dest`` holding the skill folders ``skills`` (under
    ``skills/``), after the artifacts of ``start`` if given; the bundle, validated."""
    artifacts = list(start.manifest.artifacts) if start is not None else []
    files = dict(start.files) if start is not None else {}
    for folder in skills:
        entry, own = _skill_entry(folder)
        artifacts.append(entry)
        files.update(own)
    if start is not None:
        manifest = start.manifest.model_copy(update={"artifacts": tuple(artifacts)})
    else:
        manifest = BundleManifest(name=_bundle_name(dest), version="1")
        manifest = manifest.model_copy(update={"artifacts": tuple(artifacts)})
    bundle = _validated(manifest, files, dest)
    write_bundle_dir(bundle, dest)
    return bundle


def _validated(manifest: BundleManifest, files: dict[str, str], dest: Path) -> Bundle:
    """The bundle of ``manifest`` and ``files``, validated as ``load_bundle_dir`` would."""
    try:
        manifest = BundleManifest.model_validate(manifest.model_dump(mode="json"))
        return Bundle(manifest=manifest, files=files)
    except ValidationError as e:
        problem, hint = first_problem(e, SKILL_HINT)
        raise SubmissionError(f"{shown(str(dest))}: {problem}", hint) from None


def contract_body(skill: TypedSkill) -> str:
    """The Markdown body a converted typed skill gets: what it is for and where its procedure
    is (the contract; the body does not repeat it, so rebinding the contract keeps them true)."""
    lines = [f"# {skill.name}", "", skill.description.strip(), ""]
    if skill.preconditions:
        lines += ["Use it when " + "; ".join(skill.preconditions) + ".", ""]
    lines.append(
        "Its procedure is its typed contract (front-matter metadata `vwt-contract`): the tools "
        "it may call, its steps and their arguments, codes and units. The harness checks the "
        "tool interface the contract declares before the skill is shown, and stops safely when "
        "the served one is not it."
    )
    if skill.verifier:
        lines += ["", f"Done when: {skill.verifier}."]
    return "\n".join(lines) + "\n"


def convert_bundle_dir(src: Path, dest: Path) -> tuple[Bundle, list[str]]:
    """Write ``src``'s bundle to the new directory ``dest`` with every old-IR typed skill an
    Agent Skill (``skills/<name>/SKILL.md``, its contract in the metadata); the bundle and what
    was converted."""
    bundle = load_bundle_dir(src)
    artifacts, files, done = [], dict(bundle.files), []
    for a in bundle.manifest.artifacts:
        if a.kind is not ArtifactKind.typed_skill:
            artifacts.append(a)
            continue
        typed = TypedSkill.model_validate_json(files.pop(a.path))
        skill = AgentSkill.from_typed(typed, contract_body(typed))
        folder = f"{SKILLS_DIR}/{skill.name}"
        files[f"{folder}/{SKILL_FILE}"] = skill.skill_md
        artifacts.append(
            ArtifactEntry(
                kind=ArtifactKind.agent_skill,
                name=skill.name,
                path=folder,
                description=a.description,
            )
        )
        done.append(f"{a.path} → {folder}/{SKILL_FILE}")
    if not done:
        raise SubmissionError(
            f"{shown(str(src))}: the bundle holds no old-IR typed skill (typed_skill artifact)",
            "nothing to convert; Agent Skills folders need no conversion",
        )
    manifest = bundle.manifest.model_copy(update={"artifacts": tuple(artifacts)})
    converted = _validated(manifest, files, dest)
    write_bundle_dir(converted, dest)
    return converted, done

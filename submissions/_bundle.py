"""Bundles: a manifest plus artifact texts, content-addressed and validated on every load."""

from __future__ import annotations

import hashlib
from functools import cached_property
from pathlib import Path
from typing import Literal

import rfc8785
from pydantic import (
    BaseModel,
    ConfigDict,
    Field,
    PrivateAttr,
    ValidationError,
    model_validator,
)

from benchmark.harness import (
    AgentArtifacts,
    AgentSkill,
    Recipe,
    SkillFormatError,
    TrajectorySet,
    TypedSkill,
)
from drift import write_atomic
from submissions._files import read_capped
from submissions._limits import (
    LIMITS_HINT,
    MAX_ARTIFACT_BYTES,
    MAX_BUNDLE_BYTES,
    MAX_MANIFEST_BYTES,
    LimitExceeded,
)
from submissions._manifest import (
    MANIFEST_FILE,
    ArtifactEntry,
    ArtifactKind,
    BundleManifest,
    check_path,
)
from submissions._skill_folder import check_skill, read_skill_folder, skill_files
from submissions._text import shown
from submissions.errors import SubmissionError

_STRUCTURED: dict[ArtifactKind, type[BaseModel]] = {
    ArtifactKind.typed_skill: TypedSkill,
    ArtifactKind.trajectory: TrajectorySet,
}
"""Artifact kinds whose files must parse as a model."""
_PACK_HINT = "pack bundles with `vwt submissions pack DIR`"
SKILL_HINT = "fix the skill folder: the Agent Skills format and vwt's rules are in docs/skills.md"


def first_problem(e: ValidationError, hint: str) -> tuple[str, str]:
    """The first problem of ``e``, printable on one line, and what to do about it."""
    err = e.errors()[0]
    loc = ".".join(str(p) for p in err["loc"])
    over = isinstance(err.get("ctx", {}).get("error"), LimitExceeded)
    msg = str(err["msg"]).removeprefix("Value error, ")
    return shown(f"{loc}: {msg}" if loc else msg), LIMITS_HINT if over else hint


class Bundle(BaseModel):
    """A submission: its manifest and the text of every artifact it lists.

    Every bundle is within the limits of ``submissions._limits``, so what is stored can
    always be loaded again.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: Literal[1] = Field(default=1, description="Bundle format version (1).")
    manifest: BundleManifest = Field(description="The manifest.")
    files: dict[str, str] = Field(
        description="Artifact path → UTF-8 text; a skill folder's files each under its path."
    )
    _canonical: bytes = PrivateAttr(default=b"")
    _skills: tuple[AgentSkill, ...] = PrivateAttr(default=())

    @model_validator(mode="after")
    def _artifacts_valid(self) -> Bundle:
        folders = [a for a in self.manifest.artifacts if a.kind is ArtifactKind.agent_skill]
        singles = {a.path for a in self.manifest.artifacts} - {a.path for a in folders}
        stray = [
            p
            for p in self.files
            if p not in singles and not any(p.startswith(f"{f.path}/") for f in folders)
        ]
        if stray or not singles <= set(self.files):
            raise ValueError(
                "files must be exactly the artifact paths the manifest lists and the files of "
                "its skill folders" + (f" ({shown(stray[0])} is neither)" if stray else "")
            )
        for path, text in self.files.items():
            _check_file(path, text)
        for a in self.manifest.artifacts:
            model = _STRUCTURED.get(a.kind)
            if model is None:
                continue
            what = a.kind.value.replace("_", " ")
            try:
                parsed = model.model_validate_json(self.files[a.path])
                if isinstance(parsed, TypedSkill):
                    AgentSkill.from_typed(parsed)  # the harness holds it as an Agent Skill
            except ValidationError as e:
                raise ValueError(f"{what} {a.path}: {first_problem(e, '')[0]}") from None
            except SkillFormatError as e:
                raise ValueError(f"{what} {a.path}: {e}") from None
        self._skills = tuple(check_skill(a.path, a.name, self.files) for a in folders)
        canonical = rfc8785.dumps(self.model_dump(mode="json"))
        if len(canonical) > MAX_BUNDLE_BYTES:
            raise LimitExceeded(
                f"the bundle is {len(canonical):,} bytes as stored (canonical JSON), over the "
                f"limit of {MAX_BUNDLE_BYTES:,}"
            )
        self._canonical = canonical
        return self

    @cached_property
    def hash(self) -> str:
        """Content hash: SHA-256 of the bundle's RFC 8785 canonical JSON."""
        return hashlib.sha256(self._canonical).hexdigest()

    def canonical(self) -> bytes:
        """RFC 8785 canonical JSON of the bundle: exactly what is stored and packed."""
        return self._canonical

    def artifact_bytes(self, entry: ArtifactEntry) -> int:
        """UTF-8 bytes of an artifact: its file's, or all its skill folder's files'."""
        if entry.kind is not ArtifactKind.agent_skill:
            return len(self.files[entry.path].encode())
        return sum(len(t.encode()) for t in skill_files(self.files, entry.path).values())

    def agent_artifacts(self) -> AgentArtifacts:
        """What the harness gives the model (an old-IR typed skill as the Agent Skill whose
        contract it is)."""
        recipes, skills, memories = [], list(self._skills), []
        for a in self.manifest.artifacts:
            if a.kind is ArtifactKind.agent_skill:
                continue
            text = self.files[a.path]
            if a.kind is ArtifactKind.prompt_recipe:
                recipes.append(Recipe(name=a.name, text=text, description=a.description))
            elif a.kind is ArtifactKind.typed_skill:
                skills.append(AgentSkill.from_typed(TypedSkill.model_validate_json(text)))
            else:
                memories.append(TrajectorySet.model_validate_json(text))
        return AgentArtifacts(
            recipes=tuple(recipes), skills=tuple(skills), trajectories=tuple(memories)
        )


def _check_file(path: str, text: str) -> None:
    """A bundle file's path (normalised, of allowed parts) and size; ValueError if not."""
    try:
        if check_path(path) != path:
            raise ValueError("must be written normalised (no '.' parts, no '//')")
    except ValueError as e:
        raise ValueError(f"file path {shown(path)}: {e}") from None
    try:
        size = len(text.encode("utf-8"))
    except UnicodeEncodeError:
        raise ValueError(f"artifact {path} is not valid Unicode text") from None
    if size > MAX_ARTIFACT_BYTES:
        raise LimitExceeded(
            f"artifact {path} is {size:,} bytes, over the limit of {MAX_ARTIFACT_BYTES:,}"
        )


def _read_artifact(root: Path, rel: str) -> str:
    path = root / rel
    where = shown(str(path))
    try:
        outside = not path.resolve().is_relative_to(root.resolve())
        irregular = path.is_symlink() or not path.is_file()
    except (OSError, ValueError, RuntimeError) as e:  # RuntimeError: a symlink loop
        raise SubmissionError(
            f"{where}: cannot read ({shown(str(e))})", "check the bundle's files"
        ) from None
    if outside:
        raise SubmissionError(
            f"{where}: resolves outside the bundle directory (through a symlink)",
            "artifacts must be regular files inside the bundle",
        )
    if irregular:
        raise SubmissionError(
            f"{where}: artifact listed in {MANIFEST_FILE} is missing or not a regular file",
            "add the file or remove it from the manifest",
        )
    data = read_capped(path, MAX_ARTIFACT_BYTES, "artifact")
    try:
        text = data.decode("utf-8")
    except UnicodeDecodeError:
        raise SubmissionError(f"{where}: not UTF-8 text", "artifacts are text files") from None
    # Universal newlines, as text mode reads them: the hash does not depend on the platform.
    return text.replace("\r\n", "\n").replace("\r", "\n")


def load_bundle_dir(root: Path) -> Bundle:
    """Read and validate a bundle directory (``vwt-bundle.json`` plus artifact files)."""
    manifest_path = root / MANIFEST_FILE
    if not manifest_path.is_file():
        raise SubmissionError(
            f"{shown(str(root))}: no {MANIFEST_FILE}",
            f"a bundle directory needs a {MANIFEST_FILE} manifest",
        )
    raw = read_capped(manifest_path, MAX_MANIFEST_BYTES, "manifest")
    try:
        manifest = BundleManifest.model_validate_json(raw)
    except ValidationError as e:
        problem, hint = first_problem(e, "fix the manifest")
        raise SubmissionError(f"{shown(str(manifest_path))}: {problem}", hint) from None
    files: dict[str, str] = {}
    total = 0
    for a in manifest.artifacts:
        if a.kind is ArtifactKind.agent_skill:
            read = read_skill_folder(root, a.path)
        else:
            read = {a.path: _read_artifact(root, a.path)}
        files.update(read)
        total += sum(len(t.encode("utf-8")) for t in read.values())
        if total > MAX_BUNDLE_BYTES:  # stop reading: the bundle cannot fit
            raise SubmissionError(
                f"{shown(str(root))}: the artifacts total over {MAX_BUNDLE_BYTES:,} bytes, the "
                "limit of a whole bundle",
                LIMITS_HINT,
            )
        if a.kind is ArtifactKind.agent_skill:
            try:
                check_skill(a.path, a.name, files)
            except ValueError as e:  # named by its file: DIR/<folder>/SKILL.md: the rule
                over = isinstance(e, LimitExceeded)
                raise SubmissionError(
                    f"{shown(str(root))}/{shown(str(e))}", LIMITS_HINT if over else SKILL_HINT
                ) from None
    try:
        return Bundle(manifest=manifest, files=files)
    except ValidationError as e:
        problem, hint = first_problem(e, "fix the artifact")
        raise SubmissionError(f"{shown(str(root))}: {problem}", hint) from None


def read_bundle_file(path: Path) -> Bundle:
    """Read and validate a packed bundle (untrusted input)."""
    data = read_capped(path, MAX_BUNDLE_BYTES, "packed bundle file")
    try:
        return Bundle.model_validate_json(data)
    except ValidationError as e:
        problem, hint = first_problem(e, _PACK_HINT)
        raise SubmissionError(f"{shown(str(path))}: not a valid bundle ({problem})", hint) from None


def load_bundle(path: Path) -> Bundle:
    """A bundle from a directory or a packed file, validated."""
    return load_bundle_dir(path) if path.is_dir() else read_bundle_file(path)


def write_bundle(bundle: Bundle, out: Path) -> Path:
    """Write ``bundle`` as its canonical JSON (what ``vwt submissions pack`` produces)."""
    try:
        out.parent.mkdir(parents=True, exist_ok=True)
        write_atomic(out, bundle.canonical())
    except (OSError, ValueError) as e:
        reason = getattr(e, "strerror", None) or str(e)
        raise SubmissionError(
            f"cannot write {shown(str(out))} ({reason})", "check the path and free disk space"
        ) from None
    return out

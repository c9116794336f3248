"""Bundles: a manifest plus artifact texts, content-addressed and validated on every load."""

from __future__ import annotations

import hashlib
from pathlib import Path

import rfc8785
from pydantic import BaseModel, ConfigDict, Field, ValidationError, model_validator

from benchmark.harness import AgentArtifacts, Recipe, TrajectorySet, TypedSkill
from submissions._manifest import MANIFEST_FILE, ArtifactKind, BundleManifest
from submissions.errors import SubmissionError

MAX_ARTIFACT_BYTES = 1 << 20
_STRUCTURED: dict[ArtifactKind, type[BaseModel]] = {
    ArtifactKind.typed_skill: TypedSkill,
    ArtifactKind.trajectory: TrajectorySet,
}
"""Artifact kinds whose files must parse as a model."""
MAX_BUNDLE_BYTES = 16 << 20


def _first_error(e: ValidationError) -> str:
    err = e.errors()[0]
    loc = ".".join(str(p) for p in err["loc"]) or "(top level)"
    return f"{loc}: {err['msg']}"


class Bundle(BaseModel):
    """A submission: its manifest and the text of every artifact it lists."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = Field(default=1, description="Bundle format version.")
    manifest: BundleManifest = Field(description="The manifest.")
    files: dict[str, str] = Field(description="Artifact path → UTF-8 text.")

    @model_validator(mode="after")
    def _artifacts_valid(self) -> Bundle:
        listed = {a.path for a in self.manifest.artifacts}
        if set(self.files) != listed:
            raise ValueError("files must be exactly the artifact paths the manifest lists")
        for a in self.manifest.artifacts:
            model = _STRUCTURED.get(a.kind)
            if model is None:
                continue
            try:
                model.model_validate_json(self.files[a.path])
            except ValidationError as e:
                what = a.kind.value.replace("_", " ")
                raise ValueError(f"{what} {a.path}: {_first_error(e)}") from None
        return self

    @property
    def hash(self) -> str:
        """Content hash: SHA-256 of the bundle's RFC 8785 canonical JSON."""
        return hashlib.sha256(self.canonical()).hexdigest()

    def canonical(self) -> bytes:
        """RFC 8785 canonical JSON of the bundle."""
        return rfc8785.dumps(self.model_dump(mode="json"))

    def agent_artifacts(self) -> AgentArtifacts:
        """What the harness gives the model."""
        recipes, skills, memories = [], [], []
        for a in self.manifest.artifacts:
            text = self.files[a.path]
            if a.kind is ArtifactKind.prompt_recipe:
                recipes.append(Recipe(name=a.name, text=text))
            elif a.kind is ArtifactKind.typed_skill:
                skills.append(TypedSkill.model_validate_json(text))
            else:
                memories.append(TrajectorySet.model_validate_json(text))
        return AgentArtifacts(
            recipes=tuple(recipes), skills=tuple(skills), trajectories=tuple(memories)
        )


def _read_artifact(root: Path, rel: str) -> str:
    path = root / rel
    if not path.resolve().is_relative_to(root.resolve()):
        raise SubmissionError(
            f"{path}: resolves outside the bundle directory (through a symlink)",
            "artifacts must be regular files inside the bundle",
        )
    if path.is_symlink() or not path.is_file():
        raise SubmissionError(
            f"{path}: artifact listed in {MANIFEST_FILE} is missing or not a regular file",
            "add the file or remove it from the manifest",
        )
    if path.stat().st_size > MAX_ARTIFACT_BYTES:
        raise SubmissionError(f"{path}: larger than {MAX_ARTIFACT_BYTES} bytes")
    try:
        return path.read_text(encoding="utf-8")
    except UnicodeDecodeError:
        raise SubmissionError(f"{path}: not UTF-8 text", "artifacts are text files") from None


def load_bundle_dir(root: Path) -> Bundle:
    """Read and validate a bundle directory (``vwt-bundle.json`` plus artifact files)."""
    manifest_path = root / MANIFEST_FILE
    if not manifest_path.is_file():
        raise SubmissionError(
            f"{root}: no {MANIFEST_FILE}", f"a bundle directory needs a {MANIFEST_FILE} manifest"
        )
    try:
        manifest = BundleManifest.model_validate_json(manifest_path.read_bytes())
    except ValidationError as e:
        raise SubmissionError(f"{manifest_path}: {_first_error(e)}", "fix the manifest") from None
    files = {a.path: _read_artifact(root, a.path) for a in manifest.artifacts}
    try:
        return Bundle(manifest=manifest, files=files)
    except ValidationError as e:
        raise SubmissionError(f"{root}: {_first_error(e)}", "fix the artifact") from None


def read_bundle_file(path: Path) -> Bundle:
    """Read and validate a packed bundle (untrusted input)."""
    try:
        size = path.stat().st_size
    except OSError as e:
        raise SubmissionError(f"{path}: cannot read ({e.strerror})", "check the path") from None
    if size > MAX_BUNDLE_BYTES:
        raise SubmissionError(f"{path}: larger than {MAX_BUNDLE_BYTES} bytes")
    try:
        return Bundle.model_validate_json(path.read_bytes())
    except ValidationError as e:
        raise SubmissionError(
            f"{path}: not a valid bundle ({_first_error(e)})",
            "pack bundles with `vwt submissions pack DIR`",
        ) from None


def write_bundle(bundle: Bundle, out: Path) -> Path:
    """Write ``bundle`` as its canonical JSON (what ``vwt submissions pack`` produces)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    tmp = out.with_name(out.name + ".tmp")
    tmp.write_bytes(bundle.canonical())
    tmp.replace(out)
    return out

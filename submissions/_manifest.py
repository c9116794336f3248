"""The bundle manifest: what a submission contains and what each artifact is."""

from __future__ import annotations

import re
from collections import Counter
from enum import StrEnum
from pathlib import PurePosixPath
from typing import Annotated, Any, Literal

import rfc8785
from pydantic import (
    AfterValidator,
    BaseModel,
    ConfigDict,
    Field,
    SerializerFunctionWrapHandler,
    field_validator,
    model_serializer,
    model_validator,
)

from submissions._limits import MAX_ARTIFACTS, MAX_MANIFEST_BYTES, MAX_PATH_CHARS, LimitExceeded
from submissions._text import check_text

MANIFEST_FILE = "vwt-bundle.json"
_NAME = re.compile(r"[a-z0-9][a-z0-9._-]{0,63}")
_VERSION = re.compile(r"[0-9A-Za-z][0-9A-Za-z._+-]{0,63}")
_PATH_PART = re.compile(r"[0-9A-Za-z._+@ -]{1,255}")


def check_path(v: str) -> str:
    """``v`` normalised, if it is a relative POSIX path inside the bundle of allowed parts;
    else ValueError saying the rule."""
    p = PurePosixPath(v)
    if p.is_absolute() or ".." in p.parts or not p.parts or "\\" in v:
        raise ValueError("must be a relative path inside the bundle, without '..'")
    if len(v) > MAX_PATH_CHARS or not all(_PATH_PART.fullmatch(part) for part in p.parts):
        raise ValueError(
            f"use at most {MAX_PATH_CHARS} characters: letters, digits, ' ', '.', '_', '+', "
            "'@' or '-', separated by '/'"
        )
    return str(p)


def _check_name(v: str) -> str:
    if not _NAME.fullmatch(v):
        raise ValueError("use 1-64 lower-case letters, digits, '.', '_' or '-'")
    return v


def _check_version(v: str) -> str:
    if not _VERSION.fullmatch(v):
        raise ValueError(
            "use 1-64 letters, digits, '.', '_', '+' or '-', starting with a letter or digit"
        )
    return v


Name = Annotated[str, AfterValidator(_check_name)]
"""A submission or artifact name: 1-64 of ``[a-z0-9._-]``, starting with a letter or digit."""
Version = Annotated[str, AfterValidator(_check_version)]
"""A version label: 1-64 of ``[0-9A-Za-z._+-]``, starting with a letter or digit."""
Line = Annotated[str, AfterValidator(check_text)]
"""One line of text: no control or bidirectional characters."""
Paragraphs = Annotated[str, AfterValidator(lambda v: check_text(v, multiline=True))]
"""Free text: newlines and tabs allowed, no other control or bidirectional characters."""


class ArtifactKind(StrEnum):
    """Kinds of artifact a submission may carry."""

    prompt_recipe = "prompt_recipe"
    typed_skill = "typed_skill"
    """An old-IR typed skill (JSON); ``vwt submissions convert`` makes it an Agent Skill."""
    trajectory = "trajectory"
    agent_skill = "agent_skill"
    """An Agent Skills folder: its ``path`` is the folder, holding ``SKILL.md``."""


class ArtifactEntry(BaseModel):
    """One artifact file of a bundle."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ArtifactKind = Field(description="What the file is.")
    name: Name = Field(description="Artifact name, unique in the bundle.")
    path: str = Field(
        description="Relative POSIX path of the file (of the folder, for an agent skill) inside "
        "the bundle: parts of letters, digits, ' ', '.', '_', '+', '@' or '-', at most "
        f"{MAX_PATH_CHARS} characters."
    )
    description: Paragraphs = Field(default="", description="What it is for.")

    @field_validator("path")
    @classmethod
    def _path_inside(cls, v: str) -> str:
        return check_path(v)


AdaptationProcedure = Literal["rebind-skills", "rewrite-recipes", "refresh-episodes"]
"""A built-in adaptation procedure a bundle may declare (see docs/adaptation.md)."""


class AdaptationDeclaration(BaseModel):
    """How the submitter asks for the bundle to be adapted to each target: built-in procedures
    run in order, and/or the submitter's own command (argv, run in the sandbox with only the
    adaptation kit mounted)."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    procedures: tuple[AdaptationProcedure, ...] = Field(
        default=(), description="Built-in procedures, run in this order."
    )
    command: tuple[Line, ...] = Field(
        default=(), description="The submitter's own adaptation command (argv), run last."
    )

    @model_validator(mode="after")
    def _distinct(self) -> AdaptationDeclaration:
        if dupes := _duplicates(list(self.procedures)):
            raise ValueError(f"procedures listed twice: {', '.join(dupes)}")
        return self


def _duplicates(values: list[str]) -> list[str]:
    """The values that occur more than once, sorted (linear in ``values``)."""
    return sorted(v for v, n in Counter(values).items() if n > 1)


class BundleManifest(BaseModel):
    """``vwt-bundle.json``: the bundle's identity and artifact list."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: Literal[1] = Field(default=1, description="Manifest format version (1).")
    name: Name = Field(description="Submission name.")
    version: Version = Field(description="Submitter's version label, e.g. '1' or '2.0-rc1'.")
    description: Paragraphs = Field(default="", description="What the submission is.")
    authors: tuple[Line, ...] = Field(default=(), description="Who made it.")
    developed_for: Line = Field(
        default="", description="The public source condition it was developed against."
    )
    artifacts: tuple[ArtifactEntry, ...] = Field(
        default=(),
        description=f"Artifacts (at most {MAX_ARTIFACTS}); empty for a no-artifact submission.",
    )

    adaptation: AdaptationDeclaration | None = Field(
        default=None,
        description="How to adapt the bundle in the adapted phase; without it, the built-in "
        "procedures that fit its artifact kinds.",
    )

    @field_validator("artifacts", mode="before")
    @classmethod
    def _not_too_many(cls, v: Any) -> Any:
        # Before item validation, so that a huge list is refused without being validated.
        if isinstance(v, list | tuple) and len(v) > MAX_ARTIFACTS:
            raise LimitExceeded(f"{len(v)} artifacts, over the limit of {MAX_ARTIFACTS}")
        return v

    @model_validator(mode="after")
    def _unique_and_small(self) -> BundleManifest:
        for attr in ("name", "path"):
            dupes = _duplicates([getattr(a, attr) for a in self.artifacts])
            if dupes:
                raise ValueError(f"duplicate artifact {attr}s: {', '.join(dupes)}")
        folders = {a.path for a in self.artifacts if a.kind is ArtifactKind.agent_skill}
        for a in self.artifacts:
            inside = next((f for f in folders if a.path.startswith(f"{f}/")), None)
            if inside is not None:
                raise ValueError(f"artifact path {a.path} lies inside skill folder {inside}")
        size = len(self.canonical())
        if size > MAX_MANIFEST_BYTES:
            raise LimitExceeded(
                f"the manifest is {size:,} bytes as stored, over the limit of "
                f"{MAX_MANIFEST_BYTES:,}"
            )
        return self

    @model_serializer(mode="wrap")
    def _without_absent_adaptation(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # A manifest without an adaptation declaration serialises as before the field existed,
        # so bundle hashes made then are unchanged.
        data: dict[str, Any] = handler(self)
        if data.get("adaptation") is None:
            data.pop("adaptation", None)
        return data

    def canonical(self) -> bytes:
        """RFC 8785 canonical JSON of the manifest (as it is stored inside the bundle)."""
        return rfc8785.dumps(self.model_dump(mode="json"))

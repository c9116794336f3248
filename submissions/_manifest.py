"""The bundle manifest: what a submission contains and what each artifact is."""

from __future__ import annotations

import re
from enum import StrEnum
from pathlib import PurePosixPath
from typing import Annotated

from pydantic import AfterValidator, BaseModel, ConfigDict, Field, field_validator, model_validator

MANIFEST_FILE = "vwt-bundle.json"
_NAME = re.compile(r"^[a-z0-9][a-z0-9._-]{0,63}$")


def _check_name(v: str) -> str:
    if not _NAME.match(v):
        raise ValueError("use 1-64 lower-case letters, digits, '.', '_' or '-'")
    return v


Name = Annotated[str, AfterValidator(_check_name)]
"""A submission or artifact name."""


class ArtifactKind(StrEnum):
    """Kinds of artifact a submission may carry."""

    prompt_recipe = "prompt_recipe"
    typed_skill = "typed_skill"
    trajectory = "trajectory"


class ArtifactEntry(BaseModel):
    """One artifact file of a bundle."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ArtifactKind = Field(description="What the file is.")
    name: Name = Field(description="Artifact name, unique in the bundle.")
    path: str = Field(description="Relative POSIX path of the file inside the bundle.")
    description: str = Field(default="", description="What it is for.")

    @field_validator("path")
    @classmethod
    def _path_inside(cls, v: str) -> str:
        p = PurePosixPath(v)
        if p.is_absolute() or ".." in p.parts or not p.parts or "\\" in v:
            raise ValueError("must be a relative path inside the bundle, without '..'")
        return str(p)


class BundleManifest(BaseModel):
    """``vwt-bundle.json``: the bundle's identity and artifact list."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: int = Field(default=1, description="Manifest format version.")
    name: Name = Field(description="Submission name.")
    version: str = Field(min_length=1, description="Submitter's version label.")
    description: str = Field(default="", description="What the submission is.")
    authors: tuple[str, ...] = Field(default=(), description="Who made it.")
    developed_for: str = Field(
        default="", description="The public source condition it was developed against."
    )
    artifacts: tuple[ArtifactEntry, ...] = Field(
        default=(), description="Artifacts; empty for a no-artifact submission."
    )

    @model_validator(mode="after")
    def _unique(self) -> BundleManifest:
        for attr in ("name", "path"):
            seen = [getattr(a, attr) for a in self.artifacts]
            dupes = sorted({x for x in seen if seen.count(x) > 1})
            if dupes:
                raise ValueError(f"duplicate artifact {attr}s: {', '.join(dupes)}")
        return self

"""Adapted bundles: content-addressed like submissions, linked to the frozen parent, with the
diff of artifacts frozen → adapted."""

from __future__ import annotations

import difflib
import hashlib
from pathlib import Path
from typing import Any, Literal

import rfc8785
from pydantic import BaseModel, ConfigDict, Field, model_validator

from adapt._access import AccessLog
from adapt._meter import Cost
from drift import write_atomic
from submissions import Bundle, write_bundle

ArtifactStatus = Literal["added", "removed", "changed", "unchanged"]


class ArtifactDiff(BaseModel):
    """How one artifact path differs between the frozen and the adapted bundle."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    path: str = Field(description="Artifact path in the bundle.")
    status: ArtifactStatus = Field(description="added, removed, changed or unchanged.")
    diff: str = Field(default="", description="Unified diff of the text (when changed).")


def artifact_diff(frozen: Bundle, adapted: Bundle) -> list[ArtifactDiff]:
    """Per artifact path (sorted), what adapting did to it."""
    out = []
    for path in sorted(set(frozen.files) | set(adapted.files)):
        old, new = frozen.files.get(path), adapted.files.get(path)
        if old is None:
            out.append(ArtifactDiff(path=path, status="added"))
        elif new is None:
            out.append(ArtifactDiff(path=path, status="removed"))
        elif old == new:
            out.append(ArtifactDiff(path=path, status="unchanged"))
        else:
            lines = difflib.unified_diff(
                old.splitlines(keepends=True),
                new.splitlines(keepends=True),
                f"frozen/{path}",
                f"adapted/{path}",
            )
            out.append(ArtifactDiff(path=path, status="changed", diff="".join(lines)))
    return out


class AdaptedBundle(BaseModel):
    """The outcome of one adaptation: the adapted bundle, its frozen parent's hash, the
    procedure that made it, what it cost, and what it changed.

    ``hash`` is the adapted bundle's content hash, computed exactly as a submission's (an
    adaptation that changed nothing has its parent's hash).
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    v: Literal[1] = Field(default=1, description="Record format version (1).")
    parent: str = Field(description="Content hash of the frozen bundle it was adapted from.")
    target: str = Field(description="Id of the target condition it was adapted for.")
    procedure: str = Field(description="The procedure that made it, e.g. 'rebind-skills'.")
    bundle: Bundle = Field(description="The adapted bundle.")
    cost: Cost = Field(description="What the adaptation spent.")
    notes: tuple[str, ...] = Field(default=(), description="What the procedure did, and why.")
    diff: tuple[ArtifactDiff, ...] = Field(description="Artifacts frozen → adapted.")

    @model_validator(mode="after")
    def _named_like_parent(self) -> AdaptedBundle:
        if len(self.parent) != 64 or any(c not in "0123456789abcdef" for c in self.parent):
            raise ValueError("parent must be a bundle hash (64 lower-case hex characters)")
        return self

    @classmethod
    def make(
        cls,
        frozen: Bundle,
        adapted: Bundle,
        *,
        target: str,
        procedure: str,
        cost: Cost,
        notes: tuple[str, ...] = (),
    ) -> AdaptedBundle:
        """The record of adapting ``frozen`` into ``adapted``."""
        return cls(
            parent=frozen.hash,
            target=target,
            procedure=procedure,
            bundle=adapted,
            cost=cost,
            notes=notes,
            diff=tuple(artifact_diff(frozen, adapted)),
        )

    @property
    def hash(self) -> str:
        """Content hash of the adapted bundle (same hashing as a submission)."""
        return self.bundle.hash

    @property
    def changed(self) -> bool:
        """True when any artifact differs from the parent's."""
        return any(d.status != "unchanged" for d in self.diff)

    def record(self) -> dict[str, Any]:
        """The record without the bundle's text: what the release lists per adapted bundle."""
        out = self.model_dump(mode="json", exclude={"bundle"})
        return {**out, "hash": self.hash}

    def record_digest(self) -> str:
        """SHA-256 of the record's canonical JSON (for the ledger)."""
        return hashlib.sha256(rfc8785.dumps(self.record())).hexdigest()

    def ledger_payload(self, log: AccessLog) -> dict[str, Any]:
        """What the ledger records for this adaptation: hashes of the parent, the adapted
        bundle, the record and the access ``log``, the cost in whole units (milliseconds for
        seconds: no floats), and the log's count of refused reads."""
        c = self.cost
        return {
            "v": 1,
            "target": self.target,
            "parent": self.parent,
            "adapted": self.hash,
            "procedure": self.procedure,
            "record": self.record_digest(),
            "access_log": log.digest(),
            "reads": len(log.entries),
            "refused_reads": len(log.refused()),
            "cost": {
                "calls": c.calls,
                "prompt_tokens": c.prompt_tokens,
                "completion_tokens": c.completion_tokens,
                "milliseconds": round(c.seconds * 1000),
                "human_minutes": c.human_minutes,
                "refused_calls": c.refused,
            },
        }

    def write(self, out_dir: Path) -> Path:
        """Write ``<hash>.json`` (the packed bundle) and ``<hash>.record.json`` to ``out_dir``;
        returns the bundle's path."""
        path = write_bundle(self.bundle, out_dir / f"{self.hash}.json")
        write_atomic(out_dir / f"{self.hash}.record.json", rfc8785.dumps(self.record()))
        return path

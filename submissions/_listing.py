"""What was submitted to a cycle, as `vwt submissions list` shows it (and prints as JSON)."""

from __future__ import annotations

from pydantic import BaseModel, ConfigDict, Field

from conditions import Cycle
from submissions._manifest import ArtifactKind
from submissions._store import SUBMISSION_EVENT, submitted_bundles


class ListedArtifact(BaseModel):
    """One artifact of a submitted bundle."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    kind: ArtifactKind = Field(description="What the artifact is.")
    name: str = Field(description="Artifact name.")
    path: str = Field(description="Path inside the bundle.")
    bytes: int = Field(description="UTF-8 bytes of its text.")


class ListedSubmission(BaseModel):
    """One accepted submission: identity, receipt time, lateness and artifacts."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(description="Submission name.")
    version: str = Field(description="Submission version label.")
    bundle_hash: str = Field(description="SHA-256 of the bundle's canonical JSON.")
    received_at: str = Field(description="When it was accepted (RFC 3339, UTC), as receipted.")
    late: bool = Field(description="Accepted after closes_at by the operator's override.")
    artifacts: tuple[ListedArtifact, ...] = Field(description="Its artifacts, in manifest order.")


def list_submissions(cycle: Cycle) -> list[ListedSubmission]:
    """Every submission to ``cycle``, in submission order; each stored bundle is re-checked."""
    entries = cycle.ledger.entries(SUBMISSION_EVENT)
    return [
        ListedSubmission(
            name=bundle.manifest.name,
            version=bundle.manifest.version,
            bundle_hash=bundle.hash,
            received_at=entry.payload["receipt"]["receipt"]["received_at"],
            late=bool(entry.payload.get("late", False)),
            artifacts=tuple(
                ListedArtifact(
                    kind=a.kind, name=a.name, path=a.path, bytes=bundle.artifact_bytes(a)
                )
                for a in bundle.manifest.artifacts
            ),
        )
        for bundle, entry in zip(submitted_bundles(cycle), entries, strict=True)
    ]

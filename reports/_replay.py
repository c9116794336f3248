"""A release as a source of trials to replay: its records, conditions, bundles, interface
definitions and published call records, each read as the release pins it."""

from __future__ import annotations

from collections.abc import Sequence
from pathlib import Path

from pydantic import ValidationError

from benchmark import ReplayCall
from benchmark.harness import AgentArtifacts
from conditions import Condition
from drift import InterfaceVersion
from reports._calls import read_calls
from reports._published import REPUBLISH, artifact_name, read_pinned
from reports._trials import release_trials
from reports._verify import read_release
from reports.errors import ReportError
from runner import TrialRecord
from submissions import MAX_BUNDLE_BYTES, Bundle


class ReleaseSource:
    """The trials of a published release (``release.json`` or its directory)."""

    def __init__(self, path: Path) -> None:
        """Read the release at ``path`` and its trials file (pinned hash checked)."""
        signed = read_release(path)
        self.folder = path if path.is_dir() else path.parent
        self.release = signed.release
        self.trials = release_trials(path)
        self.where = self.trials.where
        self._conditions = {c.id: c.condition for c in self.release.conditions}
        self._artifacts = {ref.name: ref for ref in self.release.artifacts}

    def records(self) -> list[TrialRecord]:
        """The released records."""
        return list(self.trials.records)

    def condition(self, condition_id: str) -> Condition:
        """The released (revealed) condition with this id."""
        if condition_id not in self._conditions:
            raise ReportError(
                f"the release {self.where} has no condition {condition_id[:16]}…", REPUBLISH
            )
        return self._conditions[condition_id]

    def artifacts(self, bundle_hash: str) -> AgentArtifacts:
        """The artifacts of a published bundle, its hash recomputed."""
        ref = self._artifacts.get(artifact_name(bundle_hash))
        if ref is None:
            raise ReportError(
                f"the release {self.where} publishes no bundle {bundle_hash[:16]}…", REPUBLISH
            )
        data = read_pinned(self.folder, ref, "artifact", MAX_BUNDLE_BYTES)
        try:
            bundle = Bundle.model_validate_json(data)
        except ValidationError as e:
            problem = e.errors()[0]["msg"]
            raise ReportError(
                f"artifact {ref.name} is not a valid bundle ({problem})", REPUBLISH
            ) from None
        if bundle.hash != bundle_hash:
            raise ReportError(f"artifact {ref.name} is not bundle {bundle_hash[:16]}…", REPUBLISH)
        return bundle.agent_artifacts()

    def interfaces(self) -> Sequence[InterfaceVersion]:
        """The release's interface definitions."""
        return self.release.interfaces

    def calls(self, calls_sha256: str) -> tuple[ReplayCall, ...]:
        """The published call record with this hash, every hash checked."""
        return read_calls(self.folder, calls_sha256)

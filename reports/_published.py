"""What a release publishes beside its trials: traces, call records, artifacts and interface
version files.

- ``traces/<sha256>.json.gz``: every released trial's trace (see ``reports._traces``);
- ``calls/<sha256>.json.gz``: every released trial's model calls (see ``reports._calls``);
- ``artifacts/<bundle hash>.json``: every bundle a released trial used, submitted or adapted,
  as its canonical JSON (what ``vwt submissions pack`` writes), so its SHA-256 is the bundle
  hash and ``vwt submissions`` reads it back;
- ``interfaces/<version id>.json``: every served tool interface as a full version file (base
  tools, operators, served tools, digest, changelog) that ``vwt drift show`` and
  ``vwt drift diff`` read as they are.

Building them (``published_files``) and checking them against a release (``check_published``)
live here together, so what is written is what is checked.
"""

from __future__ import annotations

import hashlib
import re
from collections.abc import Callable, Iterable
from pathlib import Path

from pydantic import BaseModel, ConfigDict, Field, ValidationError

from benchmark import family_for_env, serve
from benchmark.errors import BenchmarkError
from conditions._wire import MAX_FILE_BYTES
from drift import InterfaceVersion, VersionFile, capped_bytes
from reports._calls import call_file, calls_name
from reports._matrix import noise_check_bundles
from reports._traces import compress_trace, trace_bytes, trace_name
from reports.errors import ReportError
from runner import TrialRecord
from submissions import MAX_BUNDLE_BYTES, Bundle

ARTIFACTS_DIR = "artifacts"
"""Directory of the published bundles, next to ``release.json``."""
INTERFACES_DIR = "interfaces"
"""Directory of the published interface version files, next to ``release.json``."""

_UNSAFE = re.compile(r"[^A-Za-z0-9._@+-]")
REPUBLISH = (
    "get the release's files exactly as the operator published them, or treat the release as "
    "untrustworthy"
)


class FileRef(BaseModel):
    """A file published with the release, pinned by hash."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    name: str = Field(
        description="Path relative to the release: a file name, or 'artifacts/<hash>.json' and "
        "'interfaces/<id>.json' in a directory beside it."
    )
    sha256: str = Field(description="SHA-256 of the file's bytes.")


def artifact_name(bundle_hash: str) -> str:
    """The published bundle's path, relative to the release directory."""
    return f"{ARTIFACTS_DIR}/{bundle_hash}.json"


def interface_name(version_id: str) -> str:
    """The published interface version file's path, relative to the release directory."""
    return f"{INTERFACES_DIR}/{_UNSAFE.sub('_', version_id)}.json"


def version_file_bytes(version: InterfaceVersion) -> bytes:
    """``version`` as a full version file (``vwt drift generate``'s format), as published."""
    try:
        served = serve(version.env, version)
        base = family_for_env(version.env).base_tools_for(version)
    except BenchmarkError as e:
        raise ReportError(f"released interface {version.id!r}: {e}", REPUBLISH) from None
    vf = VersionFile(
        version=version,
        base=base.to_mcp(),
        tools=served.tools.to_mcp(),
        digest=served.digest,
        changelog=version.changelog(),
    )
    return (vf.model_dump_json(indent=2, by_alias=True) + "\n").encode()


def released_bundles(records: Iterable[TrialRecord], extra: Iterable[str]) -> list[str]:
    """Hashes of every bundle a record used, and of ``extra`` (submitted and adapted), sorted."""
    return sorted({r.bundle_hash for r in records if r.bundle_hash} | set(extra))


def _ref(name: str, data: bytes) -> FileRef:
    return FileRef(name=name, sha256=hashlib.sha256(data).hexdigest())


class Published(BaseModel):
    """The files to publish, and the references the release pins."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    files: tuple[tuple[str, bytes], ...] = Field(description="(relative path, bytes) to write.")
    artifacts: tuple[FileRef, ...] = Field(description="The bundles, by hash.")
    interfaces: tuple[FileRef, ...] = Field(description="The interface version files.")


def published_files(
    records: list[TrialRecord],
    bundles: list[str],
    interfaces: Iterable[InterfaceVersion],
    trace_of: Callable[[str], bytes | None],
    bundle_of: Callable[[str], Bundle],
    blob_of: Callable[[str], bytes | None] | None = None,
) -> Published:
    """Traces of ``records`` (from ``trace_of``, by hash), their call records (from the
    blobs ``blob_of`` gives, see ``reports._calls``), the ``bundles`` (from ``bundle_of``) and
    the ``interfaces`` as files. Refused if a record's trace or calls are not in the store."""
    files: list[tuple[str, bytes]] = []
    pinned = {r.calls_sha256 for r in records if r.calls_sha256} if blob_of else set()
    for sha in sorted(pinned):
        calls = None if blob_of is None else call_file(sha, blob_of)
        if calls is None:
            key = next(r.key for r in records if r.calls_sha256 == sha)
            raise ReportError(
                f"the store has no call record {sha[:16]}… for trial {key[:12]}… (or it is "
                "altered)",
                "a release publishes every trial's model calls: restore the store (vwt.sqlite "
                "in the cycle's home) from a backup",
            )
        files.append((calls_name(sha), calls))
    for sha in sorted({r.trace_sha256 for r in records}):
        trace = trace_of(sha)
        if trace is None or hashlib.sha256(trace).hexdigest() != sha:
            key = next(r.key for r in records if r.trace_sha256 == sha)
            raise ReportError(
                f"the store has no trace {sha[:16]}… for trial {key[:12]}… (or it is altered)",
                "a release publishes every trial's trace: restore the store (vwt.sqlite in the "
                "cycle's home) from a backup",
            )
        files.append((trace_name(sha), compress_trace(trace)))
    artifacts = []
    for h in bundles:
        data = bundle_of(h).canonical()
        artifacts.append(_ref(artifact_name(h), data))
        files.append((artifacts[-1].name, data))
    refs = []
    for v in sorted(interfaces, key=lambda v: v.id):
        data = version_file_bytes(v)
        refs.append(_ref(interface_name(v.id), data))
        files.append((refs[-1].name, data))
    return Published(files=tuple(files), artifacts=tuple(artifacts), interfaces=tuple(refs))


def read_pinned(
    folder: Path, ref: FileRef, what: str, max_bytes: int, unreadable_hint: str = REPUBLISH
) -> bytes:
    """The bytes of the file ``ref`` pins, under ``folder``: ReportError (naming ``what``) if
    it cannot be read within ``max_bytes`` or its SHA-256 is not the pinned one."""
    path = folder / ref.name
    data, problem = capped_bytes(path, max_bytes)
    if problem is not None:
        raise ReportError(
            f"the release's {what} {path} cannot be read: it {problem}", unreadable_hint
        )
    digest = hashlib.sha256(data).hexdigest()
    if digest != ref.sha256:
        raise ReportError(
            f"{what} {path} does not match the SHA-256 pinned in the release "
            f"(file {digest[:16]}…, release {ref.sha256[:16]}…)",
            REPUBLISH,
        )
    return data


def _check_refs(refs: tuple[FileRef, ...], names: list[str], what: str) -> None:
    if [r.name for r in refs] != names:
        raise ReportError(
            f"the release pins {len(refs)} {what} files, not one per {what} it uses "
            f"({len(names)}), under the names it derives from them",
            REPUBLISH,
        )


def check_traces(folder: Path, records: list[TrialRecord]) -> int:
    """Every record's trace is published and hashes to its pin; returns the distinct traces."""
    first: dict[str, str] = {}
    for r in records:
        first.setdefault(r.trace_sha256, r.key)
    for sha, key in sorted(first.items()):
        try:
            trace_bytes(folder, sha)
        except ReportError as e:
            raise ReportError(f"trial {key[:12]}…: {e}", e.hint) from None
    return len(first)


def check_artifacts(folder: Path, refs: tuple[FileRef, ...], bundles: list[str]) -> int:
    """Every bundle of ``bundles`` is published, a valid bundle whose recomputed hash is its
    name's; returns how many."""
    _check_refs(refs, [artifact_name(h) for h in bundles], "bundle")
    for ref, h in zip(refs, bundles, strict=True):
        data = read_pinned(folder, ref, "artifact", MAX_BUNDLE_BYTES)
        try:
            recomputed = Bundle.model_validate_json(data).hash
        except ValidationError as e:
            first = e.errors()[0]
            raise ReportError(
                f"artifact {folder / ref.name} is not a valid bundle ({first['msg']})", REPUBLISH
            ) from None
        if recomputed != h:
            raise ReportError(
                f"artifact {folder / ref.name} is a bundle of hash {recomputed[:16]}…, not "
                f"{h[:16]}…",
                REPUBLISH,
            )
    return len(refs)


def check_interfaces(
    folder: Path, refs: tuple[FileRef, ...], interfaces: tuple[InterfaceVersion, ...]
) -> int:
    """Every defined interface is published as the version file its definition makes."""
    ordered = sorted(interfaces, key=lambda v: v.id)
    _check_refs(refs, [interface_name(v.id) for v in ordered], "interface")
    for ref, v in zip(refs, ordered, strict=True):
        data = read_pinned(folder, ref, "interface file", MAX_FILE_BYTES)
        if data != version_file_bytes(v):
            raise ReportError(
                f"interface file {folder / ref.name} is not the version file of the release's "
                f"definition of {v.id!r}",
                REPUBLISH,
            )
    return len(refs)


def published_noise_checks(
    folder: Path, refs: tuple[FileRef, ...], submissions: list[str]
) -> frozenset[str]:
    """The ``submissions`` whose published bundle holds no artifacts (their cells are the A/A
    noise check); read after ``check_artifacts`` has checked every bundle."""
    by_name = {ref.name: ref for ref in refs}
    bundles = [
        Bundle.model_validate_json(
            read_pinned(folder, by_name[artifact_name(h)], "artifact", MAX_BUNDLE_BYTES)
        )
        for h in submissions
        if artifact_name(h) in by_name
    ]
    return noise_check_bundles(bundles)

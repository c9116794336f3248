"""Adaptation over HTTP: a submitter's own pairs, its kit as a tar.gz, the adapted upload; and
the client's safe unpacking of a downloaded kit.

A submitter's submissions are the ``submission.received`` ledger entries whose payload names
it as ``submitter``. Anything else (another submitter's submission, an unknown one, a target
not committed) is 404 ``not_found``, so nothing tells whether it exists.
"""

from __future__ import annotations

import gzip
import io
import shutil
import tarfile
import tempfile
from pathlib import Path, PurePosixPath
from typing import Any

from adapt import AdaptError, BudgetExceeded, KitNotExported, export_pair_kit, import_pair
from conditions import Cycle, CycleState, Target
from service._state import require_state
from service.errors import ServiceError
from submissions import SUBMISSION_EVENT, SubmissionError, read_bundle_file, shown

MAX_KIT_BYTES = 64 << 20
"""Largest total size of the files a kit archive may unpack to."""
MAX_KIT_FILES = 4096
"""Most entries (files and directories) a kit archive may hold."""
_KIT_DIR = "kit"


def own_submissions(cycle: Cycle, submitter: str) -> dict[str, str]:
    """``name@version`` → bundle hash of every submission ``submitter`` uploaded, in order."""
    return {
        f"{e.payload['name']}@{e.payload['version']}": e.payload["bundle_hash"]
        for e in cycle.ledger.entries(SUBMISSION_EVENT)
        if e.payload.get("submitter") == submitter
    }


def _require_adaptation(cycle: Cycle) -> None:
    require_state(
        cycle, CycleState.adaptation, "adaptation kits and adapted uploads are open only then"
    )


def _own_pair(cycle: Cycle, submitter: str, submission: str, target: str) -> tuple[str, Target]:
    """The bundle hash of ``submitter``'s ``submission`` (name@version) and the committed
    ``target``; 404 for anything else."""
    bundle_hash = own_submissions(cycle, submitter).get(submission)
    targets = {t.id: t for t in cycle.targets()}
    if bundle_hash is None or target not in targets:
        raise ServiceError(
            f"no submission {shown(submission)} of yours with a target {shown(target)}",
            "pass a submission as name@version and a target of your pairs "
            "(GET /api/v1/adaptation lists them)",
            status=404,
            code="not_found",
        )
    if (bundle_hash, target) in cycle.adaptations():
        raise ServiceError(
            f"{shown(submission)} is already adapted to {target}",
            "an adaptation is recorded once",
            status=409,
            code="conflict",
        )
    return bundle_hash, targets[target]


def list_pairs(cycle: Cycle, submitter: str) -> list[dict[str, Any]]:
    """Every (own submission, committed target) pair and whether it is adapted."""
    _require_adaptation(cycle)
    done = cycle.adaptations()
    targets = [t.id for t in cycle.targets()]
    return [
        {"submission": name, "target": t, "adapted": (bundle_hash, t) in done}
        for name, bundle_hash in own_submissions(cycle, submitter).items()
        for t in targets
    ]


def _tar_gz(root: Path) -> bytes:
    """``root``'s files as a tar.gz with fixed times, owners and modes (same kit, same bytes)."""
    raw = io.BytesIO()
    with (
        gzip.GzipFile(fileobj=raw, mode="wb", mtime=0) as gz,
        tarfile.open(fileobj=gz, mode="w", format=tarfile.PAX_FORMAT) as tar,
    ):
        for path in sorted(p for p in root.rglob("*") if p.is_file()):
            data = path.read_bytes()
            info = tarfile.TarInfo(path.relative_to(root).as_posix())
            info.size, info.mode, info.mtime = len(data), 0o644, 0
            tar.addfile(info, io.BytesIO(data))
    return raw.getvalue()


def kit_archive(cycle: Cycle, submitter: str, submission: str, target: str) -> bytes:
    """The adaptation kit of ``submitter``'s ``submission`` for ``target``, as tar.gz bytes.

    Exports it as ``vwt adapt kit`` does (its access log kept for the import)."""
    _require_adaptation(cycle)
    _own_pair(cycle, submitter, submission, target)
    with tempfile.TemporaryDirectory(prefix="vwt-kit-") as tmp:
        out = Path(tmp) / _KIT_DIR
        try:
            export_pair_kit(cycle, submission, target, out)
        except AdaptError as e:
            raise _public(e, cycle.home) from None
        return _tar_gz(out)


def _public(e: AdaptError, home: Path) -> ServiceError:
    """``e`` as an HTTP error that names no path of the operator's machine."""
    message, hint = str(e).replace(str(home), "HOME"), e.hint or None
    if isinstance(e, KitNotExported):
        return ServiceError(
            message,
            "download the kit first: `vwt adapt kit --to URL --submission S --target T --out DIR`",
            status=409,
            code="wrong_state",
        )
    code = "bad_request" if isinstance(e, BudgetExceeded) else "invalid_bundle"
    return ServiceError(message, hint and hint.replace(str(home), "HOME"), status=400, code=code)


def import_upload(
    cycle: Cycle, submitter: str, submission: str, target: str, packed_path: Path, minutes: int
) -> dict[str, Any]:
    """Record the packed bundle at ``packed_path`` as ``submitter``'s adaptation of
    ``submission`` to ``target`` that took ``minutes``; the ``PairOutcome`` as JSON, without
    the leak verdict.

    The verdict (sealed task ids, overlaps with sealed requests and answers) waits for the
    release: shown now, an upload holding the sealed tasks regenerated under many guesses of
    the cycle seed would learn which guess is right."""
    _require_adaptation(cycle)
    _own_pair(cycle, submitter, submission, target)
    try:
        read_bundle_file(packed_path)
    except SubmissionError as e:
        where = shown(str(packed_path))
        raise ServiceError(
            str(e).replace(where, "the uploaded bundle"), e.hint, status=400, code="invalid_bundle"
        ) from None
    try:
        outcome = import_pair(cycle, submission, target, packed_path, minutes)
    except AdaptError as e:
        raise _public(e, cycle.home) from None
    return outcome.model_dump(mode="json") | {"leak": {}}


def _member_problem(member: tarfile.TarInfo) -> str | None:
    path = PurePosixPath(member.name)
    if not member.isfile() and not member.isdir():
        return "is not a regular file or directory (links and devices are refused)"
    if path.is_absolute() or ".." in path.parts or "\\" in member.name or not path.parts:
        return "is not a relative path inside the kit"
    return None


def extract_kit(archive: bytes, out: Path) -> list[str]:
    """Unpack a kit archive (untrusted) into the new directory ``out``; its file names.

    Every member is checked before anything is written: regular files and directories only,
    relative paths without '..', at most :data:`MAX_KIT_FILES` entries and
    :data:`MAX_KIT_BYTES` bytes unpacked. Raises ServiceError for a bad archive or an ``out``
    that exists and is not an empty directory."""
    if out.exists() and (not out.is_dir() or any(out.iterdir())):
        raise ServiceError(
            f"{shown(str(out))} exists and is not an empty directory", "pass a new --out directory"
        )
    files: dict[str, bytes] = {}
    total = members = 0
    try:
        with tarfile.open(fileobj=io.BytesIO(archive), mode="r:gz") as tar:
            for member in tar:
                members += 1
                problem = _member_problem(member)
                if problem is not None:
                    raise ServiceError(
                        f"the kit archive's entry {shown(member.name)} {problem}",
                        "the server sent an unsafe kit; nothing was written; tell the operator",
                        code="bad_response",
                    )
                total += member.size
                if total > MAX_KIT_BYTES or members > MAX_KIT_FILES:
                    raise ServiceError(
                        f"the kit archive holds over {MAX_KIT_FILES} entries or "
                        f"{MAX_KIT_BYTES:,} bytes",
                        "the server sent an oversized kit; nothing was written; tell the operator",
                        code="bad_response",
                    )
                if member.isdir():
                    continue
                extracted = tar.extractfile(member)
                assert extracted is not None  # a regular file
                name = PurePosixPath(member.name).as_posix()
                if name in files:
                    raise ServiceError(
                        f"the kit archive holds {shown(name)} twice",
                        "the server sent a malformed kit; nothing was written; tell the operator",
                        code="bad_response",
                    )
                files[name] = extracted.read()
    except (tarfile.TarError, EOFError, OSError) as e:
        raise ServiceError(
            f"the kit archive is not a readable tar.gz ({e})",
            "download it again; if it stays unreadable, tell the operator",
            code="bad_response",
        ) from None
    clash = sorted(set(files) & {str(p) for n in files for p in PurePosixPath(n).parents})
    if clash:
        raise ServiceError(
            f"the kit archive holds {shown(clash[0])} both as a file and as a directory",
            "the server sent a malformed kit; nothing was written; tell the operator",
            code="bad_response",
        )
    _write_whole(files, out)
    return sorted(files)


def _write_whole(files: dict[str, bytes], out: Path) -> None:
    """Write ``files`` to a temporary directory beside ``out``, then move it into place: a
    write that fails (a name too long for the file system, a full disk) leaves no part of
    the kit behind. The kit's directory is private to the user (0700)."""
    out.parent.mkdir(parents=True, exist_ok=True)
    partial = Path(tempfile.mkdtemp(prefix=f".{out.name[:64]}.partial-", dir=out.parent))
    try:
        for name, data in files.items():
            path = partial / name
            path.parent.mkdir(parents=True, exist_ok=True)
            path.write_bytes(data)
        if out.is_dir():
            out.rmdir()  # empty (checked before), so the rename below puts the kit there
        partial.rename(out)
    except OSError as e:
        shutil.rmtree(partial, ignore_errors=True)
        raise ServiceError(
            f"the kit could not be written to {shown(str(out))} ({e.strerror or e})",
            "the server sent a kit this file system cannot hold, or the disk is full; "
            "nothing was written; tell the operator if it persists",
            code="bad_response",
        ) from None

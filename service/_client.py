"""The submitter's client of the operator's service (sync httpx).

Every answer is untrusted: bodies are read up to a cap, JSON is parsed and validated before
it is returned, and a refused call raises ServiceError with the server's status, code,
message and hint (printable: control characters escaped). A refused connection or a timeout
raises ServiceError naming the URL.
"""

from __future__ import annotations

import json
import re
import tempfile
from pathlib import Path
from typing import Any, TypeVar
from urllib.parse import quote

import httpx
from pydantic import BaseModel, ValidationError

from adapt import PairOutcome
from conditions import ConditionsError, SignedCommitment, verify_commitment
from service._devkit import DevKit
from service._pull import ReleaseFile
from service._token import load_token
from service.errors import ServiceError
from submissions import Receipt, load_bundle, shown

MAX_JSON_BYTES = 32 << 20
"""Largest JSON answer read."""
MAX_ARCHIVE_BYTES = 64 << 20
"""Largest kit archive read."""
TIMEOUT_S = 60.0
"""Seconds a call may wait to connect, or between bytes."""
_HEX64 = re.compile(r"[0-9a-f]{64}")
_BAD = "bad_response"
M = TypeVar("M", bound=BaseModel)


class ServiceClient:
    """Calls to the vwt service at ``url``; ``token`` (else :func:`load_token`, read when a
    call needs it) authenticates the submitter's calls."""

    def __init__(self, url: str, token: str | None = None, *, timeout: float = TIMEOUT_S) -> None:
        """Check ``url`` (http or https, with a host); nothing is sent yet."""
        try:
            parsed = httpx.URL(url)
        except (httpx.InvalidURL, TypeError):
            parsed = None
        if parsed is None or parsed.scheme not in ("http", "https") or not parsed.host:
            raise ServiceError(
                f"{shown(url)} is not an http(s) URL",
                "pass the service's address, e.g. --to http://127.0.0.1:8470",
            )
        self.url = url.rstrip("/")
        self._token = token
        self._timeout = timeout
        self._client: httpx.Client | None = None

    def _http(self) -> httpx.Client:
        """One HTTP client for every call, so the connection is kept between them."""
        if self._client is None:
            self._client = httpx.Client(timeout=self._timeout, follow_redirects=False)
        return self._client

    def close(self) -> None:
        """Close the kept connection (a later call opens a new one)."""
        if self._client is not None:
            self._client.close()
            self._client = None

    def __enter__(self) -> ServiceClient:
        return self

    def __exit__(self, *exc: object) -> None:
        self.close()

    # -- transport -----------------------------------------------------------------------

    def _auth(self) -> dict[str, str]:
        if self._token is None:
            self._token = load_token()
        return {"Authorization": f"Bearer {self._token}"}

    def _call(
        self,
        method: str,
        path: str,
        *,
        auth: bool = False,
        content: bytes | None = None,
        params: dict[str, str] | None = None,
        archive: bool = False,
        expect: int = 200,
        limit: int | None = None,
    ) -> bytes:
        """The body of a ``method`` call to ``path`` (at most :data:`MAX_JSON_BYTES`, or
        :data:`MAX_ARCHIVE_BYTES` for an ``archive``, or ``limit``); ServiceError unless it
        answers ``expect``."""
        cap = limit if limit is not None else MAX_ARCHIVE_BYTES if archive else MAX_JSON_BYTES
        headers = self._auth() if auth else {}
        if content is not None:
            headers["Content-Type"] = "application/json"
        url = f"{self.url}{path}"
        try:
            with self._http().stream(
                method, url, headers=headers, content=content, params=params
            ) as r:
                body = bytearray()
                for chunk in r.iter_bytes():
                    body += chunk
                    if len(body) > cap:
                        raise ServiceError(
                            f"{shown(url)} answered with over {cap:,} bytes",
                            "check the URL points at the vwt service (`vwt serve`)",
                            status=r.status_code,
                            code=_BAD,
                        )
                status, retry = r.status_code, r.headers.get("Retry-After")
        except httpx.TimeoutException:
            raise ServiceError(
                f"{shown(url)} did not answer within {self._timeout:g} s",
                f"check that the vwt service at {shown(self.url)} is up (`vwt serve`), then "
                "try again",
                status=408,
                code="timeout",
            ) from None
        except httpx.TransportError as e:
            raise ServiceError(
                f"cannot reach {shown(self.url)} ({shown(str(e)) or type(e).__name__})",
                "check the URL, and that the operator's `vwt serve` runs there",
                status=503,
                code="unreachable",
            ) from None
        if status != expect:
            raise _refusal(status, bytes(body), url, retry)
        return bytes(body)

    def _json(self, what: str, body: bytes) -> Any:
        try:
            return json.loads(body)
        except (UnicodeDecodeError, json.JSONDecodeError):
            raise ServiceError(
                f"the service's {what} is not JSON",
                f"check that {shown(self.url)} is the vwt service (`vwt serve`)",
                code=_BAD,
            ) from None

    def _model(self, model: type[M], what: str, data: Any) -> M:
        try:
            return model.model_validate(data)
        except ValidationError as e:
            err = e.errors()[0]
            where = ".".join(str(p) for p in err["loc"]) or "(top level)"
            raise ServiceError(
                f"the service's {what} is not valid ({shown(where)}: {shown(err['msg'])})",
                "nothing was written; tell the service's operator",
                code=_BAD,
            ) from None

    def _field(self, what: str, body: bytes, key: str, kind: type) -> Any:
        data = self._json(what, body)
        value = data.get(key) if isinstance(data, dict) else None
        if not isinstance(value, kind):
            raise ServiceError(
                f"the service's {what} has no {key!r} {kind.__name__}",
                f"check that {shown(self.url)} is the vwt service (`vwt serve`)",
                code=_BAD,
            )
        return value

    # -- public --------------------------------------------------------------------------

    def cycle(self) -> dict[str, Any]:
        """The cycle's id, state, schedule, key and what is published."""
        data = self._json("cycle", self._call("GET", "/api/v1/cycle"))
        if not isinstance(data, dict) or not isinstance(data.get("cycle"), str):
            raise ServiceError(
                "the service's cycle answer names no cycle",
                f"check that {shown(self.url)} is the vwt service (`vwt serve`)",
                code=_BAD,
            )
        return data

    def commitment(self) -> bytes:
        """The bytes of the cycle's published commitment.json (verify them before use)."""
        return self._call("GET", "/api/v1/commitment")

    def verified_commitment(self) -> SignedCommitment:
        """The cycle's published commitment, its signature checked."""
        data = self.commitment()
        with tempfile.TemporaryDirectory(prefix="vwt-commitment-") as tmp:
            path = Path(tmp) / "commitment.json"
            path.write_bytes(data)
            try:
                return verify_commitment(path)
            except ConditionsError as e:
                raise ServiceError(
                    f"the commitment {shown(self.url)} serves does not verify: "
                    + str(e).replace(f"commitment {path}", "it"),
                    e.hint,
                    code=_BAD,
                ) from None

    def dev_kit(self) -> DevKit:
        """The dev kit, validated: public spec, dev tasks, tool definitions."""
        data = self._json("dev kit", self._call("GET", "/api/v1/dev-kit"))
        return self._model(DevKit, "dev kit", data)

    def release_files(self) -> list[ReleaseFile]:
        """The published release's files (path, size, SHA-256), once the cycle is released."""
        body = self._call("GET", "/api/v1/release/files")
        rows: list[Any] = self._field("release file list", body, "files", list)
        return [self._model(ReleaseFile, "release file list", row) for row in rows]

    def release_file(self, path: str, max_bytes: int) -> bytes:
        """The bytes of the published release file at ``path`` (at most ``max_bytes``)."""
        return self._call("GET", f"/release/{quote(path, safe='/')}", limit=max_bytes)

    # -- submitter -----------------------------------------------------------------------

    def upload(self, bundle_path: Path) -> Receipt:
        """Validate the bundle here, upload its canonical packed bytes; the signed receipt
        (checked to name this bundle; verify it against the commitment)."""
        bundle = load_bundle(bundle_path)
        body = self._call(
            "POST", "/api/v1/submissions", auth=True, content=bundle.canonical(), expect=201
        )
        receipt = self._model(Receipt, "receipt", self._field("receipt", body, "receipt", dict))
        m, s = bundle.manifest, receipt.receipt
        if (s.bundle_hash, s.name, s.version) != (bundle.hash, m.name, m.version):
            raise ServiceError(
                f"the service's receipt names {shown(s.name)}@{shown(s.version)} (bundle "
                f"{s.bundle_hash}), not the bundle uploaded ({bundle.hash})",
                "keep this answer and tell the service's operator",
                code=_BAD,
            )
        return receipt

    def submissions(self) -> list[dict[str, Any]]:
        """Your submissions: name, version, bundle_hash, received_at, late."""
        body = self._call("GET", "/api/v1/submissions", auth=True)
        rows: list[Any] = self._field("submission list", body, "submissions", list)
        keys = {"name", "version", "bundle_hash", "received_at", "late"}
        if not all(isinstance(r, dict) and keys <= set(r) for r in rows):
            raise ServiceError(
                "the service's submission list holds a malformed entry",
                "tell the service's operator",
                code=_BAD,
            )
        return rows

    def receipt(self, bundle_hash: str) -> Receipt:
        """The receipt the service holds for your bundle ``bundle_hash``."""
        if not _HEX64.fullmatch(bundle_hash):
            raise ServiceError(
                f"{shown(bundle_hash)} is not a bundle hash (64 lower-case hex digits)",
                "pass the hash `vwt submissions pack` printed",
            )
        body = self._call("GET", f"/api/v1/submissions/{bundle_hash}/receipt", auth=True)
        return self._model(Receipt, "receipt", self._json("receipt", body))

    def adaptation_pairs(self) -> list[dict[str, Any]]:
        """Your (submission, target) pairs and whether each is adapted (adaptation phase)."""
        body = self._call("GET", "/api/v1/adaptation", auth=True)
        rows: list[Any] = self._field("adaptation pairs", body, "pairs", list)
        if not all(
            isinstance(r, dict) and {"submission", "target", "adapted"} <= set(r) for r in rows
        ):
            raise ServiceError(
                "the service's adaptation pairs hold a malformed entry",
                "tell the service's operator",
                code=_BAD,
            )
        return rows

    def _pair_path(self, submission: str, target: str) -> str:
        return f"/api/v1/adaptation/{quote(submission, safe='@')}/{quote(target, safe='')}"

    def kit(self, submission: str, target: str) -> bytes:
        """The tar.gz of your adaptation kit for ``submission`` (name@version) and ``target``
        (unpack it with ``extract_kit``)."""
        path = self._pair_path(submission, target) + "/kit"
        return self._call("GET", path, auth=True, archive=True)

    def upload_adapted(self, submission: str, target: str, path: Path, minutes: int) -> PairOutcome:
        """Upload the bundle at ``path`` (validated here) as your adaptation of ``submission``
        to ``target`` that took ``minutes``; what the service recorded."""
        bundle = load_bundle(path)
        body = self._call(
            "POST",
            self._pair_path(submission, target),
            auth=True,
            content=bundle.canonical(),
            params={"minutes": str(minutes)},
            expect=201,
        )
        data = self._field("adaptation answer", body, "adaptation", dict)
        return self._model(PairOutcome, "adaptation answer", data)


def _refusal(status: int, body: bytes, url: str, retry: str | None) -> ServiceError:
    """The ServiceError of a refused call: the server's uniform error body, printable."""
    try:
        error = json.loads(body)["error"]
        message, code, hint = error["message"], error["code"], error.get("hint")
        if not (isinstance(message, str) and isinstance(code, str)):
            raise TypeError
    except (ValueError, KeyError, TypeError):
        return ServiceError(
            f"{shown(url)} answered HTTP {status} without a vwt error body",
            "check that the URL is the vwt service's (`vwt serve`)",
            status=status,
            code=_BAD,
        )
    hint = shown(hint) if isinstance(hint, str) and hint else None
    if retry is not None and retry.isdigit():
        hint = f"{hint}; " if hint else ""
        hint += f"retry after {int(retry)} s"
    return ServiceError(shown(message), hint, status=status, code=shown(code))

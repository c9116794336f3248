"""Wire formats shared by commitments and reveals: strict types, canonical JSON, safe file I/O."""

from __future__ import annotations

import base64
import binascii
import hashlib
import json
from pathlib import Path
from typing import Annotated, Any, Literal, TypeVar

import rfc8785
from pydantic import AfterValidator, BaseModel, BeforeValidator, ConfigDict, ValidationError

from conditions.errors import ConditionsError
from drift import capped_bytes, deeper_than, write_atomic

M = TypeVar("M", bound=BaseModel)


def canonical(obj: Any) -> bytes:
    """RFC 8785 canonical JSON of a JSON-compatible value."""
    return rfc8785.dumps(obj)


def sha256_hex(data: bytes) -> str:
    """Lower-case hex SHA-256 of ``data``."""
    return hashlib.sha256(data).hexdigest()


def _exact_int(n: int) -> BeforeValidator:
    # Literal[n] would also take n.0 and True, which canonicalise differently or not at all.
    def check(value: Any) -> Any:
        if type(value) is not int:
            raise ValueError(f"must be the integer {n}")
        return value

    return BeforeValidator(check)


def _lower_hex_32(value: str) -> str:
    if len(value) != 64 or any(c not in "0123456789abcdef" for c in value):
        raise ValueError("must be 64 lower-case hex digits (32 bytes)")
    return value


def _canonical_b64(n_bytes: int) -> AfterValidator:
    # Several base64 spellings decode to the same bytes; only the canonical one is accepted,
    # so that no edit to the text can leave the decoded value (and the verdict) unchanged.
    def check(value: str) -> str:
        try:
            raw = base64.b64decode(value, validate=True)
        except (binascii.Error, ValueError):
            raise ValueError("must be base64") from None
        if len(raw) != n_bytes or base64.b64encode(raw).decode() != value:
            raise ValueError(f"must be the canonical base64 of {n_bytes} bytes")
        return value

    return AfterValidator(check)


V1 = Annotated[Literal[1], _exact_int(1)]
"""Format version 1, as an exact JSON integer."""
V2 = Annotated[Literal[2], _exact_int(2)]
"""Format version 2, as an exact JSON integer."""
V3 = Annotated[Literal[3], _exact_int(3)]
"""Format version 3, as an exact JSON integer."""
Hex32 = Annotated[str, AfterValidator(_lower_hex_32)]
"""A 32-byte value (hash, salt) as 64 lower-case hex digits."""
PublicKeyB64 = Annotated[str, _canonical_b64(32)]
"""A raw Ed25519 public key, canonical base64."""
SignatureB64 = Annotated[str, _canonical_b64(64)]
"""An Ed25519 signature, canonical base64."""


class Wire(BaseModel):
    """Base of published, signed data: immutable, strict, no unknown fields."""

    model_config = ConfigDict(frozen=True, extra="forbid", strict=True)

    def canonical(self) -> bytes:
        """RFC 8785 canonical JSON of this object."""
        return canonical(self.model_dump(mode="json"))


def _reject_duplicates(pairs: list[tuple[str, Any]]) -> dict[str, Any]:
    out: dict[str, Any] = {}
    for key, value in pairs:
        if key in out:
            raise ValueError(f"duplicate key {key!r}")
        out[key] = value
    return out


def _reject_constant(name: str) -> Any:
    raise ValueError(f"{name} is not JSON")


MAX_FILE_BYTES = 64 * 1024 * 1024
"""Largest operator or publish file read (commitment, reveal, targets, records)."""

MAX_DEPTH = 64
"""Deepest nesting of arrays and objects accepted in a parsed file."""


def read_capped(path: Path, what: str, max_bytes: int = MAX_FILE_BYTES) -> bytes:
    """The bytes of the regular file ``path``, at most ``max_bytes``, or a ConditionsError.

    Directories, devices (``/dev/zero``) and FIFOs are refused before reading; a file that is
    larger than ``max_bytes`` is refused without reading more than that.
    """
    data, problem = capped_bytes(path, max_bytes)
    if problem is not None:
        hint = "check the path" if problem == "does not exist" else f"pass the {what} file itself"
        raise ConditionsError(f"{what} {path} {problem}", hint)
    return data


def check_depth(
    data: Any,
    what: str,
    hint: str = "pass a file of the documented form",
    max_depth: int = MAX_DEPTH,
) -> Any:
    """``data`` unchanged, or a ConditionsError if its arrays/objects nest deeper than allowed."""
    if deeper_than(data, max_depth):
        raise ConditionsError(f"{what} nests deeper than {max_depth} levels", hint)
    return data


def loads_json(text: str, where: str, hint: str) -> Any:
    """Parse JSON strictly (no duplicate keys, no NaN, bounded nesting) or raise ConditionsError.

    ``where`` names the input in the message ("reveal x.json"), ``hint`` says what to do.
    """
    try:
        data = json.loads(
            text, object_pairs_hook=_reject_duplicates, parse_constant=_reject_constant
        )
    except json.JSONDecodeError as e:
        ends_early = e.pos >= len(text.rstrip()) or e.msg.startswith("Unterminated string")
        truncated = " (it looks truncated)" if text.strip() and ends_early else ""
        raise ConditionsError(f"{where} is not valid JSON{truncated}: {e}", hint) from None
    except RecursionError:
        raise ConditionsError(f"{where} nests deeper than {MAX_DEPTH} levels", hint) from None
    except ValueError as e:
        raise ConditionsError(f"{where} is not valid JSON: {e}", hint) from None
    return check_depth(data, where, hint)


def read_json(path: Path, what: str, max_bytes: int = MAX_FILE_BYTES) -> Any:
    """Parse a JSON file strictly (no duplicate keys, no NaN), or raise a ConditionsError.

    The file must be a regular file of at most ``max_bytes`` bytes, nesting at most
    :data:`MAX_DEPTH` levels.
    """
    raw = read_capped(path, what, max_bytes)
    try:
        text = raw.decode("utf-8")
    except UnicodeDecodeError:
        raise ConditionsError(f"{what} {path} is not UTF-8 text", "pass the JSON file") from None
    return loads_json(text, f"{what} {path}", "pass the file exactly as it was published")


def describe_errors(error: ValidationError, limit: int = 3) -> str:
    """The first few problems of a pydantic validation error, one line."""
    parts = []
    for item in error.errors()[:limit]:
        where = ".".join(str(p) for p in item["loc"]) or "(top level)"
        parts.append(f"{where}: {item['msg']}")
    more = len(error.errors()) - limit
    return "; ".join(parts) + (f"; and {more} more" if more > 0 else "")


def parse(model: type[M], data: Any, what: str) -> M:
    """Validate ``data`` as ``model`` or raise a ConditionsError naming the bad fields."""
    try:
        return model.model_validate(data)
    except ValidationError as e:
        raise ConditionsError(
            f"{what} is malformed: {describe_errors(e)}",
            "pass the file exactly as it was published",
        ) from None


def write_json(path: Path, model: BaseModel, *, private: bool = False) -> None:
    """Write a model as indented JSON atomically; ``private`` files get mode 0600."""
    path.parent.mkdir(parents=True, exist_ok=True)
    data = (model.model_dump_json(indent=2) + "\n").encode()
    write_atomic(path, data, 0o600 if private else 0o644)

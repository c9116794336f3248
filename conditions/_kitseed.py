"""The kit secret: where every seed of something handed to submitters comes from.

An adaptation kit (automatic, exported for a human, or downloaded from the service) serves
tasks of the ``adapt`` split. Drawn from the cycle seed, a served task's ``seed`` field (and its
content) would let anyone test guesses of that seed offline, and an operator's seed may be
small; with it every sealed task and its reference answer can be regenerated. So the seeds of
anything a submitter sees come from a 256-bit random secret, written 0600 in the operator store
at ``vwt cycle init``, that the cycle seed does not determine and that nothing published lets
anyone test a guess against: recovering it is a brute force over 2**256.
"""

from __future__ import annotations

import contextlib
import hashlib
import hmac
import os
import secrets
from pathlib import Path

from conditions.errors import ConditionsError

KIT_SECRET_FILE = "kit.secret"
"""Name of the kit secret under the cycle's operator/ directory."""
_BYTES = 32
_DOMAIN = b"vwt/kit-seed"
_RESTORE = "restore operator/kit.secret from a backup of the cycle home"


def create_kit_secret(path: Path, secret: bytes | None = None) -> bytes:
    """The kit secret at ``path``, created (0600, 32 random bytes as hex, or ``secret``) if
    absent.

    Safe against a concurrent creator: the new secret is written to a private temporary file
    and linked into place, so whoever links first wins and every caller reads the same secret.
    """
    if secret is not None and len(secret) != _BYTES:
        raise ValueError(f"a kit secret is {_BYTES} bytes")
    if not path.exists():
        tmp = path.with_name(f".{path.name}.{secrets.token_hex(8)}")
        fd = os.open(tmp, os.O_CREAT | os.O_EXCL | os.O_WRONLY, 0o600)
        try:
            os.fchmod(fd, 0o600)
            os.write(fd, (secret or secrets.token_bytes(_BYTES)).hex().encode() + b"\n")
            os.fsync(fd)
        finally:
            os.close(fd)
        try:
            with contextlib.suppress(FileExistsError):
                os.link(tmp, path)
        finally:
            tmp.unlink()
    return read_kit_secret(path)


def read_kit_secret(path: Path) -> bytes:
    """The kit secret at ``path`` (ConditionsError if missing, unreadable or not 32 bytes)."""
    try:
        secret = bytes.fromhex(path.read_text(encoding="ascii").strip())
    except FileNotFoundError:
        raise ConditionsError(f"the kit secret {path} is missing", _RESTORE) from None
    except (OSError, UnicodeDecodeError, ValueError):
        raise ConditionsError(f"the kit secret {path} is unreadable or altered", _RESTORE) from None
    if len(secret) != _BYTES:
        raise ConditionsError(f"the kit secret {path} is altered (not {_BYTES} bytes)", _RESTORE)
    return secret


def kit_seed(secret: bytes, cycle: str, purpose: str) -> int:
    """The 256-bit seed of ``purpose`` (e.g. the ``adapt`` split) in ``cycle``: an HMAC-SHA256
    of the cycle id and the purpose under the kit ``secret``."""
    message = b"\x1f".join([_DOMAIN, cycle.encode(), purpose.encode()])
    return int.from_bytes(hmac.new(secret, message, hashlib.sha256).digest(), "big")

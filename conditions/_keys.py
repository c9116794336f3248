"""Operator signing keys: Ed25519, stored as PKCS#8 PEM with mode 0600, optionally encrypted."""

from __future__ import annotations

import base64
import binascii
import hashlib
import os
import stat
from pathlib import Path

from cryptography.exceptions import InvalidSignature, UnsupportedAlgorithm
from cryptography.hazmat.primitives import serialization
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey, Ed25519PublicKey

from conditions.errors import ConditionsError
from drift import capped_bytes

PASSPHRASE_ENV = "VWT_KEY_PASSPHRASE"
"""Environment variable read for the passphrase of an encrypted operator key."""

MAX_KEY_BYTES = 64 * 1024
"""Largest file read as an operator key (a PEM Ed25519 key is a few hundred bytes)."""


def create_key(path: Path, passphrase: str | None = None) -> Ed25519PrivateKey:
    """Generate a key and write it to ``path`` (0600, never overwriting); encrypt if asked."""
    key = Ed25519PrivateKey.generate()
    encryption: serialization.KeySerializationEncryption = (
        serialization.BestAvailableEncryption(passphrase.encode())
        if passphrase
        else serialization.NoEncryption()
    )
    pem = key.private_bytes(
        serialization.Encoding.PEM, serialization.PrivateFormat.PKCS8, encryption
    )
    try:
        path.parent.mkdir(parents=True, exist_ok=True)
        fd = os.open(path, os.O_WRONLY | os.O_CREAT | os.O_EXCL, 0o600)
    except PermissionError:
        raise ConditionsError(
            f"cannot create operator key {path}: permission denied",
            "pass a --key path in a directory you can write",
        ) from None
    except (FileExistsError, NotADirectoryError):
        if path.parent.is_dir():  # the key file itself exists
            raise ConditionsError(
                f"a key already exists at {path}", "use it or pick another path"
            ) from None
        raise ConditionsError(
            f"cannot create operator key {path}: a parent is not a directory",
            "pass a --key path in a directory",
        ) from None
    with os.fdopen(fd, "wb") as f:
        f.write(pem)
    return key


def load_key(path: Path, passphrase: str | None = None) -> Ed25519PrivateKey:
    """Read an operator key, refusing one that others can read or a wrong passphrase.

    The path must be a regular file of at most :data:`MAX_KEY_BYTES` bytes.
    """
    pem, problem = capped_bytes(path, MAX_KEY_BYTES)
    if problem is not None:
        hint = "check --key" if problem == "does not exist" else "pass the PEM key file as --key"
        raise ConditionsError(f"operator key {path} {problem}", hint)
    mode = path.stat().st_mode
    if mode & (stat.S_IRWXG | stat.S_IRWXO):
        raise ConditionsError(
            f"operator key {path} is readable by other users (mode {stat.S_IMODE(mode):o})",
            f"run: chmod 600 {path}",
        )
    if passphrase is None:
        passphrase = os.environ.get(PASSPHRASE_ENV)
    try:
        key = serialization.load_pem_private_key(pem, passphrase.encode() if passphrase else None)
    except TypeError:
        raise ConditionsError(
            f"operator key {path} is passphrase-encrypted and no passphrase was given",
            f"set {PASSPHRASE_ENV} to the key's passphrase",
        ) from None
    except (ValueError, UnsupportedAlgorithm):
        raise ConditionsError(
            f"cannot decrypt or parse operator key {path}",
            f"check the passphrase in {PASSPHRASE_ENV} and that the file is an Ed25519 PEM key",
        ) from None
    if not isinstance(key, Ed25519PrivateKey):
        raise ConditionsError(f"operator key {path} is not an Ed25519 key", "use an Ed25519 key")
    return key


def public_key_b64(key: Ed25519PrivateKey) -> str:
    """The raw 32-byte public key of ``key``, base64."""
    raw = key.public_key().public_bytes(serialization.Encoding.Raw, serialization.PublicFormat.Raw)
    return b64(raw)


def fingerprint(public_key: str) -> str:
    """A short, comparable name of a base64 public key: 'sha256:' and 32 hex digits."""
    return "sha256:" + hashlib.sha256(base64.b64decode(public_key)).hexdigest()[:32]


def b64(data: bytes) -> str:
    """Standard base64 text of ``data``."""
    return base64.b64encode(data).decode()


def verify_signature(public_key_b64: str, data: bytes, signature: bytes | str) -> bool:
    """Whether ``signature`` (raw bytes or base64) is a valid Ed25519 signature of ``data``."""
    try:
        raw_key = base64.b64decode(public_key_b64, validate=True)
        raw_sig = (
            base64.b64decode(signature, validate=True) if isinstance(signature, str) else signature
        )
        Ed25519PublicKey.from_public_bytes(raw_key).verify(raw_sig, data)
    except (InvalidSignature, ValueError, binascii.Error):
        return False
    return True

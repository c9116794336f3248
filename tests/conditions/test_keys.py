"""Operator keys: written 0600, optionally encrypted, refused when exposed; signatures."""

from __future__ import annotations

import base64
import os
from collections.abc import Callable
from pathlib import Path

import pytest

from conditions import PASSPHRASE_ENV, ConditionsError, fingerprint, verify_signature
from conditions._keys import create_key, load_key, public_key_b64


def test_new_key_is_private_and_loads_back(tmp_path: Path) -> None:
    key = create_key(tmp_path / "k.pem")
    assert (tmp_path / "k.pem").stat().st_mode & 0o777 == 0o600
    assert public_key_b64(load_key(tmp_path / "k.pem")) == public_key_b64(key)


def test_existing_key_is_never_overwritten(tmp_path: Path) -> None:
    create_key(tmp_path / "k.pem")
    before = (tmp_path / "k.pem").read_bytes()
    with pytest.raises(ConditionsError, match="already exists"):
        create_key(tmp_path / "k.pem")
    assert (tmp_path / "k.pem").read_bytes() == before


def test_encrypted_key_needs_its_passphrase(
    tmp_path: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PASSPHRASE_ENV, raising=False)
    key = create_key(tmp_path / "k.pem", "correct horse")
    assert b"ENCRYPTED" in (tmp_path / "k.pem").read_bytes()
    with pytest.raises(ConditionsError, match="passphrase-encrypted") as err:
        load_key(tmp_path / "k.pem")
    assert err.value.hint and PASSPHRASE_ENV in err.value.hint
    with pytest.raises(ConditionsError, match="cannot decrypt"):
        load_key(tmp_path / "k.pem", "wrong")
    assert public_key_b64(load_key(tmp_path / "k.pem", "correct horse")) == public_key_b64(key)
    monkeypatch.setenv(PASSPHRASE_ENV, "correct horse")
    assert public_key_b64(load_key(tmp_path / "k.pem")) == public_key_b64(key)


def test_key_readable_by_others_is_refused(tmp_path: Path) -> None:
    create_key(tmp_path / "k.pem")
    os.chmod(tmp_path / "k.pem", 0o644)
    with pytest.raises(ConditionsError, match="readable by other users") as err:
        load_key(tmp_path / "k.pem")
    assert err.value.hint == f"run: chmod 600 {tmp_path / 'k.pem'}"


def test_missing_and_non_key_files_are_user_errors(tmp_path: Path) -> None:
    with pytest.raises(ConditionsError, match="does not exist"):
        load_key(tmp_path / "none.pem")
    junk = tmp_path / "junk.pem"
    junk.write_text("not a key")
    junk.chmod(0o600)
    with pytest.raises(ConditionsError, match="cannot decrypt or parse"):
        load_key(junk)


def test_signatures_verify_only_for_their_key_and_data(tmp_path: Path) -> None:
    key, other = create_key(tmp_path / "a.pem"), create_key(tmp_path / "b.pem")
    sig = key.sign(b"data")
    pub = public_key_b64(key)
    assert verify_signature(pub, b"data", sig)
    assert verify_signature(pub, b"data", base64.b64encode(sig).decode())
    assert not verify_signature(pub, b"datA", sig)
    assert not verify_signature(public_key_b64(other), b"data", sig)
    assert not verify_signature(pub, b"data", sig[:-1] + bytes([sig[-1] ^ 1]))
    assert not verify_signature("not base64!", b"data", sig)
    assert not verify_signature(base64.b64encode(b"short").decode(), b"data", sig)


def test_fingerprints_name_keys(tmp_path: Path) -> None:
    a = public_key_b64(create_key(tmp_path / "a.pem"))
    b = public_key_b64(create_key(tmp_path / "b.pem"))
    assert fingerprint(a).startswith("sha256:") and len(fingerprint(a)) == 7 + 32
    assert fingerprint(a) == fingerprint(a) != fingerprint(b)


@pytest.mark.parametrize(
    ("make", "problem"),
    [
        (lambda d: d, "is a directory"),
        (lambda d: Path("/dev/zero"), "is not a regular file"),
        (lambda d: Path("/dev/null"), "is not a regular file"),
    ],
    ids=["directory", "dev-zero", "dev-null"],
)
def test_non_files_as_keys_are_refused_without_reading(
    tmp_path: Path, make: Callable[[Path], Path], problem: str
) -> None:
    path = make(tmp_path)
    with pytest.raises(ConditionsError) as err:
        load_key(path)
    assert str(err.value) == f"operator key {path} {problem}"
    assert err.value.hint == "pass the PEM key file as --key"


def test_a_fifo_as_key_is_refused_without_waiting_for_a_writer(tmp_path: Path) -> None:
    fifo = tmp_path / "k.pem"
    os.mkfifo(fifo, 0o600)
    with pytest.raises(ConditionsError, match="is not a regular file"):
        load_key(fifo)


def test_a_huge_file_as_key_is_refused_after_reading_at_most_the_cap(tmp_path: Path) -> None:
    from conditions._keys import MAX_KEY_BYTES

    big = tmp_path / "big.pem"
    with big.open("wb") as f:
        f.truncate(1 << 30)  # sparse: 1 GiB, read only up to the cap
    big.chmod(0o600)
    with pytest.raises(ConditionsError, match=f"larger than {MAX_KEY_BYTES:,} bytes"):
        load_key(big)


def test_a_key_cannot_be_created_below_a_file(tmp_path: Path) -> None:
    (tmp_path / "file").write_text("x")
    with pytest.raises(ConditionsError, match="a parent is not a directory"):
        create_key(tmp_path / "file" / "k.pem")

"""The submitter's token on the client side: from the environment, or a private file."""

from __future__ import annotations

import os
import re
import stat
from pathlib import Path

from service.errors import ServiceError

TOKEN_ENV = "VWT_TOKEN"
"""Environment variable holding the token itself."""
TOKEN_FILE_ENV = "VWT_TOKEN_FILE"
"""Environment variable naming the token file, instead of the default one."""
DEFAULT_TOKEN_FILE = Path("~/.config/vwt/token")
"""Where the token is kept when neither variable is set (mode 0600)."""
_TOKEN = re.compile(r"vwt_[A-Za-z0-9_-]{43}")
_MAX_FILE_BYTES = 1024


def token_path() -> Path:
    """The token file: ``$VWT_TOKEN_FILE``, else ``~/.config/vwt/token``."""
    named = os.environ.get(TOKEN_FILE_ENV)
    return Path(named).expanduser() if named else DEFAULT_TOKEN_FILE.expanduser()


def _checked(token: str, where: str) -> str:
    token = token.strip()
    if not _TOKEN.fullmatch(token):
        raise ServiceError(
            f"the token in {where} is not a vwt token (vwt_ and 43 letters, digits, - or _)",
            "paste the token exactly as `vwt submitters add` printed it",
            status=401,
            code="unauthorized",
        )
    return token


def load_token() -> str:
    """The submitter's token: ``$VWT_TOKEN``, else the token file, which must be 0600.

    Raises ServiceError (with the chmod that fixes it) for a file other users can read or
    write, and (with who to ask) when there is no token at all.
    """
    if value := os.environ.get(TOKEN_ENV):
        return _checked(value, f"${TOKEN_ENV}")
    path = token_path()
    try:
        mode = path.stat().st_mode
    except FileNotFoundError:
        raise ServiceError(
            f"no token: ${TOKEN_ENV} is not set and {path} does not exist",
            f"ask the cycle's operator for a submitter token (`vwt submitters add`), then "
            f"put it in {path} (chmod 600) or in ${TOKEN_ENV}",
            status=401,
            code="unauthorized",
        ) from None
    if not stat.S_ISREG(mode):
        raise ServiceError(
            f"the token file {path} is not a regular file",
            f"put the token in the file {path}, or set ${TOKEN_FILE_ENV} to the file holding it",
            status=401,
            code="unauthorized",
        )
    if mode & 0o077:
        raise ServiceError(
            f"the token file {path} is readable or writable by other users "
            f"(mode {mode & 0o777:04o})",
            f"make it private: chmod 600 {path}",
            status=401,
            code="unauthorized",
        )
    with path.open("rb") as f:
        raw = f.read(_MAX_FILE_BYTES + 1)
    if len(raw) > _MAX_FILE_BYTES:
        raise ServiceError(
            f"the token file {path} is too large to hold a token",
            "it should hold only the token",
            status=401,
            code="unauthorized",
        )
    return _checked(raw.decode("utf-8", "replace"), str(path))

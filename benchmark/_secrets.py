"""Secrets kept out of call records and traces: the values of environment variables named like
a key (``OPENAI_API_KEY``, ``HF_TOKEN``, ``DB_PASSWORD``, …) and of an endpoint's key variable,
wherever they appear in what is stored."""

from __future__ import annotations

import json
import os
import re
from collections.abc import Iterable, Mapping
from typing import Any

SECRET_NAME = re.compile(r"KEY|TOKEN|SECRET|PASSWORD|PASSWD|PASSPHRASE|CREDENTIAL|AUTH", re.I)
"""An environment variable whose name matches holds a secret."""
MIN_SECRET_CHARS = 8
"""Shorter values are not treated as secrets: a flag such as ``1`` or the ``no-key`` placeholder
would otherwise be cut out of every message that happens to contain it."""
REDACTED = "[redacted]"
"""What a secret is replaced with."""


def secret_values(
    environ: Mapping[str, str] | None = None, extra: Iterable[str | None] = ()
) -> tuple[str, ...]:
    """The secrets to scrub: values of variables in ``environ`` (default: this process's)
    whose names look like a key, and ``extra`` values (an endpoint's key), at least
    ``MIN_SECRET_CHARS`` long, longest first (so a secret containing another goes whole)."""
    env = os.environ if environ is None else environ
    found = {v for name, v in env.items() if SECRET_NAME.search(name)}
    found |= {v for v in extra if v}
    return tuple(sorted((v for v in found if len(v) >= MIN_SECRET_CHARS), key=lambda v: -len(v)))


def needles(secrets: tuple[str, ...]) -> tuple[bytes, ...]:
    """The UTF-8 forms in which ``secrets`` can appear in JSON text: as is and JSON-escaped."""
    forms = {s.encode() for s in secrets}
    forms |= {json.dumps(s, ensure_ascii=False)[1:-1].encode() for s in secrets}
    return tuple(forms)


def mentions(text: str, secrets: tuple[str, ...]) -> bool:
    """Whether ``text`` (JSON text or plain) contains a secret, as is or JSON-escaped."""
    data = text.encode()
    return any(n in data for n in needles(secrets))


def scrub(value: Any, secrets: tuple[str, ...]) -> Any:
    """A copy of ``value`` (JSON-like: dicts, lists, strings, numbers) with every occurrence
    of a secret in any string, keys included, replaced by ``REDACTED``."""
    if not secrets:
        return value
    if isinstance(value, str):
        for secret in secrets:
            if secret in value:
                value = value.replace(secret, REDACTED)
        return value
    if isinstance(value, dict):
        return {scrub(k, secrets): scrub(v, secrets) for k, v in value.items()}
    if isinstance(value, list | tuple):
        return [scrub(v, secrets) for v in value]
    return value

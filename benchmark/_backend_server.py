"""JSON-lines server around a family backend. Standard library only: runs inside sandboxes.

Usage: ``python3 _backend_server.py BACKEND_FILE``. Each request line is a JSON object
``{"id", "op", "session", ...}`` with op ``reset`` (``state``), ``call`` (``tool``, ``args``),
``dump`` or ``close``; each response line is ``{"id", "ok", "result"}`` or
``{"id", "ok": false, "error"}``. Sessions keep trials of one batch apart.

Modules next to this file (``_sandbox_exec.py``, mounted beside it in a sandbox) are
importable by the backend, also when the interpreter runs isolated (``-I``).
"""

from __future__ import annotations

import importlib.util
import json
import os
import sys
from typing import Any


def _load_backend_class(path: str) -> Any:
    here = os.path.dirname(os.path.abspath(__file__))
    if here not in sys.path:
        sys.path.append(here)
    spec = importlib.util.spec_from_file_location("vwt_family_backend", path)
    if spec is None or spec.loader is None:
        raise SystemExit(f"cannot load backend from {path}")
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module.Backend, module.BackendError


def _handle(req: dict[str, Any], sessions: dict[str, Any], backend_cls: Any) -> Any:
    op, session = req.get("op"), str(req.get("session"))
    if op == "reset":
        sessions[session] = backend_cls(req["state"])
        return None
    if session not in sessions:
        raise KeyError(f"no session {session!r}")
    if op == "call":
        return sessions[session].call(req["tool"], req.get("args") or {})
    if op == "dump":
        return sessions[session].dump()
    if op == "close":
        del sessions[session]
        return None
    raise ValueError(f"unknown op {op!r}")


def serve(backend_file: str) -> None:
    """Answer requests from stdin until it closes."""
    backend_cls, backend_error = _load_backend_class(backend_file)
    sessions: dict[str, Any] = {}
    for line in sys.stdin:
        if not line.strip():
            continue
        req = json.loads(line)
        try:
            result = _handle(req, sessions, backend_cls)
            out = {"id": req.get("id"), "ok": True, "result": result}
        except (backend_error, KeyError, TypeError, ValueError) as e:
            out = {"id": req.get("id"), "ok": False, "error": str(e).strip("'\"")}
        sys.stdout.write(json.dumps(out) + "\n")
        sys.stdout.flush()


if __name__ == "__main__":
    serve(sys.argv[1])

"""Public routes, no token: the cycle's schedule and state, its published files, the dev kit.

Nothing here reads the operator's private files beyond the cycle record that ``Cycle.open``
checks: the targets, the commitment's opening and the trial records stay on the server.
"""

from __future__ import annotations

from pathlib import Path
from typing import Any

from starlette.concurrency import run_in_threadpool
from starlette.requests import Request
from starlette.responses import FileResponse, JSONResponse, Response
from starlette.routing import Route

from conditions import Cycle, CycleState
from service._accounts import Account
from service._http import Service, get
from service._pull import file_entry, release_names
from service.errors import ServiceError

LINKS = {
    "cycle": "/api/v1/cycle",
    "commitment": "/api/v1/commitment",
    "reveal": "/api/v1/reveal",
    "dev_kit": "/api/v1/dev-kit",
    "release": "/release/release.json",
    "report": "/release/report.html",
    "submissions": "/api/v1/submissions",
}
"""Where the index points to."""
_REVEALED = (CycleState.revealed, CycleState.released)
"""States in which the reveal is public."""


def _not_found(what: str, hint: str) -> ServiceError:
    return ServiceError(what, hint, status=404, code="not_found")


async def index(request: Request, service: Service, account: Account | None) -> Response:
    """The service, its cycle and state, and where to go from here."""

    def read() -> dict[str, Any]:
        cycle = service.cycle()
        return {"service": "vwt", "cycle": cycle.id, "state": cycle.state.value, "links": LINKS}

    return JSONResponse(await run_in_threadpool(read))


def _cycle_info(cycle: Cycle) -> dict[str, Any]:
    state = cycle.state
    following = state.next()
    public = cycle.paths.public
    return {
        "cycle": cycle.id,
        "state": state.value,
        "opens_at": cycle.spec.opens_at,
        "closes_at": cycle.spec.closes_at,
        "public_key": cycle.public_key_b64,
        "fingerprint": cycle.fingerprint,
        "next": following.value if following else None,
        "history": [{"state": e.payload["to"], "at": e.ts} for e in cycle.history()],
        "published": {
            "commitment": state != CycleState.draft and cycle.paths.commitment.is_file(),
            "reveal": state in _REVEALED and cycle.paths.reveal.is_file(),
            "release": state == CycleState.released and (public / "release.json").is_file(),
        },
    }


async def cycle_info(request: Request, service: Service, account: Account | None) -> Response:
    """The cycle's schedule, state, key, history and what is published."""
    info = await run_in_threadpool(lambda: _cycle_info(service.cycle()))
    return JSONResponse(info)


def _published(cycle: Cycle, path: Path, *, public: bool, what: str, when: str) -> bytes:
    if not public or not path.is_file():
        raise _not_found(f"cycle {cycle.id} has not published its {what} yet", when)
    return path.read_bytes()


async def commitment(request: Request, service: Service, account: Account | None) -> Response:
    """HOME/public/commitment.json as published (404 before the commit)."""

    def read() -> bytes:
        cycle = service.cycle()
        return _published(
            cycle,
            cycle.paths.commitment,
            public=cycle.state != CycleState.draft,
            what="commitment",
            when="the operator publishes it when the targets are committed",
        )

    return Response(await run_in_threadpool(read), media_type="application/json")


async def reveal(request: Request, service: Service, account: Account | None) -> Response:
    """HOME/public/reveal.json once the cycle is revealed (404 before)."""

    def read() -> bytes:
        cycle = service.cycle()
        return _published(
            cycle,
            cycle.paths.reveal,
            public=cycle.state in _REVEALED,
            what="reveal",
            when="the reveal is published after the adapted runs",
        )

    return Response(await run_in_threadpool(read), media_type="application/json")


async def dev_kit(request: Request, service: Service, account: Account | None) -> Response:
    """What a submitter develops against: the public source condition, dev tasks, tools."""
    from service._devkit import build_dev_kit

    kit = await run_in_threadpool(lambda: build_dev_kit(service.cycle()))
    return JSONResponse(kit)


def _release_file(cycle: Cycle, relative: str) -> Path:
    """The published file at ``relative`` under HOME/public, once the cycle is released."""
    hint = "see /release/release.json for the published files, once the cycle is released"
    if cycle.state != CycleState.released:
        raise _not_found(f"cycle {cycle.id} has not been released yet", hint)
    parts = relative.split("/")
    public = cycle.paths.public.resolve()
    if any(not p or p.startswith(".") or "\\" in p or "\x00" in p for p in parts):
        raise _not_found("no such published file", hint)
    path = public.joinpath(*parts)
    if not path.resolve().is_relative_to(public) or not path.is_file():
        raise _not_found("no such published file", hint)
    return path


async def release_file(request: Request, service: Service, account: Account | None) -> Response:
    """A file of the published release (release.json, trials, report, traces, artifacts…)."""
    relative = request.path_params["path"]
    path = await run_in_threadpool(lambda: _release_file(service.cycle(), relative))
    return FileResponse(path)


async def release_files(request: Request, service: Service, account: Account | None) -> Response:
    """Once released, every published file of the release: path, size and SHA-256 (404 before).

    Only the files the release names (and report.html) are listed, each passing the checks
    ``/release/{path}`` makes; a named file that is not there is left out."""

    def listing() -> list[dict[str, Any]]:
        cycle = service.cycle()
        public = _release_file(cycle, "release.json").parent
        names = [*release_names(public), "report.html"]
        files = []
        for name in names:
            try:
                files.append(file_entry(name, _release_file(cycle, name)).model_dump())
            except ServiceError:
                continue
        return sorted(files, key=lambda f: f["path"])

    return JSONResponse({"files": await run_in_threadpool(listing)})


def public_routes() -> list[Route]:
    """The routes anyone may call."""
    return [
        get("/", index),
        get("/api/v1/cycle", cycle_info),
        get("/api/v1/commitment", commitment),
        get("/api/v1/reveal", reveal),
        get("/api/v1/dev-kit", dev_kit),
        get("/release/{path:path}", release_file, files=True),
        get("/api/v1/release/files", release_files, files=True),
    ]

"""A sandbox on the host itself: a private temporary directory and a minimal environment."""

from __future__ import annotations

import asyncio
import os
import posixpath
import shutil
import tempfile
from collections.abc import Sequence
from pathlib import Path

from benchmark._sandbox_exec import OPT_ENV, opt_dir
from runner._sandbox_base import ExecResult, Mount, Sandbox, checked_mounts
from runner._sandbox_proc import kill, run_to_end, start_process


class LocalSandbox(Sandbox):
    """Runs commands on the host in a fresh temporary working directory.

    It isolates nothing but the working directory and the environment (no API keys or other
    host variables leak in): use it where no Docker engine runs. File paths resolve inside
    the working directory, absolute ones included. A read-only mount is a copy, so the host
    original cannot change; a writable mount is a symlink to the host path.
    ``VWT_SANDBOX_OPT`` names the image's library directory as the host sees it (the
    repository's ``scripts/sandbox-image``, unless the host sets the variable), where the
    Docker image has ``/opt/vwt``.
    """

    kind = "local"

    def __init__(self, *, mounts: Sequence[Mount] = ()) -> None:
        """Prepare (but do not start) a sandbox with ``mounts`` placed at ``start()``."""
        self._mounts = checked_mounts(mounts)
        self._root: Path | None = None
        self._procs: list[asyncio.subprocess.Process] = []

    @property
    def workdir(self) -> Path:
        """The host directory that is this sandbox's working directory (while started)."""
        if self._root is None:
            raise RuntimeError("the sandbox is not started")
        return self._root

    async def start(self) -> None:
        """Create the working directory and place the mounts in it."""
        if self._root is not None:
            raise RuntimeError("the sandbox is already started")
        self._root = Path(tempfile.mkdtemp(prefix="vwt-sandbox-")).resolve()
        (self._root / "tmp").mkdir()
        await asyncio.to_thread(self._place_mounts)

    def _place_mounts(self) -> None:
        for m in self._mounts:
            dest = self.host_path(m.target)
            dest.parent.mkdir(parents=True, exist_ok=True)
            if not m.read_only:
                dest.symlink_to(m.source)
            elif m.source.is_dir():
                shutil.copytree(m.source, dest, symlinks=True)
            else:
                shutil.copy2(m.source, dest)

    async def stop(self) -> None:
        """Kill spawned processes (and their groups) and delete the working directory."""
        procs, self._procs = self._procs, []
        await asyncio.gather(*(kill(p) for p in procs))
        root, self._root = self._root, None
        if root is not None:
            # rmtree unlinks symlinks without following them: writable mounts survive.
            await asyncio.to_thread(shutil.rmtree, root, True)

    def host_path(self, path: str) -> Path:
        """Where ``path`` (relative, or absolute inside the sandbox) lives on the host."""
        rel = posixpath.normpath("/" + path).lstrip("/")
        return self.workdir / rel if rel else self.workdir

    def _env(self) -> dict[str, str]:
        root = self.workdir
        return {
            "PATH": os.environ.get("PATH", os.defpath),
            "HOME": str(root),
            "TMPDIR": str(root / "tmp"),
            "LANG": "C.UTF-8",
            OPT_ENV: opt_dir(),
        }

    async def exec(
        self, cmd: list[str], *, input: bytes | None = None, timeout: float = 60
    ) -> ExecResult:
        """Run ``cmd`` in the working directory; kill its process group at ``timeout``."""
        return await run_to_end(
            cmd,
            input=input,
            timeout=timeout,
            cwd=str(self.workdir),
            env=self._env(),
            max_output=self.max_output,
        )

    async def spawn(self, cmd: list[str]) -> asyncio.subprocess.Process:
        """Start ``cmd`` in the working directory with pipes; ``stop()`` kills it."""
        proc = await start_process(cmd, cwd=str(self.workdir), env=self._env())
        self._procs.append(proc)
        return proc

    async def read_file(self, path: str) -> bytes:
        """The contents of ``path`` inside the working directory."""
        return await asyncio.to_thread(self.host_path(path).read_bytes)

    async def write_file(self, path: str, data: bytes) -> None:
        """Write ``data`` to ``path`` inside the working directory, creating parents."""
        dest = self.host_path(path)
        await asyncio.to_thread(dest.parent.mkdir, parents=True, exist_ok=True)
        await asyncio.to_thread(dest.write_bytes, data)

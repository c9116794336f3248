"""What importing the MCP SDK costs a family's server at start, bare and whole.

Run: .venv/bin/python bench/server_import.py [--reps N]. Every sandbox group starts one family
MCP server (``benchmark/_mcp_server.py``), and most of its start is importing the ``mcp`` SDK.
The server imports only the modules it uses, skipping the ``mcp`` and ``mcp.server``
packages' ``__init__`` (which load the client, FastMCP and their web stacks):
``import_sdk(bare=True)``. This runs ``import_sdk`` in N fresh interpreters each way, started
as the server is (``python3 -I -S`` with the SDK's directory on the path) in the local sandbox
and, where ``docker_status()`` says it is usable, in the Docker sandbox with the image's SDK.
Prints, per sandbox and way, the median and p90 CPU milliseconds of the import and how many
modules it loaded.
"""

from __future__ import annotations

import argparse
import asyncio
import json
from collections.abc import Callable

import numpy as np
from _common import bench_run

from benchmark._mcp_backend import SERVER_FILE, server_site
from runner._sandbox_base import Mount, Sandbox
from runner._sandbox_docker import DockerSandbox
from runner._sandbox_engine import docker_status
from runner._sandbox_local import LocalSandbox

PROBE = """\
import json, sys, time
sys.path[:0] = [sys.argv[1], "vwt"]
start = time.process_time()
import mcp_server
bare = mcp_server.import_sdk(sys.argv[2] == "bare")
print(json.dumps({"cpu": time.process_time() - start, "bare": bare, "modules": len(sys.modules)}))
"""


async def _imports(make: Callable[..., Sandbox], kind: str, reps: int) -> dict[str, list[dict]]:
    sandbox = make(mounts=[Mount(SERVER_FILE, "vwt/mcp_server.py", True)])
    await sandbox.start()
    try:
        await sandbox.write_file("probe.py", PROBE.encode())
        out: dict[str, list[dict]] = {"bare": [], "whole": []}
        for _ in range(reps):
            for way in out:  # interleaved: a load that changes hits both ways alike
                argv = ["python3", "-I", "-S", "probe.py", server_site(kind), way]
                done = await sandbox.exec(argv)
                if not done.ok:
                    raise RuntimeError(f"the probe failed in {kind}: {done.stderr.decode()[-500:]}")
                out[way].append(json.loads(done.stdout))
        return out
    finally:
        await sandbox.stop()


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__.splitlines()[0])
    parser.add_argument("--reps", type=int, default=10)
    args = parser.parse_args()
    available, reason = docker_status()
    kinds: list[tuple[str, Callable[..., Sandbox]]] = [("local", LocalSandbox)]
    if available:
        kinds.append(("docker", DockerSandbox))
    with bench_run("Importing the MCP SDK at a family server's start"):
        print(f"docker: {reason}; {args.reps} fresh interpreters per sandbox and way")
        for kind, make in kinds:
            runs = asyncio.run(_imports(make, kind, args.reps))
            for way, rows in runs.items():
                if any(r["bare"] != (way == "bare") for r in rows):
                    raise RuntimeError(f"{kind}: the {way} import did not happen {way}")
                ms = np.array([r["cpu"] for r in rows]) * 1000
                print(
                    f"{kind:<7} {way:<6} median {np.median(ms):7.1f} ms  "
                    f"p90 {np.percentile(ms, 90):7.1f} ms  modules {rows[0]['modules']}"
                )


if __name__ == "__main__":
    main()

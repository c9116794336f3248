"""A family MCP server imports only the SDK modules it uses, and the whole SDK when a release
needs its packages' ``__init__`` (``_mcp_server.import_sdk``)."""

from __future__ import annotations

import json
import subprocess
import sys
from pathlib import Path

from benchmark._mcp_backend import SERVER_FILE, host_site

PROBE = """\
import json, sys
sys.path[:0] = [sys.argv[1], sys.argv[2]]
import _mcp_server as mcp_server
bare = mcp_server.import_sdk()
from mcp import types
from mcp.server.lowlevel import Server
loaded = sorted(n for n in sys.modules if n == "mcp" or n.startswith("mcp."))
print(json.dumps({"bare": bare, "loaded": loaded, "tool": types.Tool.__name__,
                  "server": Server.__name__, "init": getattr(sys.modules["mcp"], "INIT", None)}))
"""


def _probe(site: Path) -> dict[str, object]:
    """``import_sdk()`` in a fresh interpreter started as the server is (``-I -S``)."""
    done = subprocess.run(
        [sys.executable, "-I", "-S", "-c", PROBE, str(site), str(SERVER_FILE.parent)],
        capture_output=True,
        text=True,
        timeout=120,
    )
    assert done.returncode == 0, done.stderr
    return json.loads(done.stdout)


def test_the_real_sdk_is_imported_without_its_client_or_fastmcp() -> None:
    got = _probe(host_site())
    assert got["bare"] is True and (got["tool"], got["server"]) == ("Tool", "Server")
    loaded = set(got["loaded"])  # type: ignore[arg-type]
    assert {"mcp.types", "mcp.shared.message", "mcp.server.lowlevel"} <= loaded
    assert not any(n.startswith(("mcp.client.session", "mcp.server.fastmcp")) for n in loaded)
    assert got["init"] is None


def _fake_sdk(root: Path, types_source: str) -> Path:
    """A stand-in SDK whose package ``__init__`` sets ``INIT`` and whose ``types`` module is
    ``types_source``."""
    (root / "mcp" / "server" / "lowlevel").mkdir(parents=True)
    (root / "mcp" / "shared").mkdir()
    (root / "mcp" / "__init__.py").write_text("INIT = 'ran'\nfrom mcp import types\n")
    (root / "mcp" / "types.py").write_text(types_source)
    (root / "mcp" / "shared" / "__init__.py").write_text("")
    (root / "mcp" / "shared" / "message.py").write_text("")
    (root / "mcp" / "server" / "__init__.py").write_text("")
    (root / "mcp" / "server" / "lowlevel" / "__init__.py").write_text("class Server: ...\n")
    return root


def test_an_sdk_whose_modules_need_the_package_init_is_imported_whole(tmp_path: Path) -> None:
    # a module that needs a name the package's __init__ defines: bare, that is an ImportError
    site = _fake_sdk(tmp_path, "from mcp import INIT\nclass Tool: ...\n")
    got = _probe(site)
    assert got["bare"] is False and got["init"] == "ran"
    assert (got["tool"], got["server"]) == ("Tool", "Server")


def test_a_bare_import_of_a_self_contained_sdk_skips_its_init(tmp_path: Path) -> None:
    got = _probe(_fake_sdk(tmp_path, "class Tool: ...\n"))
    assert got["bare"] is True and got["init"] is None

"""The reconciliation family as the framework sees it: found by id and environment once
registered, its interface versions resolvable, its backend a standard-library-only module."""

import ast
import sys

from benchmark import family, family_for_env, interface_version
from benchmark.reconciliation import ENV_ID, Reconciliation


def test_once_registered_the_family_is_found_by_id_and_environment(
    registered: Reconciliation,
) -> None:
    assert family("reconciliation") is registered
    assert family_for_env(ENV_ID) is registered
    assert interface_version(ENV_ID, f"{ENV_ID}@2-percent").parent == f"{ENV_ID}@1"


def test_the_backend_imports_the_standard_library_only() -> None:
    source = Reconciliation().backend_file().read_text()
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported

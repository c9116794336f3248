"""The research family as the framework sees it: found by id and environment once registered,
its interface versions served, its backend a standard-library-only module, its sim pack
returned."""

from __future__ import annotations

import ast
import sys

from benchmark import family, family_for_env, interface_version, served_interface
from benchmark.research import ENV_ID, ResearchEvidence
from benchmark.research._sim_pack import PACK


def test_once_registered_the_family_is_found_by_id_and_environment(
    registered: ResearchEvidence,
) -> None:
    assert family("research_evidence") is registered
    assert family_for_env(ENV_ID) is registered
    for version in ("research@2-keys", "research@2-stance"):
        assert interface_version(ENV_ID, version).parent == f"{ENV_ID}@1"
        assert served_interface(ENV_ID, version).tools != registered.base_tools()


def test_the_family_declares_its_splits_tools_and_pack() -> None:
    fam = ResearchEvidence()
    assert fam.splits == ("dev", "sealed", "adapt", "examples")
    assert fam.examples_split == "examples"
    assert set(fam.effectful_tools) <= set(fam.base_tools().names())
    assert fam.sim_pack() is PACK
    assert PACK.family == fam.id


def test_the_backend_imports_the_standard_library_only() -> None:
    source = ResearchEvidence().backend_file().read_text()
    imported = set()
    for node in ast.walk(ast.parse(source)):
        if isinstance(node, ast.Import):
            imported |= {a.name.split(".")[0] for a in node.names}
        elif isinstance(node, ast.ImportFrom) and node.module:
            imported.add(node.module.split(".")[0])
    assert imported
    assert imported <= set(sys.stdlib_module_names) | {"__future__"}, imported

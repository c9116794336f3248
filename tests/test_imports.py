"""No import cycles between the modules of vwt's packages.

The graph is built from the source, not by tracing an import: every ``import`` statement counts,
at module level or inside a function (a deferred import is still a dependency, and one that
closes a cycle only shows when the function runs, so a tracer would miss it), including those
under ``if TYPE_CHECKING:``. An edge goes to the module named — ``from pkg import name`` to
``pkg.name`` when that is a module, else to ``pkg`` (its ``__init__``); importing ``a.b`` also
runs ``a/__init__``, but that implicit edge is left out, or every package whose ``__init__``
re-exports its modules would be a cycle with them.
"""

from __future__ import annotations

import ast
from pathlib import Path

import pytest

ROOT = Path(__file__).resolve().parents[1]
PACKAGES = ("adapt", "benchmark", "conditions", "drift", "reports", "runner", "service")
PACKAGES += ("submissions", "vwt")


def _module_name(path: Path) -> str:
    parts = path.relative_to(ROOT).with_suffix("").parts
    return ".".join(parts[:-1] if parts[-1] == "__init__" else parts)


def _modules() -> dict[str, Path]:
    """Every module of the packages: dotted name → file."""
    return {
        _module_name(p): p
        for pkg in PACKAGES
        for p in sorted((ROOT / pkg).rglob("*.py"))
        if "__pycache__" not in p.parts
    }


def _resolve(module: str, path: Path, node: ast.ImportFrom) -> str:
    """The absolute module a ``from … import`` names (relative imports resolved)."""
    if node.level == 0:
        return node.module or ""
    package = module.split(".") if path.name == "__init__.py" else module.split(".")[:-1]
    base = package[: len(package) - node.level + 1]
    return ".".join([*base, node.module] if node.module else base)


def import_graph(modules: dict[str, Path]) -> dict[str, set[str]]:
    """Module → the modules of ``modules`` it imports."""

    def known(name: str) -> str | None:
        while name and name not in modules:
            name = name.rpartition(".")[0]
        return name or None

    graph: dict[str, set[str]] = {m: set() for m in modules}
    for module, path in modules.items():
        for node in ast.walk(ast.parse(path.read_text(), str(path))):
            targets: list[str] = []
            if isinstance(node, ast.Import):
                targets = [a.name for a in node.names]
            elif isinstance(node, ast.ImportFrom):
                source = _resolve(module, path, node)
                targets = [f"{source}.{a.name}" for a in node.names] or [source]
            for target in targets:
                found = known(target)
                if found is not None and found != module:
                    graph[module].add(found)
    return graph


def cycles(graph: dict[str, set[str]]) -> list[list[str]]:
    """The strongly connected components of more than one module (Tarjan), each sorted."""
    index: dict[str, int] = {}
    low: dict[str, int] = {}
    stack: list[str] = []
    on_stack: set[str] = set()
    found: list[list[str]] = []

    def visit(root: str) -> None:
        # iterative, so a deep chain of imports cannot exceed the recursion limit
        work = [(root, iter(sorted(graph[root])))]
        index[root] = low[root] = len(index)
        stack.append(root)
        on_stack.add(root)
        while work:
            node, edges = work[-1]
            child = next(edges, None)
            if child is not None:
                if child not in index:
                    index[child] = low[child] = len(index)
                    stack.append(child)
                    on_stack.add(child)
                    work.append((child, iter(sorted(graph[child]))))
                elif child in on_stack:
                    low[node] = min(low[node], index[child])
                continue
            work.pop()
            if work:
                parent = work[-1][0]
                low[parent] = min(low[parent], low[node])
            if low[node] == index[node]:
                component = []
                while True:
                    member = stack.pop()
                    on_stack.discard(member)
                    component.append(member)
                    if member == node:
                        break
                if len(component) > 1:
                    found.append(sorted(component))

    for module in sorted(graph):
        if module not in index:
            visit(module)
    return found


def _a_path(graph: dict[str, set[str]], component: list[str]) -> list[str]:
    """One cycle through ``component``'s first module, for the failure message."""
    members, start = set(component), component[0]
    trail, seen = [start], {start}
    while True:
        step = next(
            (m for m in sorted(graph[trail[-1]]) if m == start or (m in members and m not in seen)),
            None,
        )
        if step is None or step == start:
            return [*trail, start]
        trail.append(step)
        seen.add(step)


def test_the_graph_sees_deferred_and_relative_imports(tmp_path: Path) -> None:
    (tmp_path / "pkg").mkdir()
    (tmp_path / "pkg" / "__init__.py").write_text("from .a import f\n")
    (tmp_path / "pkg" / "a.py").write_text("def f():\n    from pkg.b import g\n    return g\n")
    (tmp_path / "pkg" / "b.py").write_text("from pkg import a\n")
    modules = {"pkg": tmp_path / "pkg/__init__.py", "pkg.a": tmp_path / "pkg/a.py"}
    modules["pkg.b"] = tmp_path / "pkg/b.py"
    graph = import_graph(modules)
    assert graph == {"pkg": {"pkg.a"}, "pkg.a": {"pkg.b"}, "pkg.b": {"pkg.a"}}
    assert cycles(graph) == [["pkg.a", "pkg.b"]]
    (tmp_path / "pkg" / "b.py").write_text("import json\n")
    assert cycles(import_graph(modules)) == []


def test_no_module_of_vwt_imports_itself_through_others() -> None:
    modules = _modules()
    assert {"benchmark.sim._pack", "vwt.cli", "adapt._meter"} <= set(modules)
    graph = import_graph(modules)
    found = cycles(graph)
    if found:
        shown = "\n".join(f"{len(c)} modules, e.g. {' -> '.join(_a_path(graph, c))}" for c in found)
        pytest.fail(f"import cycles:\n{shown}")

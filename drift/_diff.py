"""The drift classifier: what changed between two tool lists, and does it change meaning."""

from __future__ import annotations

import re

from drift._diff_field import leaf_changes, page_role
from drift._match import (
    Leaf,
    greedy_pairs,
    leaf_similarity,
    leaves,
    norm,
    tool_similarity,
)
from drift._report import Change, DiffReport, Label
from drift._semantics import NOTICE, modes, new_sentences
from drift._tools import JSON, Tool, ToolSet


def _change(
    tool: str, kind: str, label: Label, path: str, reason: str, was: str | None = None
) -> Change:
    return Change(tool=tool, kind=kind, drift_class=label, path=path, reason=reason, was=was)


def _pair_leaves(old: dict[str, Leaf], new: dict[str, Leaf]) -> list[tuple[Leaf, Leaf]]:
    """Pairs of the same field across versions: by path, normalised path, name, similarity."""
    pairs = [(p, p) for p in old if p in new]
    keys = (lambda path: norm(path.replace(".", "_")), lambda path: norm(path.rsplit(".", 1)[-1]))
    for key in keys:
        left = [p for p in old if p not in {a for a, _ in pairs}]
        right = [p for p in new if p not in {b for _, b in pairs}]
        for o in left:
            twins = [n for n in right if key(n) == key(o)]
            if len(twins) == 1 and sum(key(x) == key(o) for x in left) == 1:
                pairs.append((o, twins[0]))
                right.remove(twins[0])
    left = [p for p in old if p not in {a for a, _ in pairs}]
    right = [p for p in new if p not in {b for _, b in pairs}]
    pairs += greedy_pairs(left, right, lambda a, b: leaf_similarity(old[a], new[b]))
    return [(old[a], new[b]) for a, b in pairs]


class SchemaDiff:
    """The field-level changes of one tool's input (or output) schema."""

    def __init__(self, tool: str, old: JSON, new: JSON, prefix: str = "") -> None:
        self.tool, self.prefix = tool, prefix
        self.old, self.new = leaves(old), leaves(new)
        self.changes: list[Change] = []
        self.matched_new: set[str] = set()

    def add(self, kind: str, label: Label, path: str, reason: str) -> None:
        """Record a change at ``path`` (under this diff's prefix)."""
        self.changes.append(_change(self.tool, kind, label, f"{self.prefix}{path}", reason))

    def run(self, report_added: bool = True) -> SchemaDiff:
        """Compare; ``report_added=False`` leaves unmatched new fields to the caller."""
        old, new = dict(self.old), dict(self.new)
        self._pagination(old, new)
        for o, n in _pair_leaves(old, new):
            self.matched_new.add(n.path)
            self.changes += [
                c.model_copy(
                    update={
                        "path": f"{self.prefix}{c.path}",
                        "was": f"{self.prefix}{c.was}" if c.was else None,
                    }
                )
                for c in leaf_changes(self.tool, o, n)
            ]
            old.pop(o.path)
            new.pop(n.path)
        for leaf in old.values():
            why = "calls that pass it are rejected or it is ignored"
            self.add("field_removed", "unknown", leaf.path, f"no longer accepted; {why}")
        if report_added:
            for leaf in new.values():
                self.added(leaf)
        return self

    def added(self, leaf: Leaf) -> None:
        """Report a field only the new version has."""
        if leaf.required:
            self.add("field_added", "unknown", leaf.path, "new required field: old calls lack it")
        else:
            self.add(
                "field_added",
                "preserving",
                leaf.path,
                "new optional field: calls that omit it behave as before",
            )

    def _pagination(self, old: dict[str, Leaf], new: dict[str, Leaf]) -> None:
        gone = [o for p, o in old.items() if p not in new and page_role(o) in ("page", "cursor")]
        came = [n for p, n in new.items() if p not in old and page_role(n) in ("page", "cursor")]
        for o in gone:
            twin = next((n for n in came if page_role(n) != page_role(o)), None)
            if twin is None:
                continue
            came.remove(twin)
            old.pop(o.path)
            new.pop(twin.path)
            self.matched_new.add(twin.path)
            self.add(
                "pagination_changed",
                "preserving",
                twin.path,
                f"paging by '{o.path}' "
                f"({page_role(o)}) is now by '{twin.path}' ({page_role(twin)}); paging "
                "through results returns the same items",
            )


def _order(tool: str, old: list[str], new: list[str], path: str) -> list[Change]:
    common_old = [n for n in old if n in new]
    common_new = [n for n in new if n in old]
    if common_old == common_new:
        return []
    what = "tools" if path == "(order)" else "fields"
    return [
        _change(
            tool,
            f"{what}_reordered",
            "preserving",
            path,
            "same items in a new order; order carries no meaning",
        )
    ]


def _description(tool: str, old: str, new: str) -> list[Change]:
    if old == new:
        return []
    path = "(description)"
    if re.search(r"\bdeprecated\b", new, re.I) and not re.search(r"\bdeprecated\b", old, re.I):
        return [
            _change(
                tool,
                "tool_deprecated",
                "preserving",
                path,
                "marked deprecated; it still works as before",
            )
        ]
    before, after = modes(old), modes(new)
    if before != after and after:
        return [
            _change(
                tool,
                "meaning_changed",
                "changing",
                path,
                f"interpretation "
                f"{', '.join(sorted(before)) or 'unstated'} → {', '.join(sorted(after))}: "
                "the same arguments now select different things",
            )
        ]
    notes = [s for s in new_sentences(old, new) if NOTICE.search(s)]
    if notes:
        return [
            _change(
                tool,
                "change_noted",
                "unknown",
                path,
                f"description announces a change: '{notes[0]}'",
            )
        ]
    return [_change(tool, "description_reworded", "preserving", path, "tool description reworded")]


def compare_tool(old: Tool, new: Tool) -> list[Change]:
    """Every change between two versions of one tool."""
    out = []
    if old.name != new.name:
        out.append(
            _change(
                new.name,
                "tool_renamed",
                "preserving",
                "(tool)",
                f"'{old.name}' is now '{new.name}'; same fields and purpose",
                was=old.name,
            )
        )
    out += _description(new.name, old.description or "", new.description or "")
    out += SchemaDiff(new.name, old.input_schema, new.input_schema).run().changes
    if old.output_schema or new.output_schema:
        out += (
            SchemaDiff(new.name, old.output_schema or {}, new.output_schema or {}, "output.")
            .run()
            .changes
        )
    out += _order(new.name, list(old.properties()), list(new.properties()), "(fields)")
    return out


def _selector(tool: Tool, names: list[str]) -> tuple[str, list[str]] | None:
    """A field of ``tool`` whose enum values name ≥ 2 of the tools ``names``."""
    for field, prop in tool.properties().items():
        values = {norm(str(v)) for v in prop.get("enum") or []}
        hits = [n for n in names if norm(n) in values]
        if len(hits) >= 2:
            return field, hits
    return None


def _merged(olds: list[Tool], new: Tool, selector: str) -> list[Change]:
    out = [
        _change(
            new.name,
            "tools_merged",
            "preserving",
            "(tool)",
            f"tools "
            f"{', '.join(t.name for t in olds)} are now methods of '{new.name}' "
            f"(selected by '{selector}')",
        )
    ]
    matched: set[str] = {selector}
    for old in olds:
        diff = SchemaDiff(new.name, old.input_schema, new.input_schema, f"{old.name}:").run(False)
        matched |= diff.matched_new
        out += [c for c in diff.changes if c not in out]
    rest = SchemaDiff(new.name, {}, new.input_schema)
    for path, leaf in rest.new.items():
        if path not in matched:
            rest.added(leaf)
    return out + rest.changes


def classify(old: ToolSet, new: ToolSet) -> DiffReport:
    """Label every change from ``old`` to ``new`` as preserving, changing or unknown."""
    pairs = [(o, n) for o in old.tools for n in new.tools if n.name == o.name]
    gone = [o for o in old.tools if new.get(o.name) is None]
    came = [n for n in new.tools if old.get(n.name) is None]
    changes: list[Change] = []
    for n in list(came):
        found = _selector(n, [o.name for o in gone])
        if found is None:
            continue
        olds = [o for o in gone if o.name in found[1]]
        changes += _merged(olds, n, found[0])
        gone = [o for o in gone if o not in olds]
        came.remove(n)
    by_name = {t.name: t for t in gone + came}
    renames = greedy_pairs(
        [o.name for o in gone],
        [n.name for n in came],
        lambda a, b: tool_similarity(by_name[a], by_name[b]),
    )
    for a, b in renames:
        pairs.append((by_name[a], by_name[b]))
        gone.remove(by_name[a])
        came.remove(by_name[b])
    for o, n in pairs:
        changes += compare_tool(o, n)
    changes += [
        _change(t.name, "tool_removed", "unknown", "(tool)", "no longer offered; calls to it fail")
        for t in gone
    ]
    changes += [
        _change(
            t.name, "tool_added", "preserving", "(tool)", "new tool; existing calls are unaffected"
        )
        for t in came
    ]
    renamed = {b: a for a, b in renames}
    changes += _order(
        "*", [o.name for o in old.tools], [renamed.get(n, n) for n in new.names()], "(order)"
    )
    return DiffReport(changes=changes)

"""The drift classifier: what changed between two tool lists, and does it change meaning.

``preserving`` is given only where the schemas show that a call keeps its meaning; where they
cannot (a new field's default, a changed type, a vanished field, a fact stated on one side only)
the label is ``unknown``. Every change carries the schema parts and words it rests on.
"""

from __future__ import annotations

from drift._diff_field import default_source, leaf_changes, page_role, said
from drift._diff_text import description_changes
from drift._match import (
    RENAME_AT,
    Leaf,
    greedy_pairs,
    leaf_similarity,
    leaves,
    norm,
    rename_similarity,
    tool_similarity,
)
from drift._names import tokens
from drift._prose import content, duration, spans
from drift._report import Change, DiffReport, Label, quote
from drift._semantics import is_neutral, stated_default, word_overlap
from drift._tools import JSON, Tool, ToolSet


def _change(
    tool: str,
    kind: str,
    label: Label,
    path: str,
    reason: str,
    evidence: list[str],
    was: str | None = None,
) -> Change:
    return Change(
        tool=tool,
        kind=kind,
        drift_class=label,
        path=path,
        reason=reason,
        evidence=tuple(evidence),
        was=was,
    )


Pair = tuple[Leaf, Leaf, str]
"""An old field, its new version, and how they were paired (for the evidence)."""


def _pair_leaves(old: dict[str, Leaf], new: dict[str, Leaf]) -> list[Pair]:
    """Pairs of the same field across versions: by path, normalised path, name, similarity,
    then — for names that share nothing — by type, description and position."""
    pairs: list[Pair] = [(old[p], new[p], "the same path") for p in old if p in new]

    def unpaired() -> tuple[list[str], list[str]]:
        done_old, done_new = {a.path for a, _, _ in pairs}, {b.path for _, b, _ in pairs}
        return [p for p in old if p not in done_old], [p for p in new if p not in done_new]

    keys = (
        ("the same normalised path", lambda path: norm(path.replace(".", "_"))),
        ("the same normalised name", lambda path: norm(path.rsplit(".", 1)[-1])),
    )
    for how, key in keys:
        left, right = unpaired()
        for o in left:
            twins = [n for n in right if key(n) == key(o)]
            if len(twins) == 1 and sum(key(x) == key(o) for x in left) == 1:
                pairs.append((old[o], new[twins[0]], how))
                right.remove(twins[0])
    left, right = unpaired()
    similar = greedy_pairs(left, right, lambda a, b: leaf_similarity(old[a], new[b]))
    pairs += [(old[a], new[b], "name and description similarity") for a, b in similar]
    left, right = unpaired()
    described = greedy_pairs(left, right, lambda a, b: rename_similarity(old[a], new[b]), RENAME_AT)
    pairs += [(old[a], new[b], "type, description and position") for a, b in described]
    return pairs


def _swapped(a: Pair, b: Pair) -> bool:
    """Whether two paired fields traded roles: ``required`` moved from one to the other, or
    each one's new description says what the other's old one did."""
    (ao, an, _), (bo, bn, _) = a, b
    parent = {x.path.rpartition(".")[0] for x in (ao, an, bo, bn)}
    if len(parent) != 1 or not ao.types or len({ao.types, an.types, bo.types, bn.types}) != 1:
        return False
    moved = ao.required != bo.required and (an.required, bn.required) == (bo.required, ao.required)
    if moved:
        return True
    if not all(x.desc for x in (ao, an, bo, bn)) or (ao.desc, bo.desc) == (an.desc, bn.desc):
        return False
    # content words, not characters: swapped roles often differ by one or two words
    cross = (word_overlap(ao.desc, bn.desc), word_overlap(bo.desc, an.desc))
    straight = word_overlap(ao.desc, an.desc) + word_overlap(bo.desc, bn.desc)
    return min(cross) >= 0.6 and sum(cross) > straight + 0.3


class SchemaDiff:
    """The field-level changes of one tool's input (or output) schema."""

    def __init__(
        self, tool: str, old: JSON, new: JSON, prefix: str = "", context: str = ""
    ) -> None:
        self.tool, self.prefix, self.context = tool, prefix, context
        self.old, self.new = leaves(old), leaves(new)
        self.changes: list[Change] = []
        self.matched_new: set[str] = set()
        self.gone: list[Leaf] = []

    def add(self, kind: str, label: Label, path: str, reason: str, evidence: list[str]) -> None:
        """Record a change at ``path`` (under this diff's prefix)."""
        self.changes.append(
            _change(self.tool, kind, label, f"{self.prefix}{path}", reason, evidence)
        )

    def run(self, report_added: bool = True) -> SchemaDiff:
        """Compare; ``report_added=False`` leaves unmatched new fields to the caller."""
        old, new = dict(self.old), dict(self.new)
        self._pagination(old, new)
        pairs = _pair_leaves(old, new)
        for o, n, how in pairs:
            self.matched_new.add(n.path)
            self.changes += [
                c.model_copy(
                    update={
                        "path": f"{self.prefix}{c.path}",
                        "was": f"{self.prefix}{c.was}" if c.was else None,
                    }
                )
                for c in leaf_changes(self.tool, o, n, how)
            ]
            old.pop(o.path)
            new.pop(n.path)
        self._swaps(pairs)
        self.gone = list(old.values())
        for leaf in self.gone:
            why = "calls that pass it are rejected or it is ignored"
            self.add(
                "field_removed",
                "unknown",
                leaf.path,
                f"no longer accepted; {why}",
                [f"old field '{leaf.path}'", "no new field of the same type says the same"],
            )
        if report_added:
            for leaf in new.values():
                self.added(leaf)
        return self

    def _swaps(self, pairs: list[Pair]) -> None:
        for i, a in enumerate(pairs):
            for b in pairs[i + 1 :]:
                if not _swapped(a, b):
                    continue
                gains, loses = (b, a) if b[1].required else (a, b)
                (go, gn, _), (lo, ln, _) = gains, loses
                self.add(
                    "roles_swapped",
                    "changing",
                    gn.path,
                    f"'{lo.path}' and '{go.path}' traded roles: what old calls passed as "
                    f"'{lo.path}' is now expected as '{gn.path}', and the same call now means "
                    "something else",
                    [
                        f"old required: '{lo.path}' {lo.required}, '{go.path}' {go.required}",
                        f"new required: '{ln.path}' {ln.required}, '{gn.path}' {gn.required}",
                        said("old", lo),
                        said("new", gn),
                    ],
                )

    def added(self, leaf: Leaf) -> None:
        """Report a field only the new version has: harmless only when omitting it is shown
        to keep the old behaviour (no default, or one that leaves the option off)."""
        if leaf.required:
            self.add(
                "required_field_added",
                "preserving",
                leaf.path,
                "new required field: old calls lack it and are rejected with an error, not "
                "answered differently",
                [f"new field '{leaf.path}' is required"],
            )
            return
        default = stated_default(leaf.prop)
        evidence = [default_source("new", leaf, default)]
        if default is None:
            self.add(
                "field_added",
                "preserving",
                leaf.path,
                "new optional field without a default: calls that omit it behave as before",
                evidence,
            )
            return
        other = self._other_default(leaf, default)
        if other is not None:
            self.add(
                "field_added",
                "changing",
                leaf.path,
                f"new optional field defaulting to {default}, where the old version stated "
                f"{other[0]}: calls that omit it now get a different behaviour",
                [*evidence, other[1]],
            )
        elif is_neutral(default) and not self._mentioned(leaf):
            self.add(
                "field_added",
                "preserving",
                leaf.path,
                f"new optional field whose default ({default}) leaves the new option off",
                evidence,
            )
        elif "default" not in leaf.prop and restates(default, self.context):
            self.add(
                "field_added",
                "preserving",
                leaf.path,
                "new optional field whose stated default repeats what the old description said "
                "the tool did",
                [*evidence, quote("old tool description", self.context)],
            )
        else:
            self.add(
                "field_added",
                "unknown",
                leaf.path,
                f"new optional field defaulting to {default}: whether calls that omit it "
                "behave as before depends on what the old version did, which its schema "
                "does not say",
                evidence,
            )

    def _other_default(self, leaf: Leaf, default: str) -> tuple[str, str] | None:
        """A different behaviour the old version stated for what ``leaf`` now sets: a removed
        sibling's default, or a time span in the old tool description."""
        for gone in self.gone:
            was = stated_default(gone.prop)
            if was is not None and was != default and gone.types == leaf.types:
                return f"'{gone.path}' defaulting to {was}", default_source("old", gone, was)
        span = duration(default)
        stated = spans(self.context)
        if span is not None and stated and span not in {s.value for s in stated}:
            return f"'{stated[0].words}'", f'old tool description: "{stated[0].words}"'
        return None

    def _mentioned(self, leaf: Leaf) -> bool:
        """Whether the old tool description already speaks of what the new field switches."""
        generic = {"include", "with", "return", "show", "enable", "use", "is", "only", "all"}
        named = content(" ".join(t for t in tokens(leaf.name) if t not in generic))
        return bool(named) and named <= content(self.context)

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
                [f"old '{o.path}': {page_role(o)}", f"new '{twin.path}': {page_role(twin)}"],
            )


RESTATES = 0.75
"""Least share of a stated default's words the old description must hold to have said it."""


def restates(default: str, context: str) -> bool:
    """Whether the old tool description already said what a new field's default does."""
    said = content(default)
    return len(said) >= 2 and len(said & content(context)) / len(said) >= RESTATES


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
            [f"old order {common_old}", f"new order {common_new}"],
        )
    ]


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
                [f"old tool '{old.name}'", f"new tool '{new.name}'", "fields and purpose agree"],
                was=old.name,
            )
        )
    out += description_changes(new.name, old, new)
    context = old.description or ""
    out += SchemaDiff(new.name, old.input_schema, new.input_schema, context=context).run().changes
    if old.output_schema or new.output_schema:
        out += (
            SchemaDiff(new.name, old.output_schema or {}, new.output_schema or {}, "output.")
            .run()
            .changes
        )
    out += _order(new.name, list(old.properties()), list(new.properties()), "(fields)")
    return out


def _singular(word: str) -> str:
    if len(word) <= 3 or not word.endswith("s") or word.endswith("ss"):
        return word
    if word.endswith("ies"):
        return word[:-3] + "y"
    if word.endswith(("ches", "shes", "xes", "sses")):
        return word[:-2]
    return word[:-1]


def _stems(name: str) -> frozenset[str]:
    return frozenset(_singular(t) for t in tokens(name))


def _verb_hits(tool: Tool, values: list[str], names: list[str]) -> list[str]:
    """The tools ``names`` that ``values`` select as verbs of ``tool``'s noun: ``repo_branch``
    with action ``get`` / ``list`` stands for ``repo_get_branch_by_name`` and
    ``repo_list_branches_by_repo`` (every word of the new tool's name is in each old name, and
    each value's words are the rest of one old name's words; the closest one wins)."""
    noun = _stems(tool.name)
    if not noun:
        return []
    kin = {n: _stems(n) - noun for n in names if noun <= _stems(n)}
    hits: list[str] = []
    for value in values:
        words = _stems(value)
        fits = [n for n, rest in kin.items() if words and words <= rest and n not in hits]
        if fits:
            hits.append(min(fits, key=lambda n: (len(kin[n] - words), n)))
    return hits


def _selector(tool: Tool, names: list[str]) -> tuple[str, list[str]] | None:
    """A field of ``tool`` whose enum values name ≥ 2 of the tools ``names``, or select ≥ 2
    of them as verbs of the new tool's noun."""
    for field, prop in tool.properties().items():
        enum = [str(v) for v in prop.get("enum") or []]
        values = {norm(v) for v in enum}
        hits = [n for n in names if norm(n) in values]
        if len(hits) < 2:
            hits = _verb_hits(tool, enum, names)
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
            [f"old tools {[t.name for t in olds]}", f"new '{new.name}.{selector}' enum names them"],
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
        _change(
            t.name,
            "tool_removed",
            "unknown",
            "(tool)",
            "no longer offered; calls to it fail",
            [f"old tool '{t.name}'", "no new tool with its fields and purpose"],
        )
        for t in gone
    ]
    changes += [
        _change(
            t.name,
            "tool_added",
            "preserving",
            "(tool)",
            "new tool; existing calls are unaffected",
            [f"new tool '{t.name}'"],
        )
        for t in came
    ]
    renamed = {b: a for a, b in renames}
    changes += _order(
        "*", [o.name for o in old.tools], [renamed.get(n, n) for n in new.names()], "(order)"
    )
    return DiffReport(changes=changes)

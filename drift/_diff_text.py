"""Comparing what two versions of a tool's description state about its behaviour.

A description can state a change no schema shows: a wider time span, a cap on results, a new
order (with a cut, a different set), a different kind of result. It can also only explain more
(query syntax, examples) without changing anything. Facts stated on both sides and different
are changes; a fact on one side only is ``unknown``; new explanation alone is rewording.
"""

from __future__ import annotations

import re

from drift._diff_field import page_role
from drift._match import leaves
from drift._prose import (
    Stated,
    caps,
    new_case,
    orders,
    returned,
    same_order,
    same_result,
    spans,
)
from drift._report import Change, Label, quote
from drift._semantics import NOTICE, mode_phrases, mode_switch, new_sentences, stated_default
from drift._tools import Tool

_DEPRECATED = re.compile(r"\bdeprecated\b", re.IGNORECASE)
PATH = "(description)"


class DescriptionDiff:
    """The changes one tool's description makes between two versions."""

    def __init__(self, name: str, old: Tool, new: Tool) -> None:
        self.name = name
        self.old, self.new = old.description or "", new.description or ""
        self.sizes = (page_sizes(old), page_sizes(new))
        # a cut: a page-size field, or a stated cap ("the first 10"), so an order picks a set
        self.cut = bool(self.sizes[0][1] or self.sizes[1][1] or caps(self.old) or caps(self.new))
        self.changes: list[Change] = []

    def add(self, kind: str, label: Label, reason: str, evidence: list[str]) -> None:
        """Record one change of the description."""
        self.changes.append(
            Change(
                tool=self.name,
                kind=kind,
                drift_class=label,
                path=PATH,
                reason=reason,
                evidence=tuple(evidence),
            )
        )

    def both(self, old_phrase: str | None = None, new_phrase: str | None = None) -> list[str]:
        """Evidence quoting both descriptions at the given phrases."""
        return [quote("old", self.old, old_phrase), quote("new", self.new, new_phrase)]

    def run(self) -> list[Change]:
        """Every change the description states, or one rewording when it states none."""
        if self.old == self.new:
            return []
        marked = _DEPRECATED.search(self.new)
        if marked and not _DEPRECATED.search(self.old):
            self.add(
                "tool_deprecated",
                "preserving",
                "marked deprecated; it still works as before",
                [quote("new", self.new, marked.group(0))],
            )
            return self.changes
        self._modes()
        self._facts("span_changed", "time span", spans(self.old), spans(self.new), "changing")
        # a cap that is the default of a page-size field states the page size, not a cut
        old_caps = [c for c in caps(self.old) if c.value not in self.sizes[0][0]]
        new_caps = [c for c in caps(self.new) if c.value not in self.sizes[1][0]]
        self._facts("cap_changed", "cap on results", old_caps, new_caps, "changing")
        self._order()
        self._result()
        if not self.changes:
            self._notice()
        if not self.changes:
            explained = sorted(set(mode_phrases(self.new)) - set(mode_phrases(self.old)))
            extra = f"; explains matching ({', '.join(explained)})" if explained else ""
            self.add(
                "description_reworded",
                "preserving",
                "tool description reworded; no stated change of matching, time span, cap, "
                f"order or result{extra}",
                self.both(),
            )
        return self.changes

    def _modes(self) -> None:
        switch = mode_switch(self.old, self.new)
        if switch is None:
            return
        gone, came = switch
        self.add(
            "meaning_changed",
            "changing",
            f"interpretation {', '.join(sorted(gone))} → {', '.join(sorted(came))}: the same "
            "arguments now select different things",
            self.both(next(iter(gone.values())), next(iter(came.values()))),
        )

    def _facts(
        self, kind: str, what: str, old: list[Stated], new: list[Stated], both: Label
    ) -> None:
        before, after = {s.value for s in old}, {s.value for s in new}
        if before == after:
            return
        label: Label = both if before and after else "unknown"
        was = " / ".join(dict.fromkeys(s.words for s in old)) or "none stated"
        now = " / ".join(dict.fromkeys(s.words for s in new)) or "none stated"
        effect = (
            "the same call now covers a different set"
            if label == "changing"
            else "stated on one side only; the schema cannot say what the other side does"
        )
        self.add(
            kind,
            label,
            f"{what}: {was} → {now}; {effect}",
            self.both(old[0].words if old else None, new[0].words if new else None),
        )

    def _order(self) -> None:
        old, new = orders(self.old), orders(self.new)
        if same_order(old, new):
            return
        label: Label = "changing" if new and self.cut else "unknown"
        cut = (
            "with a cut on how many come back, a different set is returned"
            if self.cut
            else "the same items may come back in another order"
        )
        self.add(
            "order_changed",
            label,
            f"stated order {' / '.join(s.words for s in old) or 'none'} → "
            f"{' / '.join(s.words for s in new) or 'none'}; {cut}",
            self.both(old[0].words if old else None, new[0].words if new else None),
        )

    def _result(self) -> None:
        old, new = returned(self.old), returned(self.new)
        case = new_case(old, new)
        if case is not None:
            self.add(
                "result_changed",
                "unknown",
                f"what it returns gained a case the old description did not state: '{case.words}'",
                self.both(old[0].words, case.words),
            )
            return
        if same_result(old, new):
            return
        self.add(
            "result_changed",
            "unknown",
            f"what it returns is described differently: '{old[0].words}' → '{new[0].words}'",
            self.both(old[0].words, new[0].words),
        )

    def _notice(self) -> None:
        notes = [s for s in new_sentences(self.old, self.new) if NOTICE.search(s)]
        if notes:
            self.add(
                "change_noted",
                "unknown",
                f"description announces a change: '{notes[0]}'",
                [quote("old", self.old), quote("new", notes[0])],
            )


def page_sizes(tool: Tool) -> tuple[set[str], bool]:
    """The stated default page sizes of ``tool``, and whether it has a page-size field at all
    (then a call returns a limited number of results, and an order decides which)."""
    fields = [leaf for leaf in leaves(tool.input_schema).values() if page_role(leaf) == "page_size"]
    stated = {stated_default(leaf.prop) for leaf in fields}
    return {s for s in stated if s is not None}, bool(fields)


def description_changes(name: str, old: Tool, new: Tool) -> list[Change]:
    """The changes between two versions of a tool's description."""
    return DescriptionDiff(name, old, new).run()

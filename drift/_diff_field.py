"""Classifying what changed about one field that exists in both versions."""

from __future__ import annotations

import functools
import re

from drift._match import NUMERIC, Leaf, both_identifiers, type_set
from drift._names import tokens
from drift._prose import content, spans
from drift._report import Change, Label, quote
from drift._semantics import (
    CONTRAST,
    MEANING,
    NOTICE,
    SIGN,
    SIGN_RULE,
    containment,
    index_base,
    is_identifier,
    is_neutral,
    mode_switch,
    new_sentences,
    normal,
    reference_kind,
    scales,
    sign_swapped,
    stated_default,
    synonyms,
    units,
    zones,
)

CONDITION = re.compile(r"\b(?:when|whenever|if|unless)\b", re.IGNORECASE)
"""A condition: what follows states a case, not the rule."""


def page_role(leaf: Leaf) -> str | None:
    """'page_size', 'page' (number or offset) or 'cursor' when the field paginates."""
    return _page_role(leaf.name, leaf.desc, leaf.types)


@functools.lru_cache(maxsize=4096)
def _page_role(name: str, desc: str, types: frozenset[str]) -> str | None:
    words = set(tokens(name))
    desc = desc.lower()
    numeric = not types or bool(types & NUMERIC)
    if "limit" in words or {"per", "page"} <= words or {"page", "size"} <= words:
        return "page_size" if numeric else None
    if numeric and (words == {"page"} or {"page", "number"} <= words or words & {"offset", "skip"}):
        return "page"
    if (not types or "string" in types) and (
        words & {"cursor", "continuation"}
        or {"page", "token"} <= words
        or {"next", "token"} <= words
        or ("cursor" in desc and ("pagination" in desc or words & {"after", "before"}))
    ):
        return "cursor"
    return None


SAME_THING = 0.6
"""Least share of the old description's words the new one must hold to name the same thing."""

MOVES = frozenset({"field_renamed", "field_nested", "field_flattened"})


def _fmt(values: set[str]) -> str:
    return ", ".join(sorted(values)) or "unstated"


def said(side: str, leaf: Leaf, phrase: str | None = None) -> str:
    """Evidence for what ``leaf``'s description says (or that it has none)."""
    if not leaf.desc:
        return f"{side}: '{leaf.path}' has no description"
    return quote(f"{side} '{leaf.path}'", leaf.desc, phrase)


def default_source(side: str, leaf: Leaf, value: str | None) -> str:
    """Evidence for a field's stated default: the schema's ``default`` or the words."""
    if value is None:
        return f"{side}: '{leaf.path}' states no default"
    if "default" in leaf.prop:
        return f"{side}: '{leaf.path}' schema default {value}"
    return said(side, leaf)


class FieldDiff:
    """Collects the changes of one matched (old, new) field pair."""

    def __init__(self, tool: str, old: Leaf, new: Leaf, how: str = "the same name") -> None:
        self.tool, self.old, self.new, self.how = tool, old, new, how
        self.changes: list[Change] = []

    def add(
        self, kind: str, label: Label, reason: str, evidence: list[str], was: str | None = None
    ) -> None:
        """Record one change at the new field's path."""
        self.changes.append(
            Change(
                tool=self.tool,
                kind=kind,
                drift_class=label,
                path=self.new.path,
                reason=reason,
                evidence=tuple(evidence),
                was=was,
            )
        )

    def both(self, old_phrase: str | None = None, new_phrase: str | None = None) -> list[str]:
        """Evidence quoting both descriptions (the sentences holding the phrases, if given)."""
        return [said("old", self.old, old_phrase), said("new", self.new, new_phrase)]

    def run(self) -> list[Change]:
        """Every change of this field, meaning changes first."""
        self._moved()
        semantic = self._semantics()
        mapping = self._enum()
        self._default(mapping)
        self._type()
        self._required()
        if not semantic:
            self._bounds()
        if not semantic and all(c.kind in MOVES for c in self.changes):
            self._wording()
        return self.changes

    def _moved(self) -> None:
        old, new = self.old, self.new
        if old.path == new.path:
            return
        kind = "field_nested" if old.depth < new.depth else "field_flattened"
        if old.depth == new.depth:
            kind = "field_renamed"
        self.add(
            kind,
            "preserving",
            f"'{old.path}' is now '{new.path}'; values keep their meaning",
            [f"old field '{old.path}'", f"new field '{new.path}'", f"matched by {self.how}"],
            was=old.path,
        )

    def _stated(self, kind: str, what: str, old: set[str], new: set[str]) -> bool:
        if old == new or not (old or new):
            return False
        evidence = [
            f"old: {what} {_fmt(old)} (name '{self.old.name}')",
            f"new: {what} {_fmt(new)} (name '{self.new.name}')",
            *self.both(),
        ]
        if new:
            self.add(
                kind,
                "changing",
                f"{what} {_fmt(old)} → {_fmt(new)}: the same number now means a different amount"
                if kind in ("unit_changed", "scale_changed")
                else f"{what} {_fmt(old)} → {_fmt(new)}",
                evidence,
            )
        else:
            self.add(kind, "unknown", f"{what} no longer stated (was {_fmt(old)})", evidence)
        return True

    def _semantics(self) -> bool:
        old, new = self.old, self.new
        found = [
            self._stated(
                "unit_changed", "unit", units(old.name, old.desc), units(new.name, new.desc)
            ),
            self._stated(
                "scale_changed", "scale", scales(old.name, old.desc), scales(new.name, new.desc)
            ),
        ]
        found.append(self._reference())
        if old.desc == new.desc:
            return any(found)
        found += [
            self._stated("timezone_changed", "time zone", zones(old.desc), zones(new.desc)),
            self._mode(),
            self._sign(),
            self._span(),
        ]
        fresh = new_sentences(old.desc, new.desc)
        found.append(self._identifier(fresh))
        found.append(self._enum_meaning(fresh))
        notes = [s for s in fresh if NOTICE.search(s)]
        if not any(found) and notes:
            phrase = NOTICE.search(notes[0])
            self.add(
                "change_noted",
                "unknown",
                f"description announces a change: '{notes[0]}'",
                [said("old", old), said("new", new, phrase.group(0) if phrase else None)],
            )
            return True
        return any(found)

    def _reference(self) -> bool:
        """A value that counted a place in a list now names an item (or the reverse), or the
        stated base of counting moved: the same number now points at something else."""
        old, new = self.old, self.new
        if not (old.types & NUMERIC or new.types & NUMERIC or not old.types):
            return False
        was = reference_kind(old.name, old.desc)
        now = reference_kind(new.name, new.desc)
        if was and now and was != now:
            self.add(
                "reference_changed",
                "changing",
                f"'{old.path}' held {'an' if was == 'identifier' else 'a'} {was}; '{new.path}' "
                f"holds {'an' if now == 'identifier' else 'a'} {now}: the same number now "
                "refers to another item",
                [f"old '{old.path}': {was}", f"new '{new.path}': {now}", *self.both()],
            )
            return True
        before, after = index_base(old.desc), index_base(new.desc)
        if before and after and before != after:
            self.add(
                "reference_changed",
                "changing",
                f"counting starts at {after} instead of {before}: the same number now refers "
                "to the next or previous item",
                self.both(f"{before}-based", f"{after}-based"),
            )
            return True
        return False

    def _mode(self) -> bool:
        switch = mode_switch(self.old.desc, self.new.desc)
        if switch is None:
            return False
        gone, came = switch
        self.add(
            "meaning_changed",
            "changing",
            f"interpretation {_fmt(set(gone))} → {_fmt(set(came))}: the same value now selects "
            "different things",
            self.both(next(iter(gone.values())), next(iter(came.values()))),
        )
        return True

    def _span(self) -> bool:
        before, after = spans(self.old.desc), spans(self.new.desc)
        if {s.value for s in before} == {s.value for s in after}:
            return False
        self.add(
            "span_changed",
            "unknown",
            f"stated time span {' / '.join(s.words for s in before) or 'none'} → "
            f"{' / '.join(s.words for s in after) or 'none'}",
            self.both(before[0].words if before else None, after[0].words if after else None),
        )
        return True

    def _sign(self) -> bool:
        old, new = self.old.desc, self.new.desc
        if sign_swapped(old, new):
            self.add(
                "sign_changed",
                "changing",
                "'positive' and 'negative' swapped places in the "
                "description: the same number now means the opposite",
                self.both("positive", "positive"),
            )
            return True
        if SIGN_RULE.search(new) and not SIGN.search(old) and self.new.types & NUMERIC:
            found = SIGN_RULE.search(new)
            self.add(
                "sign_changed",
                "changing",
                "a sign convention is now stated where none was",
                self.both(None, found.group(0) if found else None),
            )
            return True
        return False

    def _identifier(self, fresh: list[str]) -> bool:
        if not is_identifier(self.new.name, self.new.desc):
            return False
        contrast = [s for s in fresh if self._disowns(s)]
        if contrast:
            self.add(
                "identifier_changed",
                "changing",
                f"the identifier now refers to something else: '{contrast[0]}'",
                [said("old", self.old), quote(f"new '{self.new.path}'", contrast[0])],
            )
        return bool(contrast)

    def _disowns(self, sentence: str) -> bool:
        """Whether ``sentence`` says the value is now one thing and not another ("Takes the
        internal key, not the display number"). A contrast inside a condition ("When using a
        name instead of a GUID, …") only explains an accepted alternative form."""
        m = CONTRAST.search(sentence)
        return m is not None and not CONDITION.search(sentence[: m.start()])

    def _enum_meaning(self, fresh: list[str]) -> bool:
        values = [str(v) for v in self.new.prop.get("enum") or []]
        if not values:
            return False
        told = [
            s
            for s in fresh
            if (MEANING.search(s) or NOTICE.search(s))
            and any(re.search(rf"\b{re.escape(v)}\b", s) for v in values)
        ]
        if not told:
            return False
        noticed = [s for s in told if NOTICE.search(s)]
        label: Label = "changing" if noticed else "unknown"
        self.add(
            "enum_meaning_changed",
            label,
            f"description redefines enum values: '{(noticed or told)[0]}'",
            [said("old", self.old), quote(f"new '{self.new.path}'", (noticed or told)[0])],
        )
        return True

    def _enum(self) -> dict[str, str]:
        old_values = [str(v) for v in self.old.prop.get("enum") or []]
        new_values = [str(v) for v in self.new.prop.get("enum") or []]
        if not old_values or not new_values or old_values == new_values:
            return {}
        evidence = [f"old enum {old_values}", f"new enum {new_values}"]
        gone = [v for v in old_values if v not in new_values]
        came = [v for v in new_values if v not in old_values]
        mapping: dict[str, str] = {}
        for v in gone:
            key = re.sub(r"[^a-z0-9]", "", v.lower())
            twin = next((c for c in came if _enum_twin(key, c) and c not in mapping.values()), None)
            if twin is not None:
                mapping[v] = twin
        if mapping:
            pairs = ", ".join(f"'{k}' → '{v}'" for k, v in mapping.items())
            self.add("enum_values_renamed", "preserving", f"values respelled ({pairs})", evidence)
        removed = [v for v in gone if v not in mapping]
        added = [v for v in came if v not in mapping.values()]
        if removed:
            self.add(
                "enum_values_removed",
                "unknown",
                f"values {removed} are no longer accepted; calls using them are rejected",
                evidence,
            )
        if added:
            self.add(
                "enum_values_added",
                "preserving",
                f"new values {added}; old values unchanged",
                evidence,
            )
        return mapping

    def _default(self, mapping: dict[str, str]) -> None:
        old, new = stated_default(self.old.prop), stated_default(self.new.prop)
        renamed = {normal(k): normal(v) for k, v in mapping.items()}
        old = renamed.get(old, old) if old is not None else None
        if old == new or (new is None and old is None):
            return
        evidence = [default_source("old", self.old, old), default_source("new", self.new, new)]
        role = page_role(self.new)
        if old is None and self.old.required:
            self.add(
                "default_changed",
                "preserving",
                f"a default ({new}) for a field every old call had to pass: no old call "
                "relies on it",
                [*evidence, f"old '{self.old.path}' required"],
            )
        elif role == "page_size":
            self.add(
                "page_size_changed",
                "preserving",
                f"default page size {old or 'unstated'} → "
                f"{new or 'unstated'}; paging through results returns the same items",
                evidence,
            )
        elif new is None:
            self.add(
                "default_changed", "unknown", f"default no longer stated (was {old})", evidence
            )
        elif old is None and (is_neutral(new) or (role == "page" and new in ("0", "1"))):
            self.add(
                "default_changed",
                "preserving",
                f"documents the conventional default {new}",
                evidence,
            )
        else:
            self.add(
                "default_changed",
                "changing",
                f"default {old or 'unstated'} → {new}: calls "
                "that omit the field now get a different behaviour",
                evidence,
            )

    def _type(self) -> None:
        old, new = self.old.types, self.new.types
        if old == new or not old or not new:
            return
        evidence = [
            f"old '{self.old.path}' type {_fmt(set(old))}",
            f"new '{self.new.path}' type {_fmt(set(new))}",
        ]
        widened = old <= (new | NUMERIC if "number" in new else new)
        if self._listed():
            self.add(
                "type_changed",
                "preserving",
                f"a single {_fmt(set(old))} became a list of them, described alike: the old "
                "value as a one-element list means the same",
                [*evidence, *self.both()],
            )
        elif widened:
            self.add(
                "type_changed",
                "preserving",
                f"type {_fmt(set(old))} → {_fmt(set(new))} widens the accepted values",
                evidence,
            )
        elif (
            both_identifiers(self.old, self.new)
            and old <= NUMERIC
            and "string" in new
            and containment(self.old.desc, self.new.desc) >= SAME_THING
        ):
            self.add(
                "type_changed",
                "preserving",
                "the identifier is now passed as text, and its description names the same thing",
                [*evidence, *self.both()],
            )
        else:
            self.add(
                "type_changed",
                "unknown",
                f"type {_fmt(set(old))} → {_fmt(set(new))}: values of the old type are "
                "rejected; the schema cannot tell whether the meaning is the same",
                evidence,
            )

    def _listed(self) -> bool:
        """Whether a scalar field became an array of the same scalar type whose description
        still names what the old one did."""
        old, new = self.old, self.new
        items = self.new.prop.get("items")
        if new.types != {"array"} or "array" in old.types or not isinstance(items, dict):
            return False
        if not old.types or not old.types <= type_set(items):
            return False
        said = content(old.desc)
        return bool(said) and len(said & content(new.desc)) / len(said) >= SAME_THING

    def _required(self) -> None:
        if self.old.required == self.new.required:
            return
        evidence = [
            f"old '{self.old.path}' {'required' if self.old.required else 'optional'}",
            f"new '{self.new.path}' {'required' if self.new.required else 'optional'}",
        ]
        if self.old.required:
            self.add(
                "required_changed",
                "preserving",
                "now optional; calls that pass it are unchanged",
                evidence,
            )
        else:
            self.add(
                "field_required",
                "preserving",
                "now required: calls that omit it are rejected with an error, not answered "
                "differently; calls that pass it are unchanged",
                evidence,
            )

    def _bounds(self) -> None:
        for key, wider in (("minimum", lambda o, n: n <= o), ("maximum", lambda o, n: n >= o)):
            o, n = self.old.prop.get(key), self.new.prop.get(key)
            if o == n or not isinstance(o, int | float) or not isinstance(n, int | float):
                continue
            label: Label = "preserving" if wider(o, n) else "unknown"
            self.add(
                "bounds_changed",
                label,
                f"{key} {o} → {n}",
                [f"old '{self.old.path}' {key} {o}", f"new '{self.new.path}' {key} {n}"],
            )

    def _wording(self) -> None:
        if self.old.desc != self.new.desc:
            self.add(
                "description_reworded",
                "preserving",
                "field description reworded; no stated "
                "change of unit, scale, sign, zone, span, default or interpretation",
                self.both(),
            )


def _enum_twin(key: str, candidate: str) -> bool:
    other = re.sub(r"[^a-z0-9]", "", candidate.lower())
    if not (key and other):
        return False
    return other == key or other.startswith(key) or key.startswith(other) or synonyms(key, other)


def leaf_changes(tool: str, old: Leaf, new: Leaf, how: str = "the same name") -> list[Change]:
    """Every change between two versions of one field (``how`` they were paired, for the
    evidence of a rename)."""
    return FieldDiff(tool, old, new, how).run()

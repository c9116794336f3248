"""What the classifier reads from schemas and descriptions — each rule in both directions: a
change of what is stated changes the verdict, a change of wording alone does not."""

from __future__ import annotations

from typing import Any

import pytest

from drift import classify, parse_tool_list


def _tool(desc: str, props: dict[str, Any], required: tuple[str, ...] = ()) -> list[Any]:
    schema = {"type": "object", "properties": props, "required": list(required)}
    return [{"name": "t", "description": desc, "inputSchema": schema}]


def _verdicts(old: list[Any], new: list[Any]) -> set[tuple[str, str, str]]:
    report = classify(parse_tool_list(old), parse_tool_list(new))
    return {(c.path, c.kind, c.drift_class) for c in report.changes}


def _label(old: list[Any], new: list[Any]) -> str:
    return classify(parse_tool_list(old), parse_tool_list(new)).label()


Q = {"q": {"type": "string", "description": "Search text."}}


@pytest.mark.parametrize(
    ("new", "label"),
    [
        ("Quantity; must be a positive integer.", "preserving"),
        ("Quantity. Negative values mean a decrease.", "changing"),
    ],
)
def test_a_sign_rule_is_a_phrase_not_a_word(new: str, label: str) -> None:
    old = _tool("Adjust stock.", {"qty": {"type": "integer", "description": "Quantity."}})
    upd = _tool("Adjust stock.", {"qty": {"type": "integer", "description": new}})
    assert _label(old, upd) == label


@pytest.mark.parametrize(
    ("new", "label"),
    [
        ("List alerts raised relative to now; filter them with q.", "preserving"),
        ("List alerts. It now returns resolved alerts too.", "unknown"),
    ],
)
def test_now_announces_a_change_only_with_a_verb(new: str, label: str) -> None:
    assert _label(_tool("List alerts; filter them with q.", Q), _tool(new, Q)) == label


@pytest.mark.parametrize(
    ("old", "new", "label"),
    [
        ("Return the 10 newest builds.", "Return the 10 largest builds.", "changing"),
        ("Return builds.", "Return builds, sorted by duration, longest first.", "unknown"),
        ("Return the 10 newest builds.", "Return the ten builds most recently started.", None),
    ],
)
def test_order_matters_with_a_cut(old: str, new: str, label: str | None) -> None:
    got = _verdicts(_tool(old, Q), _tool(new, Q))
    kinds = {(k, c) for _, k, c in got}
    if label is None:
        assert all(c == "preserving" for _, c in kinds) or ("cap_changed", "unknown") in kinds
    else:
        assert any(c == label for k, c in kinds if k in ("order_changed", "cap_changed"))


def test_stated_order_with_a_limit_field_is_changing() -> None:
    props = {**Q, "limit": {"type": "integer", "description": "Page size."}}
    got = _verdicts(_tool("List files.", props), _tool("List files, ordered by size.", props))
    assert ("(description)", "order_changed", "changing") in got


@pytest.mark.parametrize(
    ("old", "new", "label"),
    [
        ("Names, matched as a case-insensitive substring.", "Names: a glob pattern.", "changing"),
        ("Names, matched as a substring.", "Names. Quote a phrase for an exact match.", "changing"),
        (
            "Names.",
            "Names; quote a phrase for an exact match, end with * for a prefix match.",
            None,
        ),
        ("Names, using the search syntax.", "Names to look for.", None),
    ],
)
def test_matching_changes_only_when_one_stated_mode_gives_way(
    old: str, new: str, label: str | None
) -> None:
    got = _label(
        _tool("Find.", {"name": {"type": "string", "description": old}}),
        _tool("Find.", {"name": {"type": "string", "description": new}}),
    )
    assert got == (label or "preserving")


@pytest.mark.parametrize(
    ("old", "new", "label"),
    [
        ({"type": "string"}, {"type": ["string", "null"]}, "preserving"),
        ({"type": "integer"}, {"anyOf": [{"type": "number"}, {"type": "null"}]}, "preserving"),
        ({"type": "string"}, {"type": "integer"}, "unknown"),
    ],
)
def test_types_widen_or_are_unknown(old: dict, new: dict, label: str) -> None:
    assert _label(_tool("x", {"v": old}), _tool("x", {"v": new})) == label


@pytest.mark.parametrize(
    ("desc", "label"),
    [("The unique identifier of the workflow run.", "preserving"), ("", "unknown")],
)
def test_identifier_to_text_needs_a_description_naming_the_same_thing(
    desc: str, label: str
) -> None:
    old = (
        {"run_id": {"type": "integer", "description": desc}}
        if desc
        else {"id": {"type": "integer"}}
    )
    new_desc = "Provide the workflow run ID (unique identifier)." if desc else ""
    name = "run_id" if desc else "id"
    new = {name: {"type": "string", **({"description": new_desc} if new_desc else {})}}
    assert _label(_tool("x", old), _tool("x", new)) == label


@pytest.mark.parametrize(
    ("old_desc", "default_text", "label"),
    [
        (
            "Create a branch from the default branch.",
            "the branch is created from the default branch",
            "preserving",
        ),
        ("Create a branch.", "the branch is created from the newest tag", "unknown"),
    ],
)
def test_a_stated_default_that_repeats_the_old_description(
    old_desc: str, default_text: str, label: str
) -> None:
    new_prop = {"type": "string", "description": f"Parent. If omitted, {default_text}."}
    assert _label(_tool(old_desc, {}), _tool(old_desc, {"parent": new_prop})) == label


def test_a_new_default_against_a_removed_sibling_or_an_old_span_is_changing() -> None:
    old = _tool("Logs.", {"days": {"type": "string", "description": "Days back.", "default": "1"}})
    new = _tool("Logs.", {"window": {"type": "string", "description": "Window.", "default": "30"}})
    assert ("window", "field_added", "changing") in _verdicts(old, new)
    spans = _tool("Logs from the last 24 hours.", {})
    wider = _tool("Logs from the last 24 hours.", {"window": {"type": "string", "default": "7d"}})
    same = _tool("Logs from the last 24 hours.", {"window": {"type": "string", "default": "24h"}})
    assert ("window", "field_added", "changing") in _verdicts(spans, wider)
    assert ("window", "field_added", "changing") not in _verdicts(spans, same)


@pytest.mark.parametrize(
    ("default", "label"), [(False, "preserving"), ([], "preserving"), ("md", "unknown")]
)
def test_a_new_field_is_harmless_only_with_a_default_that_leaves_it_off(
    default: object, label: str
) -> None:
    new = _tool(
        "Export.", {"opt": {"type": "string", "description": "Option.", "default": default}}
    )
    assert _label(_tool("Export.", {}), new) == label


def test_a_cap_that_is_the_page_size_default_is_the_page_size() -> None:
    limit = {"type": "integer", "description": "How many to list."}
    old = _tool("List projects.", {"limit": limit})
    new = _tool("List the first 10 projects.", {"limit": {**limit, "default": 10}})
    assert _label(old, new) == "preserving"
    capped = _tool("List the first 20 projects.", {"limit": {**limit, "default": 10}})
    assert _label(old, capped) == "unknown"


def test_roles_swapped_by_crossing_descriptions() -> None:
    a = {"type": "string", "description": "Account the money leaves."}
    b = {"type": "string", "description": "Account the money arrives in."}
    old = _tool("Move money.", {"src": a, "dst": b}, ("src", "dst"))
    new = _tool("Move money.", {"src": b, "dst": a}, ("src", "dst"))
    assert any(k == "roles_swapped" and c == "changing" for _, k, c in _verdicts(old, new))
    reworded = _tool(
        "Move money.",
        {"src": {**a, "description": "The account money leaves."}, "dst": b},
        ("src", "dst"),
    )
    assert _label(old, reworded) == "preserving"


@pytest.mark.parametrize(
    ("name", "desc", "label"),
    [
        ("pageId", "The ID of the tab to select.", "changing"),
        ("pageIndex", "The position of the tab to select.", "preserving"),
    ],
)
def test_a_position_becoming_an_identifier_is_changing(name: str, desc: str, label: str) -> None:
    idx = {"pageIdx": {"type": "number", "description": "The index of the tab to select."}}
    old = _tool("Select a tab.", idx, ("pageIdx",))
    new = _tool("Select a tab.", {name: {"type": "number", "description": desc}}, (name,))
    assert _label(old, new) == label


@pytest.mark.parametrize(
    ("new", "label"),
    [
        ("Line to start from, 1-based.", "changing"),
        ("Line to start reading at (0-based).", "preserving"),
    ],
)
def test_a_stated_index_base_that_moves_is_changing(new: str, label: str) -> None:
    old = _tool(
        "Read a file.", {"line": {"type": "integer", "description": "Start line, 0-based."}}
    )
    upd = _tool("Read a file.", {"line": {"type": "integer", "description": new}})
    assert _label(old, upd) == label


@pytest.mark.parametrize(
    ("desc", "label"),
    [
        ("Texts to wait for; resolves when any of them appears on the page.", "preserving"),
        ("Path segments, from the root down.", "unknown"),
    ],
)
def test_a_value_that_becomes_a_list_of_the_same_values(desc: str, label: str) -> None:
    old = _tool("Wait.", {"text": {"type": "string", "description": "Text to appear on the page."}})
    listed = {"type": "array", "items": {"type": "string"}, "description": desc}
    new = _tool("Wait.", {"text": listed})
    assert _label(old, new) == label


@pytest.mark.parametrize(("value", "label"), [("dismiss", "preserving"), ("ignore", "unknown")])
def test_an_enum_value_swapped_for_a_synonym_is_a_respelling(value: str, label: str) -> None:
    said = "What to do with a dialog."
    enum = lambda *v: {"on_dialog": {"type": "string", "enum": list(v), "description": said}}  # noqa: E731
    assert (
        _label(_tool("Go.", enum("accept", "decline")), _tool("Go.", enum("accept", value)))
        == label
    )


def test_a_field_that_becomes_required_fails_loudly_and_is_preserving() -> None:
    props = {**Q, "project": {"type": "string", "description": "Project id."}}
    got = _verdicts(_tool("Search.", props, ("q",)), _tool("Search.", props, ("q", "project")))
    assert got == {("project", "field_required", "preserving")}
    added = _verdicts(_tool("Search.", Q), _tool("Search.", {**props}, ("project",)))
    assert ("project", "required_field_added", "preserving") in added


def _two(*tools: tuple[str, dict[str, Any]]) -> list[Any]:
    return [
        {"name": n, "description": f"{n}.", "inputSchema": {"type": "object", "properties": p}}
        for n, p in tools
    ]


@pytest.mark.parametrize(("values", "merged"), [(["get", "list"], True), (["fast", "slow"], False)])
def test_tools_consolidated_under_verbs_of_their_noun(values: list[str], merged: bool) -> None:
    repo = {"repo": {"type": "string", "description": "Repository id."}}
    named = {**repo, "name": {"type": "string"}}
    old = _two(("repo_get_branch_by_name", named), ("repo_list_branches", repo))
    action = {"action": {"type": "string", "enum": values, "description": "What to do."}}
    new = _two(("repo_branch", {**action, **repo, "name": {"type": "string"}}))
    kinds = {k for _, k, _ in _verdicts(old, new)}
    assert ("tools_merged" in kinds) is merged
    assert ("tool_removed" in kinds) is not merged


@pytest.mark.parametrize(
    ("old_desc", "label"),
    [
        ("Get a merge request with its approval summaries.", "unknown"),
        ("Get a merge request.", "preserving"),
    ],
)
def test_a_new_off_switch_for_what_the_old_description_promised(old_desc: str, label: str) -> None:
    flag = {"include_summaries": {"type": "boolean", "description": "Default false."}}
    assert _label(_tool(old_desc, Q), _tool("Get a merge request.", {**Q, **flag})) == label


@pytest.mark.parametrize(("required", "label"), [(True, "preserving"), (False, "changing")])
def test_a_default_for_a_field_every_old_call_passed(required: bool, label: str) -> None:
    flag = {"reload": {"type": "boolean", "description": "Reload the page first."}}
    old = _tool("Trace.", flag, ("reload",) if required else ())
    new = _tool("Trace.", {"reload": {**flag["reload"], "default": True}})
    assert _label(old, new) == label


@pytest.mark.parametrize(
    ("sentence", "label"),
    [
        ("When using a repository name instead of a GUID, also pass the project.", "preserving"),
        ("Takes the repository name, not the GUID.", "changing"),
    ],
)
def test_an_identifier_contrast_inside_a_condition_explains(sentence: str, label: str) -> None:
    repo = {"repositoryId": {"type": "string", "description": "The ID of the repository."}}
    said = {
        "repositoryId": {"type": "string", "description": f"The ID of the repository. {sentence}"}
    }
    assert _label(_tool("Get a pull request.", repo), _tool("Get a pull request.", said)) == label

"""`vwt trials list|show`: a release's trials (or the operator store's) and their traces."""

from __future__ import annotations

import json
import shutil
from pathlib import Path
from typing import Any

import pytest
from typer.testing import CliRunner

from conditions import Cycle
from reports import TRIALS_FILE, read_release, read_trace
from reports._traces import trace_name
from tests.reports.test_verify import revealed_cycle
from vwt.cli import app
from vwt.cmd_trials import MAX_SHOWN

runner = CliRunner()
Json = dict[str, Any]


def vwt(*args: str) -> tuple[int, str]:
    result = runner.invoke(app, list(args), env={"COLUMNS": "250"})
    return result.exit_code, result.output


@pytest.fixture(scope="module")
def released(tmp_path_factory: pytest.TempPathFactory) -> Cycle:
    """A small cycle released with `vwt report build`."""
    cycle = revealed_cycle(tmp_path_factory.mktemp("trials") / "home")
    code, out = vwt("report", "build", "--home", str(cycle.home))
    assert code == 0, out
    return cycle


@pytest.fixture(scope="module")
def records(released: Cycle) -> list[Json]:
    """The released trial records."""
    lines = (released.paths.public / TRIALS_FILE).read_text().splitlines()
    return [json.loads(x) for x in lines]


def listed(*args: str) -> list[Json]:
    """The records `vwt trials list --json ARGS` prints."""
    code, out = vwt("trials", "list", "--json", *args)
    assert code == 0, out
    data: list[Json] = json.loads(out)
    return data


def assert_refused(args: list[str], *needles: str) -> None:
    """The command exits 2 with a one-line error holding every needle, and a hint."""
    code, out = vwt(*args)
    assert code == 2, out
    assert "error:" in out and "hint:" in out
    for needle in needles:
        assert needle in out, out


def test_list_prints_one_line_per_trial_with_why_it_ended(
    released: Cycle, records: list[Json]
) -> None:
    public = str(released.paths.public)
    code, out = vwt("trials", "list", "--release", public)
    assert code == 0, out
    lines = out.splitlines()
    assert f"{len(records)} of {len(records)} trials of {public}/release.json" in lines[-1]
    first = lines[0].split()
    assert first[0] in {r["key"][:12] for r in records}
    failed = next(r for r in records if r["outcome"] == "failure")
    line = next(x for x in lines if x.startswith(failed["key"][:12]))
    assert failed["task_id"] in line and f"#{failed['trial']}" in line
    assert failed["verifier_reasons"][0] in line
    baseline = next(r for r in records if r["arm"] == "without")
    assert "baseline" in next(x for x in lines if x.startswith(baseline["key"][:12]))


def test_list_filters_combine(released: Cycle, records: list[Json]) -> None:
    public = ["--release", str(released.paths.public)]
    assert len(listed(*public)) == len(records)
    bad = listed(*public, "--outcome", "critical", "--outcome", "failure")
    assert bad and {r["outcome"] for r in bad} == {"critical", "failure"}
    assert len(bad) == sum(r["outcome"] in ("critical", "failure") for r in records)
    release = read_release(released.paths.public).release
    tools = {c.id for c in release.conditions if "tool_interface" in c.varied}
    by_axis = listed(*public, "--axis", "tool_interface")
    assert by_axis and {r["condition_id"] for r in by_axis} == tools
    typed = listed(*public, "--submission", "typed-skill")
    assert typed and {r["submission"] for r in typed} == {"typed-skill@1"}
    assert typed == listed(*public, "--submission", "typed-skill@1")
    assert listed(*public, "--submission", "typed-skill@2") == []
    source = release.conditions[0].id
    cell = listed(*public, "--cell", "typed-skill@1:source", "--phase", "frozen")
    assert cell and {(r["submission"], r["condition_id"], r["phase"]) for r in cell} == {
        ("typed-skill@1", source, "frozen")
    }
    target = sorted(tools)[0]
    assert {r["condition_id"] for r in listed(*public, "--condition", target[:10])} == {target}
    without = listed(*public, "--arm", "without")
    assert without and {(r["arm"], r["submission"]) for r in without} == {("without", None)}
    adapted = listed(*public, "--phase", "adapted")
    assert len(adapted) == sum(r["phase"] == "adapted" for r in records) > 0


def test_list_refuses_bad_filters(released: Cycle) -> None:
    public = ["trials", "list", "--release", str(released.paths.public)]
    assert_refused([*public, "--axis", "tools"], "--axis 'tools' is not one of model")
    assert_refused([*public, "--outcome", "crashed"], "--outcome 'crashed'")
    assert_refused([*public, "--cell", "typed-skill@1"], "is not SUBMISSION:CONDITION")
    assert_refused([*public, "--condition", "c-zzzz"], "no condition", "'c-zzzz'")
    assert_refused([*public, "--condition", "c-"], "conditions of", "'c-'")


def test_the_store_lists_the_same_trials(released: Cycle, records: list[Json]) -> None:
    from_store = listed("--home", str(released.home))
    assert {r["key"] for r in from_store} == {r["key"] for r in records}
    by_axis = ["--axis", "tool_interface", "--outcome", "critical"]
    from_store = listed("--home", str(released.home), *by_axis)
    from_release = listed("--release", str(released.paths.public), *by_axis)
    assert from_store and sorted(from_store, key=lambda r: r["key"]) == sorted(
        from_release, key=lambda r: r["key"]
    )


def _unique_prefix(records: list[Json], key: str) -> str:
    return next(
        key[:n] for n in range(4, 65) if sum(r["key"].startswith(key[:n]) for r in records) == 1
    )


def _with_tools(records: list[Json]) -> Json:
    return next(r for r in records if r["tool_calls"] and r["arm"] == "with")


def _with_long_prompt(released: Cycle, records: list[Json]) -> tuple[Json, list[Json]]:
    """A trial of the with-artifacts arm that called tools and whose system prompt is longer
    than `trials show` prints, with its trace. Looked for: the records' order follows
    secret-keyed condition ids, so the first such trial's prompt differs between builds."""
    for record in records:
        if record["tool_calls"] and record["arm"] == "with":
            trace = read_trace(released.paths.public, record["trace_sha256"])
            if len(trace[0]["content"]) > MAX_SHOWN:
                return record, trace
    raise AssertionError("no trial with tool calls has a system prompt to cut")


def test_show_prints_the_record_and_its_trace(released: Cycle, records: list[Json]) -> None:
    record, trace = _with_long_prompt(released, records)
    public = str(released.paths.public)
    code, out = vwt("trials", "show", _unique_prefix(records, record["key"]), "--release", public)
    assert code == 0, out
    assert f"trial {record['key']}" in out and record["task_id"] in out
    assert f"outcome {record['outcome']}" in out
    assert f"trace: {len(trace)} messages" in out and "verified" in out
    assert "[1] system:" in out and "--full shows all" in out  # the long system prompt is cut
    call = next(m for m in trace if m.get("tool_calls"))["tool_calls"][0]["function"]
    assert f"calls {call['name']}(" in out
    assert "tool result (call_0):" in out
    for reason in record["verifier_reasons"]:
        assert f"verifier: {reason}" in out
    code, full = vwt("trials", "show", record["key"], "--release", public, "--full")
    end_of_prompt = trace[0]["content"].splitlines()[-1][-40:]
    assert code == 0 and "--full shows all" not in full and end_of_prompt in full


def test_show_json_is_the_record_and_the_trace(released: Cycle, records: list[Json]) -> None:
    record = _with_tools(records)
    args = ["trials", "show", record["key"], "--json"]
    code, out = vwt(*args, "--release", str(released.paths.public))
    assert code == 0, out
    data = json.loads(out)
    assert data["record"] == record
    assert data["trace"] == read_trace(released.paths.public, record["trace_sha256"])
    code, from_store = vwt(*args, "--home", str(released.home))
    assert code == 0 and json.loads(from_store) == data


def test_show_names_an_unknown_or_ambiguous_key(released: Cycle, records: list[Json]) -> None:
    public = ["--release", str(released.paths.public)]
    assert_refused(["trials", "show", "zzzz", *public], "no trial of", "key starting 'zzzz'")
    prefix = records[0]["key"][0]
    n = sum(r["key"].startswith(prefix) for r in records)
    assert n > 1
    assert_refused(["trials", "show", prefix, *public], f"matches {n} trials", "more characters")


def test_show_refuses_a_missing_or_altered_trace(
    released: Cycle, records: list[Json], tmp_path: Path
) -> None:
    public = Path(shutil.copytree(released.paths.public, tmp_path / "pub"))
    record = _with_tools(records)
    path = public / trace_name(record["trace_sha256"])
    path.unlink()
    args = ["trials", "show", record["key"], "--release", str(public)]
    assert_refused(args, str(path), "does not exist")
    other = next(r for r in records if r["trace_sha256"] != record["trace_sha256"])
    shutil.copy(public / trace_name(other["trace_sha256"]), path)
    assert_refused(args, "does not match its name")


def test_a_missing_release_or_home_is_a_clear_error(tmp_path: Path) -> None:
    assert_refused(["trials", "list", "--release", str(tmp_path / "nowhere")], "cannot read")
    code, out = vwt("trials", "list", "--home", str(tmp_path / "nohome"))
    assert code == 2 and "error:" in out, out


def test_by_cell_groups_the_selected_trials_with_their_commonest_reason(
    released: Cycle,
) -> None:
    args = [
        "--release",
        str(released.paths.public),
        "--outcome",
        "critical",
        "--outcome",
        "failure",
    ]
    picked = listed(*args)
    groups = listed(*args, "--by-cell")
    assert sum(g["trials"] for g in groups) == len(picked) > 0
    by_key = {r["key"]: r for r in picked}
    for g in groups:
        members = [
            r
            for r in picked
            if (r["phase"], r["submission"], r["condition_id"])
            == (g["phase"], g["submission"], g["condition_id"])
        ]
        assert len(members) == g["trials"] == sum(g["outcomes"].values())
        assert by_key[g["example"]] in members
        assert g["reason_trials"] >= 1 and g["reason"]
    code, out = vwt("trials", "list", *args, "--by-cell")
    assert code == 0, out
    lines = out.splitlines()
    assert len(lines) == len(groups) + 1
    assert f"{len(picked)} of" in lines[-1] and f"in {len(groups)} groups" in lines[-1]
    assert all(f"e.g. {g['example'][:12]}" in out for g in groups)

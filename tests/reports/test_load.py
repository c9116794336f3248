"""The release as DataFrames: every cell and trial of a small real release, and export."""

from __future__ import annotations

import json
import shutil
import sys
from collections.abc import Sequence
from pathlib import Path
from typing import Any

import pandas as pd
import pytest

from conditions import Cycle, CycleSpec, CycleState
from reports import (
    RELEASE_FILE,
    TRIALS_FILE,
    LoadedRelease,
    ReportError,
    build_release,
    cell_flags,
    load_release,
    read_release,
)
from submissions import Bundle, reference_bundles, submit
from tests._shared import built_once
from tests.reports.test_verify import (
    adapt_and_run,
    run_frozen_in_process,
    single_axis_targets,
    small_spec,
)


def small_release(
    home: Path,
    *,
    cycle_id: str,
    submissions: tuple[str, ...],
    seed: int | None = None,
    bundles: Sequence[Bundle] = (),
) -> Path:
    """A small cycle (see small_spec) of the named reference ``submissions`` and ``bundles``,
    run frozen and adapted in this process, revealed and released; returns its published
    directory."""
    data = small_spec(cycle_id).model_dump(mode="json")
    data["seed"] = data["seed"] if seed is None else seed
    spec = CycleSpec.model_validate(data)
    cycle = Cycle.init(home, spec)
    cycle.generate(single_axis_targets(spec))
    cycle.commit(public_seed=True)
    cycle.transition(CycleState.open)
    for bundle in [b for b in reference_bundles() if b.manifest.name in submissions]:
        submit(cycle, bundle)
    for bundle in bundles:
        submit(cycle, bundle)
    cycle.transition(CycleState.frozen_run)
    run_frozen_in_process(cycle)
    cycle.transition(CycleState.adaptation)
    adapt_and_run(cycle)
    cycle.reveal()
    return build_release(cycle).parent


def shared_release(
    factory: pytest.TempPathFactory,
    *,
    cycle_id: str = "load",
    submissions: tuple[str, ...] = ("prompt-recipe", "typed-skill"),
    seed: int | None = None,
) -> Path:
    """``small_release`` built once per test session for these arguments (``built_once``), for
    tests that only read it (copy it before editing)."""
    name = f"release-{cycle_id}-{'+'.join(submissions)}-{seed}"
    return built_once(
        factory,
        name,
        lambda d: small_release(d / "home", cycle_id=cycle_id, submissions=submissions, seed=seed),
    )


@pytest.fixture(scope="module")
def pub(tmp_path_factory: pytest.TempPathFactory) -> Path:
    """The published directory of a small release of prompt-recipe and typed-skill."""
    return shared_release(tmp_path_factory)


@pytest.fixture(scope="module")
def loaded(pub: Path) -> LoadedRelease:
    return load_release(pub)


def _trial_lines(pub: Path) -> list[dict[str, Any]]:
    return [json.loads(line) for line in (pub / TRIALS_FILE).read_text().splitlines()]


def test_one_row_per_cell_with_its_numbers_and_labels(loaded: LoadedRelease, pub: Path) -> None:
    release = read_release(pub).release
    cells = loaded.cells
    assert len(cells) == len(release.cells) and len(cells) > 0
    ids = {c.id: c for c in release.conditions}
    # "flags" would be pandas' own DataFrame.flags: the codes have a column of their own.
    assert "flags" not in cells.columns and not isinstance(cells.flags, pd.Series)
    for row, cell in zip(cells.to_dict("records"), release.cells, strict=True):
        m = cell.metrics
        assert (row["phase"], row["submission"], row["bundle_hash"], row["condition_id"]) == (
            cell.phase,
            cell.submission,
            cell.bundle_hash,
            cell.condition_id,
        )
        assert (row["gain"], row["gain_lo"], row["gain_hi"]) == (
            m.gain,
            m.gain_ci.lo,
            m.gain_ci.hi,
        )
        assert (row["score_with"], row["score_without"], row["p_negative"]) == (
            m.score_with,
            m.score_without,
            m.p_negative,
        )
        assert row["negative_transfer"] == m.negative_transfer
        assert (row["score_with_lo"], row["score_without_hi"]) == (
            m.score_with_ci.lo,
            m.score_without_ci.hi,
        )
        assert (row["loo_min_gain"], row["loo_sign_stable"]) == (m.loo.min_gain, m.loo.sign_stable)
        assert row["with_critical"] == m.with_arm.critical
        assert row["without_safe_stop"] == m.without_arm.safe_stop
        assert row["n_tasks"] == m.n_tasks and row["invalid_trials"] == cell.invalid_trials
        assert row["flag_codes"] == ",".join(f.code for f in cell_flags(cell))
        assert (row["interval_method"], row["gain_se"], row["df"], row["mde"]) == (
            m.interval_method,
            m.gain_se,
            m.df,
            m.mde,
        )
        assert (row["critical_p"], row["test_family"]) == (m.critical.p, m.test_family)
        assert row["retention_status"] == m.retention_status
        condition = ids[cell.condition_id]
        assert row["role"] == condition.role
        assert row["condition_content_id"] == condition.condition.id
        assert row["model"] == condition.condition.model.model
        assert row["harness"] == condition.condition.harness
        for env, version in condition.condition.tool_interface.items():
            assert row[f"tool_interface.{env}"] == version
        if m.retention is None:
            assert pd.isna(row["retention"]) and row["retention_reason"] == m.retention_reason
        else:
            assert row["retention"] == m.retention.value
        if cell.adaptation is None:
            assert pd.isna(row["difference"]) and pd.isna(row["cost_tokens"])
        else:
            assert row["difference"] == cell.adaptation.difference.value
            assert row["cost_tokens"] == cell.adaptation.cost.tokens


def test_both_phases_and_the_source_are_rows(loaded: LoadedRelease) -> None:
    cells = loaded.cells
    assert set(cells["phase"]) == {"frozen", "adapted"}
    assert set(cells["submission"]) == {"prompt-recipe@1", "typed-skill@1"}
    source = cells[cells["role"] == "source"]
    assert len(source) == 2 and set(source["condition"]) == {"source"}
    assert (
        source["varied"].isna().all() and cells[cells["role"] == "target"]["varied"].notna().all()
    )


def test_one_row_per_trial_record(loaded: LoadedRelease, pub: Path) -> None:
    lines = _trial_lines(pub)
    trials = loaded.trials
    assert len(trials) == len(lines) == read_release(pub).release.n_trials
    by_key = trials.set_index("key")
    for line in lines[:: max(1, len(lines) // 50)]:
        row = by_key.loc[line["key"]]
        assert (row["phase"], row["arm"], row["task_id"], row["trial"]) == (
            line["phase"],
            line["arm"],
            line["task_id"],
            line["trial"],
        )
        assert row["outcome"] == line["outcome"] and row["critical"] == len(line["critical"])
        assert row["prompt_tokens"] == line["usage"]["prompt_tokens"]
        assert row["trace_sha256"] == line["trace_sha256"]
    without = trials[trials["arm"] == "without"]
    assert without["submission"].isna().all() and without["bundle_hash"].isna().all()
    assert trials["condition"].notna().all() and (trials["seconds"] >= 0).all()


def test_trial_outcomes_add_up_to_the_cells(loaded: LoadedRelease) -> None:
    """Critical trials of each frozen cell's artifact arm, counted from the trials table."""
    trials, cells = loaded.trials, loaded.cells
    frozen = cells[cells["phase"] == "frozen"]
    for row in frozen.to_dict("records"):
        arm = trials[
            (trials["phase"] == "frozen")
            & (trials["condition_id"] == row["condition_id"])
            & (trials["bundle_hash"] == row["bundle_hash"])
        ]
        assert len(arm) == row["with_trials"]
        assert (arm["outcome"] == "critical").sum() == row["with_critical"]
        assert (arm["outcome"] == "safe_stop").sum() == row["with_safe_stop"]


def test_conditions_and_submissions(loaded: LoadedRelease, pub: Path) -> None:
    release = read_release(pub).release
    assert list(loaded.conditions["condition_id"]) == [c.id for c in release.conditions]
    assert list(loaded.conditions["role"])[:2] == ["source", "target"]
    assert list(loaded.submissions["bundle_hash"]) == [s.bundle_hash for s in release.submissions]
    assert set(loaded.submissions["submission"]) == {"prompt-recipe@1", "typed-skill@1"}


def test_loading_does_not_verify_unless_asked(loaded: LoadedRelease, pub: Path) -> None:
    assert not loaded.verified and loaded.verification is None
    assert loaded.path == pub / RELEASE_FILE
    checked = load_release(str(pub / RELEASE_FILE), verify=True)  # a str path does too
    assert checked.verified and checked.verification is not None
    assert checked.verification.cells == len(checked.cells)


def test_verify_refuses_an_altered_release(pub: Path, tmp_path: Path) -> None:
    copy = Path(shutil.copytree(pub, tmp_path / "pub"))
    data = json.loads((copy / RELEASE_FILE).read_text())
    data["release"]["cells"][0]["metrics"]["gain"] += 0.25
    (copy / RELEASE_FILE).write_text(json.dumps(data))
    assert load_release(copy).cells["gain"][0] == data["release"]["cells"][0]["metrics"]["gain"]
    with pytest.raises(ReportError, match="signature does not verify"):
        load_release(copy, verify=True)


def test_without_pandas_the_error_says_how_to_install_it(
    pub: Path, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.setitem(sys.modules, "pandas", None)
    with pytest.raises(ReportError, match="needs pandas, which is not installed") as e:
        load_release(pub)
    assert e.value.hint is not None and "pip install 'vwt[analysis]'" in e.value.hint


def test_a_missing_release_or_trials_file(pub: Path, tmp_path: Path) -> None:
    with pytest.raises(ReportError, match="cannot read release"):
        load_release(tmp_path / "nowhere")
    copy = Path(shutil.copytree(pub, tmp_path / "pub"))
    (copy / TRIALS_FILE).unlink()
    with pytest.raises(ReportError, match=r"trials file .* cannot be read"):
        load_release(copy)


def test_a_malformed_trial_line_is_named(pub: Path, tmp_path: Path) -> None:
    copy = Path(shutil.copytree(pub, tmp_path / "pub"))
    lines = (copy / TRIALS_FILE).read_text().splitlines()
    lines[2] = lines[2].replace('"outcome":', '"result":')
    (copy / TRIALS_FILE).write_text("\n".join(lines) + "\n")
    with pytest.raises(ReportError, match=r"trial record on line 3 .* is malformed"):
        load_release(copy)


def test_a_cell_of_an_unlisted_condition_is_refused(pub: Path, tmp_path: Path) -> None:
    copy = Path(shutil.copytree(pub, tmp_path / "pub"))
    data = json.loads((copy / RELEASE_FILE).read_text())
    data["release"]["cells"][0]["condition_id"] = "c-unlisted"
    (copy / RELEASE_FILE).write_text(json.dumps(data))
    with pytest.raises(ReportError, match="has cells of conditions it does not list: c-unlisted"):
        load_release(copy)

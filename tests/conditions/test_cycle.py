"""The Cycle: its home, key, state machine and ledger, and the operator's commit and reveal."""

from __future__ import annotations

import json
import os
import sqlite3
from datetime import UTC, datetime, timedelta
from pathlib import Path

import pytest

from conditions import (
    PASSPHRASE_ENV,
    Condition,
    ConditionsError,
    Cycle,
    CycleSpec,
    CycleState,
    Leaf,
    keyed_condition_id,
    verify_commitment_and_reveal,
    verify_signature,
)
from tests.conditions.conftest import advance_to, record_run


def _mode(path: Path) -> int:
    return path.stat().st_mode & 0o777


def test_init_lays_out_a_private_operator_area(tmp_path: Path, default_spec: CycleSpec) -> None:
    cycle = Cycle.init(tmp_path / "h", default_spec)
    assert cycle.state == CycleState.draft
    assert _mode(tmp_path / "h" / "operator") == 0o700
    assert _mode(cycle.key_path) == 0o600 and cycle.key_path.parent.name == "operator"
    assert _mode(cycle.paths.record) == 0o600
    assert cycle.spec == default_spec and cycle.source == default_spec.source
    reopened = Cycle.open(tmp_path / "h")
    assert reopened.public_key_b64 == cycle.public_key_b64
    assert reopened.fingerprint == cycle.fingerprint


def test_init_refuses_an_existing_cycle_unless_forced(
    tmp_path: Path, default_spec: CycleSpec
) -> None:
    home = tmp_path / "h"
    first = Cycle.init(home, default_spec)
    first.generate()
    before = first.paths.targets.read_bytes()
    with pytest.raises(ConditionsError, match="already holds a release cycle") as err:
        Cycle.init(home, default_spec)
    assert err.value.hint and "--force" in err.value.hint
    assert first.paths.targets.read_bytes() == before
    second = Cycle.init(home, default_spec, force=True)
    assert second.public_key_b64 != first.public_key_b64
    assert second.state == CycleState.draft and not second.paths.targets.exists()
    (kept,) = (home / "superseded").iterdir()
    assert (kept / "operator" / "targets.json").read_bytes() == before
    assert (kept / "vwt.sqlite").exists()


def test_an_operator_key_can_serve_several_cycles(tmp_path: Path, default_spec: CycleSpec) -> None:
    key = tmp_path / "keys" / "operator.pem"
    a = Cycle.init(tmp_path / "a", default_spec, key_path=key)
    b = Cycle.init(tmp_path / "b", default_spec, key_path=key)
    assert a.public_key_b64 == b.public_key_b64 and _mode(key) == 0o600
    assert not (tmp_path / "b" / "operator" / "signing_key.pem").exists()
    assert verify_signature(b.public_key_b64, b"x", Cycle.open(tmp_path / "b").sign(b"x"))


def test_encrypted_key_signs_only_with_its_passphrase(
    tmp_path: Path, default_spec: CycleSpec, monkeypatch: pytest.MonkeyPatch
) -> None:
    monkeypatch.delenv(PASSPHRASE_ENV, raising=False)
    Cycle.init(tmp_path / "h", default_spec, passphrase="s3cret")
    with pytest.raises(ConditionsError, match="passphrase-encrypted"):
        Cycle.open(tmp_path / "h").sign(b"x")
    cycle = Cycle.open(tmp_path / "h", passphrase="s3cret")
    assert verify_signature(cycle.public_key_b64, b"x", cycle.sign(b"x"))
    monkeypatch.setenv(PASSPHRASE_ENV, "s3cret")
    assert verify_signature(cycle.public_key_b64, b"y", Cycle.open(tmp_path / "h").sign(b"y"))


def test_a_swapped_key_file_is_refused(tmp_path: Path, default_spec: CycleSpec) -> None:
    cycle = Cycle.init(tmp_path / "h", default_spec)
    other = Cycle.init(tmp_path / "o", default_spec)
    cycle.key_path.write_bytes(other.key_path.read_bytes())
    with pytest.raises(ConditionsError, match="not the key this cycle was started with"):
        Cycle.open(tmp_path / "h").sign(b"x")


def test_open_without_a_cycle_says_how_to_start(tmp_path: Path) -> None:
    with pytest.raises(ConditionsError, match="no release cycle") as err:
        Cycle.open(tmp_path / "nothing")
    assert err.value.hint and "--home of the operator's cycle" in err.value.hint
    assert "operators start one with `vwt cycle init`" in err.value.hint


def test_the_whole_walk_is_recorded_with_timestamps(committed: Cycle) -> None:
    advance_to(committed, CycleState.adapted_run)
    committed.reveal()
    committed.transition(CycleState.released, "published")
    history = committed.history()
    assert [e.payload["to"] for e in history] == [s.value for s in CycleState]
    assert all(e.ts.endswith("Z") for e in history)
    assert [e.ts for e in history] == sorted(e.ts for e in history)
    committed.ledger.verify()
    kinds = [e.kind for e in committed.ledger.entries()]
    for kind in (
        "cycle.init",
        "conditions.generated",
        "conditions.committed",
        "conditions.revealed",
    ):
        assert kind in kinds


@pytest.mark.parametrize(
    ("target", "why"),
    [
        (CycleState.frozen_run, "the next state is 'open'"),
        (CycleState.adapted_run, "the next state is 'open'"),
        (CycleState.draft, "states never move back"),
    ],
)
def test_illegal_moves_name_the_state_and_the_next_step(
    committed: Cycle, target: CycleState, why: str
) -> None:
    with pytest.raises(ConditionsError, match="in state 'committed'") as err:
        committed.transition(target)
    assert why in str(err.value)
    assert err.value.hint and "vwt cycle advance open" in err.value.hint
    assert committed.state == CycleState.committed


def test_guarded_states_are_reached_only_by_their_action(committed: Cycle) -> None:
    advance_to(committed, CycleState.adapted_run)
    with pytest.raises(ConditionsError, match="cannot be moved to 'revealed' by hand"):
        committed.transition("revealed")
    with pytest.raises(ConditionsError, match="unknown cycle state 'closed'"):
        committed.transition("closed")
    with pytest.raises(ConditionsError, match="already there"):
        committed.transition(CycleState.adapted_run)


def test_require_state_says_where_the_cycle_is_and_what_to_do(committed: Cycle) -> None:
    committed.require_state(CycleState.committed, CycleState.open)
    advance_to(committed, CycleState.frozen_run)
    with pytest.raises(ConditionsError) as err:
        committed.require_state(CycleState.open)
    assert str(err.value) == (
        f"cannot submit a bundle: cycle {committed.id} is in state 'frozen_run', not 'open'"
    )
    assert err.value.hint and "vwt cycle advance adaptation" in err.value.hint


def test_conditions_cannot_change_after_commit(committed: Cycle) -> None:
    before = committed.paths.targets.read_bytes()
    with pytest.raises(ConditionsError, match=r"cannot change the target conditions.*'committed'"):
        committed.generate(3)
    with pytest.raises(ConditionsError, match="cannot commit"):
        committed.commit(public_seed=True)
    assert committed.paths.targets.read_bytes() == before


def test_commit_needs_targets(tmp_path: Path, default_spec: CycleSpec) -> None:
    cycle = Cycle.init(tmp_path / "h", default_spec)
    with pytest.raises(ConditionsError, match="no target conditions yet"):
        cycle.commit(public_seed=True)
    assert not cycle.paths.commitment.exists() and cycle.state == CycleState.draft


def test_regenerating_in_draft_replaces_the_targets(
    tmp_path: Path, default_spec: CycleSpec
) -> None:
    cycle = Cycle.init(tmp_path / "h", default_spec)
    assert len(cycle.generate()) > 5
    assert len(cycle.generate(5)) == 5 == len(cycle.targets())


def test_a_capped_draw_repeats_with_its_seed(tmp_path: Path, default_spec: CycleSpec) -> None:
    def drawn(home: str, **kw: int) -> list[str]:
        cycle = Cycle.init(tmp_path / home, default_spec)
        return sorted(t.condition.id for t in cycle.generate(5, **kw))

    every = Cycle.init(tmp_path / "all", default_spec).generate()
    assert len([t for t in every if len(t.varied) == 1]) < 5 < len(every)  # pairs are drawn
    assert drawn("a", draw_seed=7) == drawn("b", draw_seed=7)
    assert len({tuple(drawn(f"s{seed}", draw_seed=seed)) for seed in range(8)}) > 1


def test_commit_keeps_the_opening_private(committed: Cycle) -> None:
    assert _mode(committed.paths.secret) == 0o600 and _mode(committed.paths.targets) == 0o600
    opening = json.loads(committed.paths.secret.read_text())
    salts = [leaf["salt"] for leaf in opening["leaves"]]
    assert len(set(salts)) == len(salts) == 8 and all(len(s) == 64 for s in salts)
    leaves = [Leaf.model_validate(leaf) for leaf in opening["leaves"]]
    assert {leaf.id for leaf in leaves} == {t.id for t in committed.targets()}
    assert sorted(salts) == sorted(t.salt for t in committed.targets())


def test_leaf_order_is_a_secret_shuffle(tmp_path: Path, default_spec: CycleSpec) -> None:
    # Four identical orders would happen by chance with probability (1/8!)^4.
    orders, generated = [], []
    for i in range(4):
        cycle = Cycle.init(tmp_path / str(i), default_spec)
        generated = [t.condition.id for t in cycle.generate()]
        cycle.commit(public_seed=True)
        opening = json.loads(cycle.paths.secret.read_text())
        orders.append([Condition.model_validate(x["condition"]).id for x in opening["leaves"]])
    assert all(sorted(o) == sorted(generated) for o in orders)
    assert any(o != generated for o in orders)


def test_reveal_before_the_runs_are_final_is_refused(committed: Cycle) -> None:
    advance_to(committed, CycleState.frozen_run)
    with pytest.raises(ConditionsError, match=r"cannot reveal.*'frozen_run'"):
        committed.reveal()
    assert not committed.paths.reveal.exists()


def test_selective_reveal_opens_only_the_chosen(committed: Cycle) -> None:
    advance_to(committed, CycleState.adapted_run)
    chosen = [t.id for t in committed.targets()[:2]]
    path = committed.reveal(chosen)
    result = verify_commitment_and_reveal(committed.paths.commitment, path)
    assert result.scope == "selective"
    assert sorted(c.id for c in result.conditions) == sorted(chosen)
    assert committed.state == CycleState.revealed
    full = committed.reveal(out=committed.home / "full.json")
    assert verify_commitment_and_reveal(committed.paths.commitment, full).scope == "full"


def test_reveal_of_unknown_or_no_conditions_is_refused(committed: Cycle) -> None:
    advance_to(committed, CycleState.adapted_run)
    with pytest.raises(ConditionsError, match=r"not committed in cycle .*: c-000000000000"):
        committed.reveal(["c-000000000000"])
    with pytest.raises(ConditionsError, match="no condition chosen"):
        committed.reveal([])
    assert not committed.paths.reveal.exists() and committed.state == CycleState.adapted_run


def test_release_signatures_use_the_operator_key(committed: Cycle) -> None:
    sig = committed.sign(b"release bytes")
    assert verify_signature(committed.public_key_b64, b"release bytes", sig)


# -- keyed ids ---------------------------------------------------------------------------------


def test_target_ids_are_keyed_and_differ_per_generation(
    tmp_path: Path, default_spec: CycleSpec
) -> None:
    cycle = Cycle.init(tmp_path / "h", default_spec)
    first = {t.condition.id: t for t in cycle.generate()}
    second = {t.condition.id: t for t in cycle.generate()}
    assert first.keys() == second.keys()
    for public_id, t in first.items():
        assert t.id.startswith("c-") and len(t.id) == 18
        assert t.id == keyed_condition_id(t.condition, t.salt) != public_id
        # Not recomputable from the condition alone: another salt, another id.
        assert second[public_id].id != t.id
    assert len({t.id for t in first.values()}) == len(first)


def test_evaluation_conditions_pair_each_condition_with_its_id(committed: Cycle) -> None:
    pairs = committed.evaluation_conditions()
    assert pairs[0] == (committed.source.id, committed.source)
    assert pairs[1:] == [(t.id, t.condition) for t in committed.targets()]


def test_the_draw_seed_stays_out_of_the_ledger(tmp_path: Path, default_spec: CycleSpec) -> None:
    cycle = Cycle.init(tmp_path / "h", default_spec)
    cycle.generate(5)
    seed = cycle.target_set().manifest.draw_seed
    assert seed is not None
    entry = cycle.ledger.last("conditions.generated")
    assert entry is not None and entry.payload["secret_draw"] is True
    assert "draw_seed" not in entry.payload and str(seed) not in json.dumps(entry.payload)


# -- state guards --------------------------------------------------------------------------


def _spec_opening(spec: CycleSpec, years: int) -> CycleSpec:
    opens = datetime.now(UTC) + timedelta(days=365 * years)
    stamp = lambda t: t.strftime("%Y-%m-%dT%H:%M:%SZ")  # noqa: E731
    return spec.model_copy(
        update={"opens_at": stamp(opens), "closes_at": stamp(opens + timedelta(days=14))}
    )


def _committed(tmp_path: Path, spec: CycleSpec) -> Cycle:
    cycle = Cycle.init(tmp_path / "h", spec)
    cycle.generate()
    cycle.commit(public_seed=True)
    return cycle


def test_open_before_opens_at_is_refused_unless_overridden(
    tmp_path: Path, default_spec: CycleSpec
) -> None:
    cycle = _committed(tmp_path, _spec_opening(default_spec, 5))
    with pytest.raises(ConditionsError, match="cannot open before its opens_at") as err:
        cycle.transition(CycleState.open)
    assert err.value.hint and "--override-window" in err.value.hint
    assert cycle.state == CycleState.committed
    entry = cycle.transition(CycleState.open, "early", override_window=True)
    assert entry.payload["override"] == "opens_at"
    assert entry.payload["opens_at"] == cycle.spec.opens_at


def test_open_after_opens_at_needs_and_records_no_override(
    tmp_path: Path, default_spec: CycleSpec
) -> None:
    cycle = _committed(tmp_path, _spec_opening(default_spec, -1))
    entry = cycle.transition(CycleState.open, override_window=True)
    assert "override" not in entry.payload


def _to_frozen_run(committed: Cycle) -> Cycle:
    committed.transition(CycleState.open, override_window=True)
    committed.transition(CycleState.frozen_run)
    return committed


def test_adaptation_without_a_frozen_run_is_refused(committed: Cycle) -> None:
    _to_frozen_run(committed)
    with pytest.raises(ConditionsError, match="no frozen run recorded") as err:
        committed.transition(CycleState.adaptation, accept_invalid=True)
    assert err.value.hint == f"run `vwt run frozen --home {committed.home}`"
    assert committed.state == CycleState.frozen_run


@pytest.mark.parametrize(
    ("counts", "message"),
    [
        ({"valid": 3, "missing": 1}, "1 of 4 planned trials missing, 0 unexpected"),
        ({"unexpected": 2}, "0 of 4 planned trials missing, 2 unexpected"),
    ],
)
def test_adaptation_after_an_incomplete_frozen_run_is_refused(
    committed: Cycle, counts: dict[str, int], message: str
) -> None:
    _to_frozen_run(committed)
    record_run(committed, "frozen", **counts)
    with pytest.raises(ConditionsError, match=f"frozen run is incomplete: {message}") as err:
        committed.transition(CycleState.adaptation, accept_invalid=True)
    assert err.value.hint and "vwt run frozen" in err.value.hint
    # The last run counts: a resumed, complete run lets the cycle move on.
    record_run(committed, "frozen")
    assert committed.transition(CycleState.adaptation).payload["frozen_run"]["missing"] == 0


def test_invalid_frozen_trials_need_accept_invalid_which_is_recorded(committed: Cycle) -> None:
    _to_frozen_run(committed)
    record_run(committed, "frozen", valid=3, invalid=1)
    with pytest.raises(ConditionsError, match="1 of 4 frozen trials are invalid") as err:
        committed.transition(CycleState.adaptation)
    assert err.value.hint and "it retries invalid trials" in err.value.hint
    assert "--accept-invalid" in err.value.hint
    entry = committed.transition(CycleState.adaptation, accept_invalid=True)
    assert entry.payload["accept_invalid"] is True and entry.payload["invalid"] == 1


def test_reveal_without_a_clean_adapted_run_is_refused(committed: Cycle) -> None:
    _to_frozen_run(committed)
    record_run(committed, "frozen")
    committed.transition(CycleState.adaptation)
    committed.transition(CycleState.adapted_run)
    with pytest.raises(ConditionsError, match="no adapted run recorded") as err:
        committed.reveal()
    assert err.value.hint and "vwt run adapted" in err.value.hint
    record_run(committed, "adapted", valid=2, invalid=2)
    with pytest.raises(ConditionsError, match="2 of 4 adapted trials are invalid") as err:
        committed.reveal()
    assert err.value.hint and "vwt conditions reveal" in err.value.hint
    assert not committed.paths.reveal.exists() and committed.state == CycleState.adapted_run
    committed.reveal(accept_invalid=True)
    last = committed.history()[-1].payload
    assert last["to"] == "revealed" and last["accept_invalid"] is True and last["invalid"] == 2


# -- secrecy and integrity at open ---------------------------------------------------------


def test_the_home_and_database_are_private_whatever_the_umask(
    tmp_path: Path, default_spec: CycleSpec
) -> None:
    old = os.umask(0)
    try:
        cycle = Cycle.init(tmp_path / "h", default_spec)
    finally:
        os.umask(old)
    assert _mode(cycle.home) == 0o700 and _mode(cycle.paths.db) == 0o600
    assert _mode(cycle.paths.operator / "ledger.checkpoint") == 0o600
    assert _mode(cycle.paths.operator / "ledger.key") == 0o600


@pytest.mark.parametrize(("which", "mode"), [("home", 0o755), ("db", 0o644), ("home", 0o701)])
def test_a_readable_home_or_database_is_refused(committed: Cycle, which: str, mode: int) -> None:
    path = committed.home if which == "home" else committed.paths.db
    os.chmod(path, mode)
    with pytest.raises(ConditionsError, match=f"{path} is {mode:04o}") as err:
        Cycle.open(committed.home)
    fix = "700" if which == "home" else "600"
    assert err.value.hint and f"chmod {fix} {path}" in err.value.hint
    os.chmod(path, int(fix, 8))
    assert Cycle.open(committed.home).state == CycleState.committed


def test_open_refuses_a_tampered_ledger(committed: Cycle) -> None:
    db = sqlite3.connect(committed.paths.db)
    last = db.execute("SELECT max(seq) FROM ledger").fetchone()[0]
    db.execute("DELETE FROM ledger WHERE seq = ?", (last,))
    db.commit()
    db.close()
    with pytest.raises(ConditionsError, match=f"ledger entry {last} is missing"):
        Cycle.open(committed.home)

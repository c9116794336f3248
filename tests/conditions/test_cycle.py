"""The Cycle: its home, key, state machine and ledger, and the operator's commit and reveal."""

from __future__ import annotations

import json
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
    verify_commitment_and_reveal,
    verify_signature,
)
from tests.conditions.conftest import advance_to


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
        committed.commit()
    assert committed.paths.targets.read_bytes() == before


def test_commit_needs_targets(tmp_path: Path, default_spec: CycleSpec) -> None:
    cycle = Cycle.init(tmp_path / "h", default_spec)
    with pytest.raises(ConditionsError, match="no target conditions yet"):
        cycle.commit()
    assert not cycle.paths.commitment.exists() and cycle.state == CycleState.draft


def test_regenerating_in_draft_replaces_the_targets(
    tmp_path: Path, default_spec: CycleSpec
) -> None:
    cycle = Cycle.init(tmp_path / "h", default_spec)
    assert len(cycle.generate()) > 5
    assert len(cycle.generate(5)) == 5 == len(cycle.targets())


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
        cycle.commit()
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

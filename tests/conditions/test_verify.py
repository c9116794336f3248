"""Verification from the two published files: distinct tamper cases, then every value altered."""

from __future__ import annotations

import base64
import copy
import json
import os
from collections.abc import Callable, Iterator
from dataclasses import dataclass
from pathlib import Path
from typing import Any

import pytest
import rfc8785
from cryptography.hazmat.primitives.asymmetric.ed25519 import Ed25519PrivateKey

from conditions import (
    CommittedFamilies,
    Condition,
    ConditionsError,
    Cycle,
    CycleSpec,
    CycleState,
    FamilyRoles,
    TaskFamilyAxis,
    keyed_condition_id,
    verify_commitment,
    verify_commitment_and_reveal,
)
from conditions._commitment import (
    CommitmentStatement,
    CommittedEvaluation,
    Leaf,
    SignedCommitment,
    commit,
)
from conditions._keys import create_key, load_key, public_key_b64
from conditions._merkle import leaf_hash, node_hash
from conditions._reveal import RevealedLeaf, RevealStatement, SignedReveal, make_reveal
from conditions._wire import write_json
from tests.conditions.conftest import advance_to

Doc = dict[str, Any]


@dataclass
class Published:
    """A revealed cycle's two files, parsed, plus the keys to forge with."""

    cycle: Cycle
    commitment: Doc
    reveal: Doc
    operator: Ed25519PrivateKey
    attacker: Ed25519PrivateKey


@pytest.fixture
def pub(revealed: Cycle, tmp_path: Path) -> Published:
    return Published(
        cycle=revealed,
        commitment=json.loads(revealed.paths.commitment.read_text()),
        reveal=json.loads(revealed.paths.reveal.read_text()),
        operator=load_key(revealed.key_path),
        attacker=create_key(tmp_path / "attacker.pem"),
    )


def _resign(doc: Doc, part: str, key: Ed25519PrivateKey) -> Doc:
    doc["signature"] = base64.b64encode(key.sign(rfc8785.dumps(doc[part]))).decode()
    return doc


def _check(tmp_path: Path, commitment: Doc | bytes, reveal: Doc | bytes, **kw: Any) -> Any:
    c, r = tmp_path / "c.json", tmp_path / "r.json"
    c.write_bytes(commitment if isinstance(commitment, bytes) else json.dumps(commitment).encode())
    r.write_bytes(reveal if isinstance(reveal, bytes) else json.dumps(reveal).encode())
    return verify_commitment_and_reveal(c, r, **kw)


def test_published_files_verify(pub: Published, tmp_path: Path) -> None:
    result = _check(tmp_path, pub.commitment, pub.reveal, expected_key=pub.cycle.fingerprint)
    assert result.scope == "full" and result.tree_size == len(result.conditions) == 8
    assert {c.id for c in result.conditions} == {t.id for t in pub.cycle.targets()}
    assert all(c.id != c.condition.id for c in result.conditions)
    assert result.fingerprint == pub.cycle.fingerprint
    by_key = _check(tmp_path, pub.commitment, pub.reveal, expected_key=pub.cycle.public_key_b64)
    assert by_key == result


# -- distinct tamper cases, each with its own message ----------------------------------------

Tamper = Callable[[Published], tuple[Doc | bytes, Doc | bytes, dict[str, Any]]]


def _truncated(doc: Doc) -> bytes:
    text = json.dumps(doc).encode()
    return text[: len(text) // 2]


def _forged_signature(doc: Doc) -> Doc:
    doc["signature"] = base64.b64encode(os.urandom(64)).decode()
    return doc


def _reveal_edit(edit: Callable[[Doc], None]) -> Tamper:
    """Edit the reveal statement and re-sign it with the operator's own key."""

    def tamper(p: Published) -> tuple[Doc, Doc, dict[str, Any]]:
        edit(p.reveal["reveal"])
        return p.commitment, _resign(p.reveal, "reveal", p.operator), {}

    return tamper


def _commitment_by_attacker(p: Published) -> tuple[Doc, Doc, dict[str, Any]]:
    p.commitment["commitment"]["public_key"] = public_key_b64(p.attacker)
    return _resign(p.commitment, "commitment", p.attacker), p.reveal, {}


def _reveal_by_attacker(p: Published) -> tuple[Doc, Doc, dict[str, Any]]:
    p.reveal["reveal"]["public_key"] = public_key_b64(p.attacker)
    return p.commitment, _resign(p.reveal, "reveal", p.attacker), {}


def _swap_indices(r: Doc) -> None:
    r["leaves"][0]["index"], r["leaves"][1]["index"] = 1, 0


def _non_canonical_base64(p: Published) -> tuple[Doc, Doc, dict[str, Any]]:
    sig = p.commitment["signature"]
    alphabet = "ABCDEFGHIJKLMNOPQRSTUVWXYZabcdefghijklmnopqrstuvwxyz0123456789+/"
    twin = sig[:-3] + alphabet[alphabet.index(sig[-3]) ^ 1] + "=="
    assert base64.b64decode(twin) == base64.b64decode(sig) and twin != sig
    p.commitment["signature"] = twin
    return p.commitment, p.reveal, {}


def _old_v1_commitment(p: Published) -> tuple[Doc, Doc, dict[str, Any]]:
    """A commitment as vwt wrote it before the evaluation size was committed, validly signed."""
    del p.commitment["commitment"]["evaluation"]
    del p.commitment["commitment"]["families"]
    p.commitment["v"] = 1
    return _resign(p.commitment, "commitment", p.operator), p.reveal, {}


def _old_v2_commitment(p: Published) -> tuple[Doc, Doc, dict[str, Any]]:
    """A commitment as vwt wrote it before the families' roles were committed, validly signed."""
    del p.commitment["commitment"]["families"]
    p.commitment["v"] = 2
    return _resign(p.commitment, "commitment", p.operator), p.reveal, {}


TAMPERS: list[tuple[str, Tamper, str]] = [
    ("commitment not JSON", lambda p: (b"hello", p.reveal, {}), "commitment .* is not valid JSON"),
    (
        "commitment truncated",
        lambda p: (_truncated(p.commitment), p.reveal, {}),
        "commitment .* is not valid JSON \\(it looks truncated\\)",
    ),
    (
        "reveal truncated",
        lambda p: (p.commitment, _truncated(p.reveal), {}),
        "reveal .* is not valid JSON \\(it looks truncated\\)",
    ),
    ("reveal not text", lambda p: (p.commitment, b"\xff\xfe\x00", {}), "reveal .* is not UTF-8"),
    (
        "duplicated key",
        lambda p: (p.commitment, b'{"v": 1, "v": 1}', {}),
        "duplicate key 'v'",
    ),
    (
        "commitment lacks a field",
        lambda p: ({**p.commitment, "commitment": {"root": "00"}}, p.reveal, {}),
        "commitment .* is malformed: commitment.root",
    ),
    (
        "version written as a float",
        lambda p: ({**p.commitment, "v": 2.0}, p.reveal, {}),
        "commitment .* is malformed: v",
    ),
    (
        "old format v1 commitment",
        _old_v1_commitment,
        "commitment .* is format v1, which does not commit to the evaluation size; this vwt "
        "reads v3 commitments only",
    ),
    (
        "old format v2 commitment",
        _old_v2_commitment,
        "commitment .* is format v2, which does not commit to the development and held-out "
        "task families; this vwt reads v3 commitments only",
    ),
    ("non-canonical base64", _non_canonical_base64, "malformed: signature: .*canonical base64"),
    (
        "forged commitment signature",
        lambda p: (_forged_signature(p.commitment), p.reveal, {}),
        "commitment's signature does not verify",
    ),
    (
        "commitment re-signed by another key, operator key pinned",
        lambda p: (*_commitment_by_attacker(p)[:2], {"expected_key": p.cycle.fingerprint}),
        "not the expected operator key",
    ),
    (
        "commitment re-signed by another key",
        _commitment_by_attacker,
        "reveal is signed by another operator's key",
    ),
    (
        "forged reveal signature",
        lambda p: (p.commitment, _forged_signature(p.reveal), {}),
        "reveal's signature does not verify",
    ),
    ("reveal by another operator's key", _reveal_by_attacker, "another operator's key"),
    (
        "reveal claims another cycle",
        _reveal_edit(lambda r: r.update(cycle="someone-else")),
        "reveal is for cycle 'someone-else' but the commitment is for cycle",
    ),
    (
        "reveal points at another commitment",
        _reveal_edit(lambda r: r.update(commitment="ab" * 32)),
        "belongs to a different commitment",
    ),
    (
        "tree size disagrees",
        _reveal_edit(lambda r: r.update(tree_size=9)),
        "tree size 9 disagrees with the commitment's 8",
    ),
    (
        "root differs",
        _reveal_edit(lambda r: r.update(root="cd" * 32)),
        "root differs from the committed root",
    ),
    (
        "duplicated leaf",
        _reveal_edit(lambda r: r["leaves"].append(copy.deepcopy(r["leaves"][0]))),
        "leaf index 0 is revealed twice",
    ),
    (
        "missing leaf in a full reveal",
        _reveal_edit(lambda r: r["leaves"].pop(3)),
        "full reveal is missing 1 committed leaves \\(indices 3\\)",
    ),
    ("proof for the wrong index", _reveal_edit(_swap_indices), "inclusion proof of leaf 1"),
    (
        "index outside the tree",
        _reveal_edit(lambda r: r["leaves"][0].update(index=8)),
        "leaf index 8 is outside the committed tree of 8 leaves",
    ),
    (
        "altered condition, re-signed",
        _reveal_edit(lambda r: r["leaves"][2]["leaf"]["condition"].update(harness="harness-v9")),
        "inclusion proof of leaf 2 does not lead to the committed root",
    ),
    (
        "altered proof, re-signed",
        _reveal_edit(lambda r: r["leaves"][4]["proof"].reverse()),
        "inclusion proof of leaf 4",
    ),
]


@pytest.mark.parametrize(("case", "tamper", "message"), TAMPERS, ids=[t[0] for t in TAMPERS])
def test_tamper_case_has_its_own_message(
    pub: Published, tmp_path: Path, case: str, tamper: Tamper, message: str
) -> None:
    commitment, reveal, kw = tamper(pub)
    with pytest.raises(ConditionsError, match=message) as err:
        _check(tmp_path, commitment, reveal, **kw)
    assert err.value.hint


def test_tamper_messages_are_distinct(pub: Published, tmp_path: Path) -> None:
    messages = set()
    for _, tamper, _ in TAMPERS:
        fresh = copy.deepcopy(pub)
        commitment, reveal, kw = tamper(fresh)
        with pytest.raises(ConditionsError) as err:
            _check(tmp_path, commitment, reveal, **kw)
        messages.add(str(err.value).replace(str(tmp_path), ""))
    assert len(messages) == len(TAMPERS)


def test_missing_files_are_named(pub: Published, tmp_path: Path) -> None:
    with pytest.raises(ConditionsError, match=r"commitment .*nope.json does not exist"):
        verify_commitment_and_reveal(tmp_path / "nope.json", pub.cycle.paths.reveal)
    with pytest.raises(ConditionsError, match=r"reveal .*nope.json does not exist"):
        verify_commitment_and_reveal(pub.cycle.paths.commitment, tmp_path / "nope.json")


def test_reveal_of_another_cycle_by_the_same_operator(
    tmp_path: Path, default_spec: CycleSpec, default_data: dict[str, Any]
) -> None:
    key = tmp_path / "operator.pem"
    other_spec = CycleSpec.model_validate({**default_data, "cycle": "another-cycle"})
    paths = []
    for name, spec in (("a", default_spec), ("b", other_spec)):
        cycle = Cycle.init(tmp_path / name, spec, key_path=key)
        cycle.generate()
        cycle.commit(public_seed=True)
        advance_to(cycle, CycleState.adapted_run)
        paths.append((cycle.paths.commitment, cycle.reveal()))
    with pytest.raises(ConditionsError, match="reveal is for cycle 'another-cycle'"):
        verify_commitment_and_reveal(paths[0][0], paths[1][1])


def test_reveal_of_an_earlier_commitment_of_the_same_cycle(
    tmp_path: Path, default_spec: CycleSpec
) -> None:
    key, home = tmp_path / "operator.pem", tmp_path / "h"
    reveals = []
    for force in (False, True):
        cycle = Cycle.init(home, default_spec, key_path=key, force=force)
        cycle.generate()
        cycle.commit(public_seed=True)
        advance_to(cycle, CycleState.adapted_run)
        reveals.append(cycle.reveal(out=tmp_path / f"reveal-{force}.json"))
    with pytest.raises(ConditionsError, match="belongs to a different commitment"):
        verify_commitment_and_reveal(home / "public" / "commitment.json", reveals[0])


def _crafted(tmp_path: Path, spec: CycleSpec, leaves: list[Leaf]) -> tuple[Path, Path]:
    """A commitment and full reveal an operator built from ``leaves`` with the library."""
    key = create_key(tmp_path / "k.pem")

    def sign(data: bytes) -> str:
        return base64.b64encode(key.sign(data)).decode()

    signed, secret = commit(
        leaves,
        cycle=spec.cycle,
        opens_at=spec.opens_at,
        closes_at=spec.closes_at,
        public_key=public_key_b64(key),
        evaluation=_size(spec),
        families=_families(spec),
        sign=sign,
    )
    reveal = make_reveal(signed, secret, range(len(leaves)), full=True, sign=sign)
    write_json(tmp_path / "c.json", signed)
    write_json(tmp_path / "r.json", reveal)
    return tmp_path / "c.json", tmp_path / "r.json"


def _size(spec: CycleSpec) -> CommittedEvaluation:
    return CommittedEvaluation(tasks_per_split=spec.evaluation.tasks_per_split, k=spec.evaluation.k)


def _families(spec: CycleSpec) -> CommittedFamilies:
    roles = spec.family_roles
    return CommittedFamilies(development=sorted(roles.development), held_out=sorted(roles.held_out))


def _leaf(spec: CycleSpec, cycle: str, salt: str) -> Leaf:
    return Leaf(v=1, domain="vwt/condition", cycle=cycle, condition=spec.source, salt=salt)


def test_a_condition_committed_twice_is_caught(tmp_path: Path, default_spec: CycleSpec) -> None:
    leaves = [_leaf(default_spec, default_spec.cycle, s * 64) for s in "ab"]
    c, r = _crafted(tmp_path, default_spec, leaves)
    with pytest.raises(ConditionsError, match=r"is committed twice \(leaves 0 and 1\)"):
        verify_commitment_and_reveal(c, r)


def test_a_leaf_of_another_cycle_is_caught(tmp_path: Path, default_spec: CycleSpec) -> None:
    c, r = _crafted(tmp_path, default_spec, [_leaf(default_spec, "older-cycle", "a" * 64)])
    with pytest.raises(ConditionsError, match="leaf 0 belongs to cycle 'older-cycle'"):
        verify_commitment_and_reveal(c, r)


def test_the_commitment_verifies_alone(pub: Published) -> None:
    signed = verify_commitment(pub.cycle.paths.commitment, pub.cycle.fingerprint)
    assert signed.commitment.tree_size == 8
    with pytest.raises(ConditionsError, match="not the expected operator key"):
        verify_commitment(pub.cycle.paths.commitment, "sha256:" + "0" * 32)


def test_the_commitment_fixes_the_evaluation_size(pub: Published) -> None:
    spec = pub.cycle.spec.evaluation
    assert pub.commitment["v"] == 3
    assert pub.commitment["commitment"]["evaluation"] == {"tasks_per_split": 24, "k": 3}
    committed = verify_commitment(pub.cycle.paths.commitment).commitment.evaluation
    assert (committed.tasks_per_split, committed.k) == (spec.tasks_per_split, spec.k) == (24, 3)
    revealed = verify_commitment_and_reveal(pub.cycle.paths.commitment, pub.cycle.paths.reveal)
    assert revealed.evaluation == committed
    entry = pub.cycle.ledger.last("conditions.committed")
    assert entry is not None and entry.payload["evaluation"] == {"tasks_per_split": 24, "k": 3}


@pytest.mark.parametrize(
    "size", [{"tasks_per_split": 12}, {"k": 1}, {"tasks_per_split": 48, "k": 3}], ids=str
)
def test_an_altered_evaluation_size_breaks_the_commitment_signature(
    pub: Published, tmp_path: Path, size: dict[str, int]
) -> None:
    pub.commitment["commitment"]["evaluation"].update(size)
    with pytest.raises(ConditionsError, match="commitment's signature does not verify"):
        _check(tmp_path, pub.commitment, pub.reveal)


def test_the_commitment_fixes_the_families_roles(pub: Published, tmp_path: Path) -> None:
    roles = pub.commitment["commitment"]["families"]
    spec_roles = pub.cycle.spec.family_roles
    assert roles == {"development": ["support_ops"], "held_out": sorted(spec_roles.held_out)}
    revealed = verify_commitment_and_reveal(pub.cycle.paths.commitment, pub.cycle.paths.reveal)
    assert revealed.families.development == ["support_ops"]
    entry = pub.cycle.ledger.last("conditions.committed")
    assert entry is not None and entry.payload["families"] == roles
    pub.commitment["commitment"]["families"]["development"].append("reconciliation")
    with pytest.raises(ConditionsError, match="commitment's signature does not verify"):
        _check(tmp_path, pub.commitment, pub.reveal)


def test_a_revealed_target_of_an_uncommitted_family_is_refused(
    tmp_path: Path, default_spec: CycleSpec
) -> None:
    held = default_spec.source.model_copy(
        update={"task_family": TaskFamilyAxis(family="reconciliation", split="sealed")}
    )
    leaf = Leaf(
        v=1, domain="vwt/condition", cycle=default_spec.cycle, condition=held, salt="c" * 64
    )
    narrow = default_spec.model_copy(
        update={"families": FamilyRoles(development=["support_ops"], held_out=[])}
    )
    with pytest.raises(ValueError, match=r"neither development nor held out"):
        _crafted(tmp_path, narrow, [leaf])
    # an operator who signs it anyway (bypassing the library's check) is caught by verifiers
    signed = tmp_path / "signed"
    signed.mkdir()
    wide = default_spec.model_copy(
        update={"families": FamilyRoles(development=["support_ops"], held_out=["reconciliation"])}
    )
    c, r = _crafted(signed, wide, [leaf])
    key = load_key(signed / "k.pem")
    doc = json.loads(c.read_text())
    doc["commitment"]["families"]["held_out"] = []
    rdoc = json.loads(r.read_text())
    rdoc["reveal"]["commitment"] = CommitmentStatement.model_validate(doc["commitment"]).digest()
    commitment, reveal = _resign(doc, "commitment", key), _resign(rdoc, "reveal", key)
    with pytest.raises(ConditionsError, match="names neither as development nor as held out"):
        _check(tmp_path, commitment, reveal)


def test_an_old_commitment_is_refused_in_one_line(pub: Published, tmp_path: Path) -> None:
    commitment, reveal, _ = _old_v1_commitment(pub)
    with pytest.raises(ConditionsError) as err:
        _check(tmp_path, commitment, reveal)
    assert "format v1" in str(err.value) and "\n" not in str(err.value)
    assert "\n" not in (err.value.hint or "\n")


# -- every value altered, mechanically ---------------------------------------------------------


def _alterations(value: Any) -> list[Any]:
    if isinstance(value, bool):
        return [not value]
    if isinstance(value, int):
        return [value + 1, value - 1, float(value), str(value)]
    if isinstance(value, str):
        first = value[:1]
        swapped = ("b" if first == "a" else "a") + value[1:]
        return [value + "0", swapped, value.upper() if value.upper() != value else value + " "]
    return ["x", 0]


def _walk(doc: Any, path: tuple[Any, ...] = ()) -> Iterator[tuple[tuple[Any, ...], Any]]:
    """Every way to alter one thing: each scalar value, each key removed or added, each list."""
    if isinstance(doc, dict):
        for key, value in doc.items():
            yield (*path, key), _DELETE
            yield from _walk(value, (*path, key))
        yield (*path, "extra"), "field"
    elif isinstance(doc, list):
        if doc:  # cutting an empty list changes nothing
            yield path, doc[:-1]
        yield path, [*doc, doc[0]] if doc else ["x"]
        for i, value in enumerate(doc):
            yield from _walk(value, (*path, i))
    else:
        for altered in _alterations(doc):
            yield path, altered


_DELETE = object()


def _altered(doc: Doc, path: tuple[Any, ...], value: Any) -> Doc:
    out = copy.deepcopy(doc)
    node = out
    for step in path[:-1]:
        node = node[step]
    if value is _DELETE:
        del node[path[-1]]
    else:
        node[path[-1]] = value
    return out


@pytest.mark.parametrize("selective", [False, True], ids=["full", "selective"])
def test_altering_any_value_in_either_file_fails(
    pub: Published, tmp_path: Path, selective: bool
) -> None:
    reveal_path = pub.cycle.paths.reveal
    if selective:
        chosen = [t.id for t in pub.cycle.targets()[1:4]]
        reveal_path = pub.cycle.reveal(chosen, out=tmp_path / "selective.json")
    originals = {
        "commitment": json.loads(pub.cycle.paths.commitment.read_text()),
        "reveal": json.loads(reveal_path.read_text()),
    }
    _check(tmp_path, originals["commitment"], originals["reveal"])
    checked = 0
    for which, doc in originals.items():
        for path, value in _walk(doc):
            files = {**originals, which: _altered(doc, path, value)}
            with pytest.raises(ConditionsError):
                _check(tmp_path, files["commitment"], files["reveal"])
            checked += 1
    # Both files, every scalar altered 1-4 ways, every key dropped, every list cut or grown.
    assert checked > 250


# -- nothing about a target leaks before the reveal --------------------------------------------


def _secrets_of(cycle: Cycle) -> list[str]:
    """Every string that would give away a target: ids, canonical JSON, new axis values, salts."""
    src = cycle.source
    found = []
    for t in cycle.targets():
        c = t.condition
        found += [t.id, c.id, c.canonical().decode()]
        found += [
            v for v in (c.model.model, c.provider, c.harness) if v not in src.model_dump_json()
        ]
        found += [v for v in c.tool_interface.values() if v not in src.tool_interface.values()]
    opening = json.loads(cycle.paths.secret.read_text())
    found += [leaf["salt"] for leaf in opening["leaves"]]
    return found


def test_nothing_published_before_the_reveal_names_a_target(committed: Cycle) -> None:
    advance_to(committed, CycleState.adapted_run)
    published = "".join(p.read_text() for p in sorted(committed.paths.public.rglob("*")))
    ledger = json.dumps([e.model_dump() for e in committed.ledger.entries()])
    leaks = [s for s in _secrets_of(committed) if s in published or s in ledger]
    assert leaks == []
    # The check can fail: the reveal does name the new axis values.
    committed.reveal()
    revealed_text = committed.paths.reveal.read_text()
    new_values = {s for s in _secrets_of(committed) if s.startswith(("sim/", "support-ops@"))}
    assert new_values == {
        "sim/acme-3",
        "sim/orbit-2",
        "support-ops@2-rename",
        "support-ops@2-units",
    }
    assert all(v in revealed_text for v in new_values)


# -- sizes and ids come from the files, never trusted blindly ----------------------------------


def _huge_tree(tmp_path: Path, spec: CycleSpec, scope: str) -> tuple[Path, Path]:
    """A validly signed commitment of 2**40 leaves and a reveal of leaf 0 with a valid proof."""
    key = create_key(tmp_path / f"op-{scope}.pem")

    def sign(data: bytes) -> str:
        return base64.b64encode(key.sign(data)).decode()

    leaf = _leaf(spec, spec.cycle, "c" * 64)
    proof = [os.urandom(32) for _ in range(40)]
    root = leaf_hash(leaf.data())
    for sibling in proof:  # leaf 0 is the leftmost: every sibling is on the right
        root = node_hash(root, sibling)
    statement = CommitmentStatement(
        families=_families(spec),
        root=root.hex(),
        tree_size=2**40,
        cycle=spec.cycle,
        opens_at=spec.opens_at,
        closes_at=spec.closes_at,
        public_key=public_key_b64(key),
        evaluation=_size(spec),
    )
    signed = SignedCommitment(v=3, commitment=statement, signature=sign(statement.canonical()))
    reveal = RevealStatement(
        v=1,
        domain="vwt/reveal",
        cycle=spec.cycle,
        commitment=statement.digest(),
        root=statement.root,
        tree_size=statement.tree_size,
        public_key=statement.public_key,
        scope=scope,  # type: ignore[arg-type]
        leaves=[RevealedLeaf(index=0, leaf=leaf, proof=[p.hex() for p in proof])],
    )
    write_json(tmp_path / "c.json", signed)
    write_json(
        tmp_path / "r.json",
        SignedReveal(v=1, reveal=reveal, signature=sign(reveal.canonical())),
    )
    return tmp_path / "c.json", tmp_path / "r.json"


def test_a_huge_signed_tree_size_allocates_nothing(tmp_path: Path, default_spec: CycleSpec) -> None:
    c, r = _huge_tree(tmp_path, default_spec, "full")
    with pytest.raises(
        ConditionsError, match=r"missing 1099511627775 committed leaves \(indices 1, 2, .*, 10 …\)"
    ):
        verify_commitment_and_reveal(c, r)
    c, r = _huge_tree(tmp_path, default_spec, "selective")
    result = verify_commitment_and_reveal(c, r)
    assert result.tree_size == 2**40 and [x.index for x in result.conditions] == [0]


def test_revealed_ids_are_recomputed_from_the_leaves(pub: Published) -> None:
    result = verify_commitment_and_reveal(pub.cycle.paths.commitment, pub.cycle.paths.reveal)
    opening = json.loads(pub.cycle.paths.secret.read_text())
    by_index = {x.index: x for x in result.conditions}
    for i, leaf in enumerate(opening["leaves"]):
        expected = keyed_condition_id(Condition.model_validate(leaf["condition"]), leaf["salt"])
        assert by_index[i].id == expected != by_index[i].condition.id
    # The id is a function of the salt: the same condition under another salt gets another id.
    some = result.conditions[0]
    assert keyed_condition_id(some.condition, "0" * 64) != some.id

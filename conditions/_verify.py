"""Verification from the published files alone: the commitment, then a reveal against it."""

from __future__ import annotations

from pathlib import Path
from typing import Literal

from pydantic import BaseModel, ConfigDict, Field

from conditions._commitment import (
    COMMITMENT_VERSION,
    CommittedEvaluation,
    CommittedFamilies,
    SignedCommitment,
)
from conditions._condition import Condition
from conditions._keys import fingerprint, verify_signature
from conditions._merkle import verify_inclusion
from conditions._reveal import RevealStatement, SignedReveal
from conditions._wire import parse, read_json
from conditions.errors import ConditionsError

_REPUBLISH = "ask the operator for the files as published, or treat the cycle as compromised"


class RevealedCondition(BaseModel):
    """A condition proven to be in the commitment, at its leaf index."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    index: int = Field(description="Leaf index in the committed tree.")
    id: str = Field(
        description="Keyed condition id, recomputed from the leaf's condition and salt."
    )
    condition: Condition = Field(description="The revealed condition.")


class VerifiedReveal(BaseModel):
    """The result of a successful verification: what was committed, and what was opened."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    cycle: str = Field(description="Cycle id.")
    root: str = Field(description="Committed Merkle root (hex).")
    commitment: str = Field(description="SHA-256 of the commitment statement (hex).")
    tree_size: int = Field(description="Committed number of conditions.")
    opens_at: str = Field(description="When submissions opened (RFC 3339).")
    closes_at: str = Field(description="When submissions closed (RFC 3339).")
    public_key: str = Field(description="Operator public key (base64).")
    fingerprint: str = Field(description="Fingerprint of the operator key.")
    evaluation: CommittedEvaluation = Field(
        description="Committed evaluation size: tasks per split and trials per task (k)."
    )
    families: CommittedFamilies = Field(description="Committed development and held-out families.")
    scope: Literal["full", "selective"] = Field(description="Full or selective reveal.")
    conditions: list[RevealedCondition] = Field(description="Revealed conditions, by index.")


def _check_key(public_key: str, expected_key: str | None, what: str) -> None:
    if expected_key is not None and expected_key not in (public_key, fingerprint(public_key)):
        raise ConditionsError(
            f"the {what} is signed by key {fingerprint(public_key)}, not the expected "
            f"operator key {expected_key}",
            "it was made with another operator's key; get the files from the cycle's operator",
        )


def verify_commitment(path: Path, expected_key: str | None = None) -> SignedCommitment:
    """Parse a published commitment and check its signature (and key, if one is expected).

    ``expected_key`` is the operator's base64 public key or its fingerprint. A commitment of
    format version 1 or 2 (before the evaluation size, or the families' roles, were committed)
    is refused as such.
    """
    data = read_json(path, "commitment")
    old = {1: "the evaluation size", 2: "the development and held-out task families"}
    if isinstance(data, dict) and type(data.get("v")) is int and data["v"] in old:
        raise ConditionsError(
            f"commitment {path} is format v{data['v']}, which does not commit to "
            f"{old[data['v']]}; this vwt reads v{COMMITMENT_VERSION} commitments only",
            "verify it with the vwt version that made it (which cannot check what it did not "
            "commit to)",
        )
    signed = parse(SignedCommitment, data, f"commitment {path}")
    c = signed.commitment
    if not verify_signature(c.public_key, c.canonical(), signed.signature):
        raise ConditionsError(
            "the commitment's signature does not verify under its public key "
            f"{fingerprint(c.public_key)} (forged signature or altered commitment)",
            _REPUBLISH,
        )
    _check_key(c.public_key, expected_key, "commitment")
    return signed


def _check_binding(signed: SignedCommitment, r: RevealStatement) -> None:
    c = signed.commitment
    if r.public_key != c.public_key:
        raise ConditionsError(
            f"the reveal is signed by another operator's key ({fingerprint(r.public_key)}) "
            f"than the commitment ({fingerprint(c.public_key)})",
            _REPUBLISH,
        )
    if r.cycle != c.cycle:
        raise ConditionsError(
            f"the reveal is for cycle {r.cycle!r} but the commitment is for cycle {c.cycle!r}",
            "pass the reveal published for this commitment's cycle",
        )
    if r.commitment != c.digest():
        raise ConditionsError(
            "the reveal belongs to a different commitment (its commitment hash does not match)",
            "pass the commitment this reveal was made for",
        )
    if r.tree_size != c.tree_size:
        raise ConditionsError(
            f"the reveal's tree size {r.tree_size} disagrees with the commitment's {c.tree_size}",
            _REPUBLISH,
        )
    if r.root != c.root:
        raise ConditionsError("the reveal's root differs from the committed root", _REPUBLISH)


def _check_leaves(r: RevealStatement) -> list[RevealedCondition]:
    root = bytes.fromhex(r.root)
    seen_index: set[int] = set()
    seen_condition: dict[str, int] = {}
    for item in r.leaves:
        i = item.index
        if i in seen_index:
            raise ConditionsError(f"leaf index {i} is revealed twice", _REPUBLISH)
        if i >= r.tree_size:
            raise ConditionsError(
                f"leaf index {i} is outside the committed tree of {r.tree_size} leaves", _REPUBLISH
            )
        if item.leaf.cycle != r.cycle:
            raise ConditionsError(
                f"leaf {i} belongs to cycle {item.leaf.cycle!r}, not {r.cycle!r}", _REPUBLISH
            )
        cid = item.leaf.condition.id
        if cid in seen_condition:
            raise ConditionsError(
                f"condition {cid} is committed twice (leaves {seen_condition[cid]} and {i})",
                "a commitment must list each condition once; treat the cycle as compromised",
            )
        proof = [bytes.fromhex(p) for p in item.proof]
        if not verify_inclusion(item.leaf.data(), i, r.tree_size, proof, root):
            raise ConditionsError(
                f"the inclusion proof of leaf {i} does not lead to the committed root "
                "(altered leaf or proof, or a proof for another index)",
                _REPUBLISH,
            )
        seen_index.add(i)
        seen_condition[cid] = i
    # Indices are distinct and in range, so counting decides completeness; nothing is
    # allocated by the (signed but untrusted) tree size.
    n_missing = r.tree_size - len(seen_index)
    if r.scope == "full" and n_missing:
        first = _first_missing(seen_index, r.tree_size, 10)
        shown = ", ".join(map(str, first)) + (" …" if n_missing > len(first) else "")
        raise ConditionsError(
            f"the full reveal is missing {n_missing} committed leaves (indices {shown})",
            _REPUBLISH,
        )
    return [
        RevealedCondition(index=x.index, id=x.leaf.id, condition=x.leaf.condition) for x in r.leaves
    ]


def _first_missing(seen: set[int], tree_size: int, limit: int) -> list[int]:
    """The lowest ``limit`` indices below ``tree_size`` not in ``seen``.

    They all lie below len(seen) + limit, so this takes O(len(seen)) steps whatever the size.
    """
    out: list[int] = []
    i = 0
    while len(out) < limit and i < min(tree_size, len(seen) + limit):
        if i not in seen:
            out.append(i)
        i += 1
    return out


def verify_commitment_and_reveal(
    commitment_path: Path, reveal_path: Path, expected_key: str | None = None
) -> VerifiedReveal:
    """Check a reveal against its commitment using nothing but the two files.

    Checks, in order: both files parse; the commitment's signature (and, if given, that its
    key is ``expected_key``, a base64 key or fingerprint); the reveal's signature; that both
    are signed by the same key, for the same cycle, commitment, tree size and root; then each
    leaf: no index or condition twice, index in range, cycle, inclusion proof; and that a full
    reveal opens every leaf. Raises ConditionsError with a distinct message per failure.
    """
    signed = verify_commitment(commitment_path, expected_key)
    reveal = parse(SignedReveal, read_json(reveal_path, "reveal"), f"reveal {reveal_path}")
    r = reveal.reveal
    if not verify_signature(r.public_key, r.canonical(), reveal.signature):
        raise ConditionsError(
            "the reveal's signature does not verify (forged signature or altered reveal)",
            _REPUBLISH,
        )
    _check_binding(signed, r)
    conditions = _check_leaves(r)
    c = signed.commitment
    for rc in conditions:
        stray = sorted(set(rc.condition.task_family.families) - c.families.all())
        if stray:
            raise ConditionsError(
                f"revealed condition {rc.id} uses task families {stray} that the commitment "
                "names neither as development nor as held out",
                _REPUBLISH,
            )
    return VerifiedReveal(
        cycle=c.cycle,
        root=c.root,
        commitment=c.digest(),
        tree_size=c.tree_size,
        opens_at=c.opens_at,
        closes_at=c.closes_at,
        public_key=c.public_key,
        fingerprint=fingerprint(c.public_key),
        evaluation=c.evaluation,
        families=c.families,
        scope=r.scope,
        conditions=sorted(conditions, key=lambda x: x.index),
    )

"""The commitment: salted condition leaves, secretly shuffled, in an RFC 6962 tree, signed."""

from __future__ import annotations

import secrets
from collections.abc import Callable, Sequence
from typing import Any, Literal

from pydantic import Field, SerializerFunctionWrapHandler, model_serializer

from conditions._condition import Condition, keyed_condition_id
from conditions._merkle import merkle_root
from conditions._spec import Rfc3339
from conditions._wire import V1, V3, Hex32, PublicKeyB64, SignatureB64, Wire, sha256_hex

LEAF_DOMAIN: Literal["vwt/condition"] = "vwt/condition"
"""Domain string inside every leaf, so a leaf can never be mistaken for other signed data."""

COMMITMENT_VERSION: Literal[3] = 3
"""Format version of the commitment file; 2 added the committed evaluation size, 3 the
development and held-out task families."""


class Leaf(Wire):
    """One committed condition. Its leaf data are the RFC 8785 canonical JSON of this object."""

    v: V1 = Field(description="Leaf format version (1).")
    domain: Literal["vwt/condition"] = Field(description="Always 'vwt/condition'.")
    cycle: str = Field(description="Cycle id the condition belongs to.")
    condition: Condition = Field(description="The target condition.")
    salt: Hex32 = Field(description="32 random bytes (hex) that hide the condition until revealed.")

    def data(self) -> bytes:
        """The leaf data that the Merkle tree hashes."""
        return self.canonical()

    @property
    def id(self) -> str:
        """The condition's keyed id, recomputed from the revealed condition and salt."""
        return keyed_condition_id(self.condition, self.salt)


class CommittedEvaluation(Wire):
    """The evaluation size fixed at commit: every arm of every condition runs
    ``tasks_per_split`` tasks × ``k`` trials. A release must report exactly this size."""

    tasks_per_split: int = Field(ge=1, description="Task instances per family split and arm.")
    k: int = Field(ge=1, description="Trials per task instance and arm.")


class CommittedFamilies(Wire):
    """The task families fixed at commit: those submissions are developed on (the source's)
    and those only targets use. Every revealed condition must draw from these."""

    development: list[str] = Field(min_length=1, description="Development families, sorted.")
    held_out: list[str] = Field(description="Held-out families, sorted.")
    folders: list[Hex32] = Field(
        default_factory=list,
        description="Digests (drift.folder_digest) of the task families written as folders, "
        "sorted; absent when none: the families' content, fixed at commit.",
    )

    @model_serializer(mode="wrap")
    def _without_empty_folders(self, handler: SerializerFunctionWrapHandler) -> dict[str, Any]:
        # commitments of cycles without folder families keep the form (and signature) they had
        data: dict[str, Any] = handler(self)
        if not data.get("folders"):
            data.pop("folders", None)
        return data

    def all(self) -> set[str]:
        """Every committed family id."""
        return {*self.development, *self.held_out}


class CommitmentStatement(Wire):
    """What the operator signs before submissions open; it reveals no condition."""

    root: Hex32 = Field(description="RFC 6962 Merkle root of the leaves (hex).")
    tree_size: int = Field(ge=1, description="Number of committed conditions.")
    cycle: str = Field(description="Cycle id.")
    opens_at: Rfc3339 = Field(description="When submissions open (RFC 3339).")
    closes_at: Rfc3339 = Field(description="When submissions close (RFC 3339).")
    public_key: PublicKeyB64 = Field(description="Operator's Ed25519 public key (base64).")
    evaluation: CommittedEvaluation = Field(
        description="Evaluation size fixed at commit: tasks per split and trials per task."
    )
    families: CommittedFamilies = Field(
        description="Development and held-out task families, fixed at commit."
    )

    def digest(self) -> str:
        """SHA-256 (hex) of the statement's canonical JSON: what a reveal points to."""
        return sha256_hex(self.canonical())


class SignedCommitment(Wire):
    """The published commitment file (public/commitment.json)."""

    v: V3 = Field(
        description="File format version (3: the statement carries the evaluation size and the "
        "task families' roles; earlier versions are refused)."
    )
    commitment: CommitmentStatement = Field(description="The signed statement.")
    signature: SignatureB64 = Field(
        description="Ed25519 signature (base64) of the statement's canonical JSON."
    )


class CommitmentSecret(Wire):
    """The operator's private opening of a commitment: every leaf, in tree order."""

    v: V1 = Field(description="Format version (1).")
    commitment: Hex32 = Field(description="Digest of the commitment statement it opens.")
    leaves: list[Leaf] = Field(description="Leaves in tree order (after the secret shuffle).")

    def leaf_data(self) -> list[bytes]:
        """Every leaf's data, in tree order."""
        return [leaf.data() for leaf in self.leaves]


def make_leaves(cycle: str, salted: Sequence[tuple[Condition, str]]) -> list[Leaf]:
    """Leaves for ``(condition, salt)`` pairs (the targets' own salts), in a secret order.

    Reusing the generation salts makes each leaf's ``id`` the target's keyed id.
    """
    leaves = [
        Leaf(v=1, domain=LEAF_DOMAIN, cycle=cycle, condition=c, salt=salt) for c, salt in salted
    ]
    # The order must not be guessable (e.g. from the generation order), hence not the seeded rng.
    secrets.SystemRandom().shuffle(leaves)
    return leaves


def commit(
    leaves: list[Leaf],
    *,
    cycle: str,
    opens_at: str,
    closes_at: str,
    public_key: str,
    evaluation: CommittedEvaluation,
    families: CommittedFamilies,
    sign: Callable[[bytes], str],
) -> tuple[SignedCommitment, CommitmentSecret]:
    """Build the signed public commitment to ``leaves`` (and to the evaluation size and the
    families' roles) and its private opening."""
    stray = sorted(
        {f for leaf in leaves for f in leaf.condition.task_family.families} - families.all()
    )
    if stray:
        raise ValueError(f"targets use families {stray} that are neither development nor held out")
    statement = CommitmentStatement(
        root=merkle_root([leaf.data() for leaf in leaves]).hex(),
        tree_size=len(leaves),
        cycle=cycle,
        opens_at=opens_at,
        closes_at=closes_at,
        public_key=public_key,
        evaluation=evaluation,
        families=families,
    )
    signed = SignedCommitment(
        v=COMMITMENT_VERSION, commitment=statement, signature=sign(statement.canonical())
    )
    return signed, CommitmentSecret(v=1, commitment=statement.digest(), leaves=leaves)

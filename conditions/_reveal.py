"""The reveal: chosen (or all) committed leaves with their audit paths, signed by the operator."""

from __future__ import annotations

from collections.abc import Callable, Sequence
from typing import Literal

from pydantic import Field

from conditions._commitment import CommitmentSecret, Leaf, SignedCommitment
from conditions._merkle import inclusion_proof
from conditions._wire import V1, Hex32, PublicKeyB64, SignatureB64, Wire

REVEAL_DOMAIN: Literal["vwt/reveal"] = "vwt/reveal"
"""Domain string of a reveal statement."""


class RevealedLeaf(Wire):
    """One opened leaf: where it sits in the tree, what it holds, and its audit path."""

    index: int = Field(ge=0, description="Position of the leaf in the committed tree.")
    leaf: Leaf = Field(description="The leaf, whose canonical JSON is the leaf data.")
    proof: list[Hex32] = Field(description="RFC 6962 audit path (hex), bottom up.")


class RevealStatement(Wire):
    """What the operator signs at the reveal; bound to exactly one commitment."""

    v: V1 = Field(description="Statement format version (1).")
    domain: Literal["vwt/reveal"] = Field(description="Always 'vwt/reveal'.")
    cycle: str = Field(description="Cycle id; must equal the commitment's.")
    commitment: Hex32 = Field(description="SHA-256 of the commitment statement's canonical JSON.")
    root: Hex32 = Field(description="The committed Merkle root (hex).")
    tree_size: int = Field(ge=1, description="The committed tree size.")
    public_key: PublicKeyB64 = Field(description="Key that signed this reveal (base64).")
    scope: Literal["full", "selective"] = Field(
        description="'full': every committed leaf; 'selective': only the listed ones."
    )
    leaves: list[RevealedLeaf] = Field(min_length=1, description="Opened leaves, by index.")


class SignedReveal(Wire):
    """The published reveal file (public/reveal.json)."""

    v: V1 = Field(description="File format version (1).")
    reveal: RevealStatement = Field(description="The signed statement.")
    signature: SignatureB64 = Field(
        description="Ed25519 signature (base64) of the statement's canonical JSON."
    )


def make_reveal(
    commitment: SignedCommitment,
    secret: CommitmentSecret,
    indices: Sequence[int],
    *,
    full: bool,
    sign: Callable[[bytes], str],
) -> SignedReveal:
    """Open the leaves at ``indices`` (all of them for a full reveal) and sign the result."""
    data = secret.leaf_data()
    opened = [
        RevealedLeaf(
            index=i, leaf=secret.leaves[i], proof=[p.hex() for p in inclusion_proof(data, i)]
        )
        for i in sorted(indices)
    ]
    c = commitment.commitment
    statement = RevealStatement(
        v=1,
        domain=REVEAL_DOMAIN,
        cycle=c.cycle,
        commitment=c.digest(),
        root=c.root,
        tree_size=c.tree_size,
        public_key=c.public_key,
        scope="full" if full else "selective",
        leaves=opened,
    )
    return SignedReveal(v=1, reveal=statement, signature=sign(statement.canonical()))

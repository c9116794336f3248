"""RFC 6962 tree: the Certificate Transparency reference vectors, then corrupted proofs."""

from __future__ import annotations

import hashlib

import pytest
from hypothesis import given
from hypothesis import strategies as st

from conditions import ConditionsError, inclusion_proof, merkle_root, verify_inclusion

# The Certificate Transparency reference leaves and tree heads (RFC 6962 test vectors, as
# published with the CT reference implementation and transparency-dev/merkle).
LEAVES = [
    bytes.fromhex(h)
    for h in [
        "",
        "00",
        "10",
        "2021",
        "3031",
        "40414243",
        "5051525354555657",
        "606162636465666768696a6b6c6d6e6f",
    ]
]
EMPTY_ROOT = "e3b0c44298fc1c149afbf4c8996fb92427ae41e4649b934ca495991b7852b855"
ROOTS = [
    "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
    "fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125",
    "aeb6bcfe274b70a14fb067a5e5578264db0fa9b51af5e0ba159158f329e06e77",
    "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
    "4e3bbb1f7b478dcfe71fb631631519a3bca12c9aefca1612bfce4c13a86264d4",
    "76e67dadbcdf1e10e1b74ddc608abd2f98dfb16fbce75277b5232a127f2087ef",
    "ddb89be403809e325750d3d263cd78929c2942b7942a34b77e122c9594a74c8c",
    "5dc9da79a70659a9ad559cb701ded9a2ab9d823aad2f4960cfe370eff4604328",
]
# (0-based leaf index, tree size, audit path): the published inclusion vectors.
PATHS = [
    (0, 1, []),
    (
        0,
        8,
        [
            "96a296d224f285c67bee93c30f8a309157f0daa35dc5b87e410b78630a09cfc7",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "6b47aaf29ee3c2af9af889bc1fb9254dabd31177f16232dd6aab035ca39bf6e4",
        ],
    ),
    (
        5,
        8,
        [
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
            "ca854ea128ed050b41b35ffc1b87b8eb2bde461e9e3b5596ece6b9d5975a0ae0",
            "d37ee418976dd95753c1c73862b9398fa2a2cf9b4ff0fdfe8b30cd95209614b7",
        ],
    ),
    (2, 3, ["fac54203e7cc696cf0dfcb42c92a1d9dbaf70ad9e621f4bd8d98662f00e3c125"]),
    (
        1,
        5,
        [
            "6e340b9cffb37a989ca544e6bb780a2c78901d3fb33738768511a30617afa01d",
            "5f083f0a1a33ca076a95279832580db3e0ef4584bdff1f54c8a360f50de3031e",
            "bc1a0643b12e4d2d7c77918f44e0f4f79a838b6cf9ec5b5c283e1f4d88599e6b",
        ],
    ),
]
SOME_HASH = bytes.fromhex("abacaba000000000000000000000000000000000000000000060061e00123456")


def test_empty_tree_is_the_hash_of_nothing() -> None:
    assert merkle_root([]).hex() == EMPTY_ROOT


@pytest.mark.parametrize("size", range(1, 9))
def test_roots_match_the_published_tree_heads(size: int) -> None:
    assert merkle_root(LEAVES[:size]).hex() == ROOTS[size - 1]


@pytest.mark.parametrize(("index", "size", "path"), PATHS)
def test_audit_paths_match_the_published_vectors(index: int, size: int, path: list[str]) -> None:
    proof = inclusion_proof(LEAVES[:size], index)
    assert [p.hex() for p in proof] == path
    assert verify_inclusion(LEAVES[index], index, size, proof, bytes.fromhex(ROOTS[size - 1]))


def _corruptions(index: int, size: int, proof: list[bytes], root: bytes) -> list[tuple]:
    """The probes of the CT reference verifier's tests: each must be rejected."""
    probes: list[tuple] = [
        (LEAVES[index], index - 1, size, proof, root),
        (LEAVES[index], index + 1, size, proof, root),
        (LEAVES[index], index ^ 2, size, proof, root),
        (LEAVES[index], index, size * 2, proof, root),
        (LEAVES[index], index, size // 2, proof, root),
        (b"WrongLeaf", index, size, proof, root),
        (LEAVES[index], index, size, proof, bytes.fromhex(EMPTY_ROOT)),
        (LEAVES[index], index, size, proof, SOME_HASH),
        (LEAVES[index], index, size, [*proof, b""], root),
        (LEAVES[index], index, size, [*proof, root], root),
        (LEAVES[index], index, size, [b"", *proof], root),
        (LEAVES[index], index, size, [root, *proof], root),
    ]
    for i in range(len(proof)):
        flipped = [*proof]
        flipped[i] = bytes([proof[i][0] ^ 8]) + proof[i][1:]
        probes.append((LEAVES[index], index, size, flipped, root))
    if proof:
        probes.append((LEAVES[index], index, size, proof[:-1], root))
    if len(proof) > 1:
        probes.append((LEAVES[index], index, size, [proof[0], SOME_HASH, *proof[1:]], root))
    return probes


@pytest.mark.parametrize(("index", "size", "path"), PATHS[1:])
def test_corrupted_proofs_are_rejected(index: int, size: int, path: list[str]) -> None:
    proof = [bytes.fromhex(p) for p in path]
    root = bytes.fromhex(ROOTS[size - 1])
    accepted = [p for p in _corruptions(index, size, proof, root) if verify_inclusion(*p)]
    assert accepted == []


def test_every_leaf_of_every_reference_tree_proves_its_root() -> None:
    for size in range(1, 9):
        root = bytes.fromhex(ROOTS[size - 1])
        for i in range(size):
            assert verify_inclusion(LEAVES[i], i, size, inclusion_proof(LEAVES[:size], i), root)


def test_leaf_and_node_hashes_are_domain_separated() -> None:
    # A node hash offered as leaf data must not verify: the 0x00/0x01 prefixes prevent it.
    pair = (
        hashlib.sha256(b"\x00" + LEAVES[0]).digest() + hashlib.sha256(b"\x00" + LEAVES[1]).digest()
    )
    assert merkle_root([pair]).hex() != ROOTS[1]


def test_proof_for_an_index_outside_the_tree_is_a_user_error() -> None:
    with pytest.raises(ConditionsError, match="outside a tree of 3"):
        inclusion_proof(LEAVES[:3], 3)


@given(st.lists(st.binary(max_size=12), min_size=1, max_size=70), st.data())
def test_random_trees_prove_each_leaf_and_only_there(
    leaves: list[bytes], data: st.DataObject
) -> None:
    size = len(leaves)
    root = merkle_root(leaves)
    i = data.draw(st.integers(0, size - 1))
    proof = inclusion_proof(leaves, i)
    assert verify_inclusion(leaves[i], i, size, proof, root)
    assert len(proof) <= max(1, size - 1).bit_length()
    other = data.draw(st.integers(0, size - 1))
    if leaves[other] != leaves[i]:
        assert not verify_inclusion(leaves[other], i, size, proof, root)

"""The RFC 6962 (Certificate Transparency) Merkle tree: root, audit path, and its verification.

Leaf data are raw bytes; a leaf hashes as SHA-256(0x00 || data) and a node as
SHA-256(0x01 || left || right). The tree splits at the largest power of two below its size.
"""

from __future__ import annotations

import hashlib
from collections.abc import Sequence

from conditions.errors import ConditionsError


def leaf_hash(data: bytes) -> bytes:
    """RFC 6962 hash of one leaf's data."""
    return hashlib.sha256(b"\x00" + data).digest()


def node_hash(left: bytes, right: bytes) -> bytes:
    """RFC 6962 hash of an interior node."""
    return hashlib.sha256(b"\x01" + left + right).digest()


def _split(n: int) -> int:
    """The largest power of two strictly below ``n`` (n >= 2)."""
    return 1 << ((n - 1).bit_length() - 1)


def _root_of_hashes(hashes: Sequence[bytes]) -> bytes:
    if not hashes:
        return hashlib.sha256(b"").digest()
    if len(hashes) == 1:
        return hashes[0]
    k = _split(len(hashes))
    return node_hash(_root_of_hashes(hashes[:k]), _root_of_hashes(hashes[k:]))


def _path_of_hashes(hashes: Sequence[bytes], index: int) -> list[bytes]:
    if len(hashes) == 1:
        return []
    k = _split(len(hashes))
    if index < k:
        return [*_path_of_hashes(hashes[:k], index), _root_of_hashes(hashes[k:])]
    return [*_path_of_hashes(hashes[k:], index - k), _root_of_hashes(hashes[:k])]


def merkle_root(leaf_data: Sequence[bytes]) -> bytes:
    """The RFC 6962 Merkle tree hash of the leaves (SHA-256 of nothing for no leaves)."""
    return _root_of_hashes([leaf_hash(d) for d in leaf_data])


def inclusion_proof(leaf_data: Sequence[bytes], index: int) -> list[bytes]:
    """The RFC 6962 audit path of leaf ``index``, from the bottom of the tree up."""
    if not 0 <= index < len(leaf_data):
        raise ConditionsError(
            f"leaf index {index} is outside a tree of {len(leaf_data)} leaves",
            "pass an index from 0 to the number of leaves minus one",
        )
    return _path_of_hashes([leaf_hash(d) for d in leaf_data], index)


def verify_inclusion(
    leaf_data_i: bytes, index: int, tree_size: int, proof: Sequence[bytes], root: bytes
) -> bool:
    """Whether ``proof`` shows leaf data ``leaf_data_i`` at ``index`` in the tree with ``root``.

    The algorithm of RFC 9162 section 2.1.3.2; any malformed input gives False.
    """
    if not 0 <= index < tree_size or any(len(p) != 32 for p in proof):
        return False
    fn, sn, r = index, tree_size - 1, leaf_hash(leaf_data_i)
    for p in proof:
        if sn == 0:
            return False
        if fn & 1 or fn == sn:
            r = node_hash(p, r)
            while not fn & 1 and fn != 0:
                fn, sn = fn >> 1, sn >> 1
        else:
            r = node_hash(r, p)
        fn, sn = fn >> 1, sn >> 1
    return sn == 0 and r == root

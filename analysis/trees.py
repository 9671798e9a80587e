"""The communication trees of the tree algorithms, built the same way as
``algorithms/common/tree.c`` (``collbench --dump-tree`` prints the C side; a
test compares the two).

Each builder returns, for one rank, its parent (-1 at a root), its children in
the order the algorithms talk to them, its depth and the tree's height.  The
pictures are in ``tree.c``.

Examples
--------
>>> tree_node("binary", rank=0, size=7, root=0).children
(1, 2)
>>> [node.parent for node in tree("in_order_binary", size=7)]
[1, 3, 1, -1, 5, 3, 5]
>>> tree_node("dual_postorder", rank=6, size=13).children
(5, 2)
>>> tree_node("chain", rank=0, size=12, chain_fanout=4).children
(1, 4, 7, 10)
"""

from __future__ import annotations

from dataclasses import dataclass

__all__ = ["KINDS", "MAX_CHAIN_FANOUT", "TreeNode", "tree_node", "tree", "in_order_root", "dual_first_size"]

KINDS = ("binomial", "binary", "in_order_binary", "chain", "dual_postorder")


@dataclass(frozen=True)
class TreeNode:
    """One rank's place in a tree.

    Attributes
    ----------
    parent : int
        The parent rank, -1 at a root (``dual_postorder`` has two roots).
    children : tuple of int
        The children in the order the algorithms address them.
    depth : int
        Edges between the rank and its tree's root.
    height : int
        Edges on the longest root-to-leaf path of the (larger) tree.
    """

    parent: int
    children: tuple[int, ...]
    depth: int
    height: int


def _floor_log2(n: int) -> int:
    return n.bit_length() - 1


def in_order_root(size: int) -> int:
    """The root of the in-order binary tree over ``size`` ranks: ``size // 2``."""
    return size // 2


def dual_first_size(size: int) -> int:
    """Ranks in the first of the two post-order trees: ``ceil(size / 2)``."""
    return (size + 1) // 2


def _binomial(v: int, size: int, root: int) -> TreeNode:
    if v == 0:
        parent, limit = -1, 1
        while limit < size:
            limit <<= 1
    else:
        limit = v & -v
        parent = (v - limit + root) % size
    children = []
    mask = limit >> 1
    while mask > 0:
        if v + mask < size:
            children.append((v + mask + root) % size)
        mask >>= 1
    return TreeNode(parent, tuple(children), bin(v).count("1"), _floor_log2(size))


def _binary(v: int, size: int, root: int) -> TreeNode:
    parent = -1 if v == 0 else ((v - 1) // 2 + root) % size
    children = tuple((c + root) % size for c in (2 * v + 1, 2 * v + 2) if c < size)
    return TreeNode(parent, children, _floor_log2(v + 1), _floor_log2(size))


# The most chains a chain tree's root heads (COLLSIM_TREE_MAX_CHILDREN in
# tree.h, Open MPI's MAXTREEFANOUT).
MAX_CHAIN_FANOUT = 32


def _chain_of(v: int, size: int, fanout: int) -> tuple[int, int]:
    """The head and length of the chain that v > 0 lies on (tree.c's chain_of)."""
    rest = size - 1
    longest = -(-rest // fanout)
    nlong = rest % fanout or fanout
    if v - 1 < nlong * longest:
        return 1 + (v - 1) // longest * longest, longest
    head = 1 + nlong * longest + (v - 1 - nlong * longest) // (longest - 1) * (longest - 1)
    return head, longest - 1


def _chain(v: int, size: int, root: int, fanout: int) -> TreeNode:
    """Open MPI's chain tree (ompi_coll_base_topo_build_chain): the root heads
    min(fanout, size - 1) chains of consecutive ranks, the first
    (size - 1) mod fanout of them one rank longer (picture in tree.c)."""
    fanout = min(fanout, size - 1)
    if size == 1:
        return TreeNode(-1, (), 0, 0)
    longest = -(-(size - 1) // fanout)
    if v == 0:
        heads, head = [], 1
        for _ in range(fanout):
            heads.append((head + root) % size)
            head += _chain_of(head, size, fanout)[1]
        return TreeNode(-1, tuple(heads), 0, longest)
    head, length = _chain_of(v, size, fanout)
    parent = root if v == head else (v - 1 + root) % size
    children = ((v + 1 + root) % size,) if v < head + length - 1 else ()
    return TreeNode(parent, children, v - head + 1, longest)


def _in_order(rank: int, size: int) -> TreeNode:
    lo, hi, parent, depth = 0, size, -1, 0
    while True:
        mid = lo + (hi - lo) // 2
        if rank == mid:
            children = []
            if lo < mid:
                children.append(lo + (mid - lo) // 2)
            if mid + 1 < hi:
                children.append(mid + 1 + (hi - mid - 1) // 2)
            return TreeNode(parent, tuple(children), depth, _floor_log2(size))
        parent, depth = mid, depth + 1
        if rank < mid:
            hi = mid
        else:
            lo = mid + 1


def _postorder(rank: int, lo: int, hi: int, height: int) -> TreeNode:
    parent, depth = -1, 0
    while True:
        top, left = hi - 1, (hi - lo) // 2
        if rank == top:
            children = []
            if lo + left < top:
                children.append(top - 1)
            if left > 0:
                children.append(lo + left - 1)
            return TreeNode(parent, tuple(children), depth, height)
        parent, depth = top, depth + 1
        if rank < lo + left:
            hi = lo + left
        else:
            lo, hi = lo + left, top


def tree_node(kind: str, *, rank: int, size: int, root: int = 0,
              chain_fanout: int = 1) -> TreeNode:
    """Return ``rank``'s node in the tree ``kind`` over ``size`` ranks.

    Parameters
    ----------
    kind : str
        One of :data:`KINDS`.
    rank, size, root : int
        ``0 <= rank, root < size``; ``in_order_binary`` and ``dual_postorder``
        ignore ``root``.
    chain_fanout : int
        ``chain`` only: the chains the root heads, 1 ..
        :data:`MAX_CHAIN_FANOUT` (at most ``size - 1`` are used).
    """
    if kind not in KINDS:
        raise ValueError(f"kind must be one of {', '.join(KINDS)}, got {kind!r}")
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"size must be an integer >= 1, got {size!r}")
    if not isinstance(rank, int) or not 0 <= rank < size:
        raise ValueError(f"rank must be in [0, {size}), got {rank!r}")
    if not isinstance(root, int) or not 0 <= root < size:
        raise ValueError(f"root must be in [0, {size}), got {root!r}")
    if isinstance(chain_fanout, bool) or not isinstance(chain_fanout, int) or not (
            1 <= chain_fanout <= MAX_CHAIN_FANOUT):
        raise ValueError(f"chain_fanout must be an integer in 1..{MAX_CHAIN_FANOUT}, "
                         f"got {chain_fanout!r}")
    if chain_fanout != 1 and kind != "chain":
        raise ValueError(f"chain_fanout shapes the chain tree only, not {kind!r}")
    v = (rank - root) % size
    if kind == "binomial":
        return _binomial(v, size, root)
    if kind == "binary":
        return _binary(v, size, root)
    if kind == "chain":
        return _chain(v, size, root, chain_fanout)
    if kind == "in_order_binary":
        return _in_order(rank, size)
    first = dual_first_size(size)
    height = _floor_log2(first)
    if rank < first:
        return _postorder(rank, 0, first, height)
    return _postorder(rank, first, size, height)


def tree(kind: str, *, size: int, root: int = 0, chain_fanout: int = 1) -> list[TreeNode]:
    """Return the nodes of every rank 0..size-1 (see :func:`tree_node`)."""
    if isinstance(size, bool) or not isinstance(size, int) or size < 1:
        raise ValueError(f"size must be an integer >= 1, got {size!r}")
    return [tree_node(kind, rank=rank, size=size, root=root, chain_fanout=chain_fanout)
            for rank in range(size)]

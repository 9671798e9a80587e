"""The pipelined trees' steps made one at a time (:class:`..programs.ProgramSteps`).

``pipeline.c``'s engine along a binary or in-order binary tree (bcast, reduce,
the in-order allreduce: reduce up, then bcast down) and the dual-root
allreduce run one of a few programs per rank: the engine's depends on whether
the rank has a parent and how many children, the dual root's also on its
depth.  Each is asked once of the models' own per-rank functions
(``models._pipelined.engine_reduce``, ``engine_bcast``, ``dual_root_program``),
its peers named by role, and the steps are made window by window as the
engine takes them: at a million ranks the 28 to 112 million messages are
never held at once.  ``tests/test_network_programs.py`` holds the steps to
:func:`.trees.arrays_pattern`'s (the op arrays and the models' programs),
message for message.
"""

from __future__ import annotations

import numpy as np

from collsim.analysis.models import _pipelined
from collsim.analysis.trees import dual_first_size, in_order_root, tree, tree_node

from ..programs import ISEND, RECV, ROLES, SEND, ProgramSteps, templates

__all__ = ["PROGRAM_STEP_MESSAGES", "engine_steps", "dual_root_steps"]

#: Above this many messages the pipelined trees' patterns are :class:`ProgramSteps`
#: (made step by step), up to it the whole arrays of ``trees.arrays_pattern``.
PROGRAM_STEP_MESSAGES = 1 << 20


def _kids(first: np.ndarray, second: np.ndarray, has_first, has_second) -> np.ndarray:
    """p x 2 children, in order, of ranks with a first and/or a second candidate."""
    kids = np.full((len(first), 2), -1, dtype=np.int64)
    kids[:, 0] = np.where(has_first, first, np.where(has_second, second, -1))
    kids[:, 1] = np.where(has_first & has_second, second, -1)
    return kids


def _bisected(rank: np.ndarray, lo: np.ndarray, hi: np.ndarray, postorder: bool):
    """The in-order (``trees._in_order``) or post-order (``trees._postorder``) trees'
    bisection, every rank at once: (parent, children, depth)."""
    parent = np.full(len(rank), -1, dtype=np.int64)
    depth = np.zeros(len(rank), dtype=np.int64)
    kids = np.full((len(rank), 2), -1, dtype=np.int64)
    left = np.flatnonzero(np.ones(len(rank), dtype=bool))
    while len(left):
        r, a, b = rank[left], lo[left], hi[left]
        if postorder:
            top, half = b - 1, (b - a) // 2
            hit = r == top
            kids[left[hit]] = _kids(top - 1, a + half - 1, a + half < top, half > 0)[hit]
            low = r < a + half
            lo[left], hi[left] = np.where(low, a, a + half), np.where(low, a + half, top)
        else:
            top = a + (b - a) // 2
            hit = r == top
            kids[left[hit]] = _kids(a + (top - a) // 2, top + 1 + (b - top - 1) // 2,
                                    a < top, top + 1 < b)[hit]
            low = r < top
            lo[left], hi[left] = np.where(low, a, top + 1), np.where(low, top, b)
        on = left[~hit]
        parent[on], depth[on] = top[~hit], depth[on] + 1
        left = on
    return parent, kids, depth


def tree_columns(kind: str, p: int, root: int = 0):
    """(parent per rank, -1 at a root; its children, p x 2, -1 where none; depth) of
    ``analysis.trees.tree(kind, size=p, root=root)`` for the binary, in-order
    binary and dual post-order trees, with numpy over ranks (the tree's
    Python nodes took 12 s at a million ranks)."""
    rank = np.arange(p, dtype=np.int64)
    if kind == "binary":
        v = (rank - root) % p
        parent = np.where(v == 0, -1, ((v - 1) // 2 + root) % p)
        kids = _kids((2 * v + 1 + root) % p, (2 * v + 2 + root) % p, 2 * v + 1 < p, 2 * v + 2 < p)
        depth = np.zeros(p, dtype=np.int64)
        for bit in range(1, int(p).bit_length()):
            depth += (v + 1) >= (1 << bit)
        return parent, kids, depth
    if kind == "in_order_binary":
        return _bisected(rank, np.zeros(p, dtype=np.int64), np.full(p, p, dtype=np.int64), False)
    if kind == "dual_postorder":
        first = dual_first_size(p)
        return _bisected(rank, np.where(rank < first, 0, first),
                         np.where(rank < first, first, p), True)
    nodes = tree(kind, size=p, root=root)
    parent, kids = tree_arrays(nodes)
    depth = np.fromiter((node.depth for node in nodes), dtype=np.int64, count=p)
    return parent, kids, depth


def tree_arrays(nodes) -> tuple[np.ndarray, np.ndarray]:
    """(parent per rank, -1 at a root; children per rank, p x 2, -1 where none) of
    a tree of at most two children per rank (:func:`collsim.analysis.trees.tree`)."""
    p = len(nodes)
    parent = np.fromiter((node.parent for node in nodes), dtype=np.int64, count=p)
    kids = np.full((p, 2), -1, dtype=np.int64)
    for column in range(2):
        kids[:, column] = np.fromiter(
            (node.children[column] if len(node.children) > column else -1 for node in nodes),
            dtype=np.int64, count=p)
    return parent, kids


def _engine_program(node, blocks: list[int], phases: tuple[str, ...]) -> list:
    """The engine's tasks at one rank (:func:`templates`' form): a reduce's send
    posted with a receive is an ``MPI_Isend``, so is a bcast's send to its first
    child (``pipeline.c``)."""
    program = []
    for phase in phases:
        if phase == "reduce":
            for task in _pipelined.engine_reduce(node, blocks):
                waits = any(op.kind == "recv" for op in task.ops)
                program.append((task.compute_bytes, [
                    (RECV if op.kind == "recv" else ISEND if waits else SEND, op.peer, op.n_bytes)
                    for op in task.ops]))
        else:
            first = node.children[0] if node.children else -1
            for task in _pipelined.engine_bcast(node, blocks):
                program.append((task.compute_bytes, [
                    (RECV if op.kind == "recv" else ISEND if op.peer == first else SEND,
                     op.peer, op.n_bytes) for op in task.ops]))
    return program


def engine_steps(p: int, kind: str, root: int, blocks: list[int], phases: tuple[str, ...],
                 reduce_root: int | None = None, total_bytes: int = 0) -> ProgramSteps:
    """The engine's programs along ``tree(kind, size=p, root=root)`` (``phases``:
    ``("reduce",)``, ``("bcast",)`` or both in turn); ``reduce_root``: a reduce's
    root when it is not the tree's (the in-order tree's root then sends it
    ``total_bytes``)."""
    parent, kids, _ = tree_columns(kind, p, root)
    peers = np.full((p, ROLES), -1, dtype=np.int64)
    peers[:, 0], peers[:, 1:3] = parent, kids
    key = (parent >= 0) + 2 * (kids >= 0).sum(axis=1)
    tree_root = in_order_root(p)
    extra = reduce_root is not None and reduce_root != tree_root
    if extra:
        peers[tree_root, 3], peers[reduce_root, 3] = reduce_root, tree_root
        key[tree_root] += 8
        key[reduce_root] += 16

    def program_of(rank: int) -> list:
        node = tree_node(kind, rank=rank, size=p, root=root)
        program = _engine_program(node, blocks, phases)
        if extra and rank == tree_root:
            program.append((0, [(SEND, reduce_root, total_bytes)]))
        if extra and rank == reduce_root:
            program.append((0, [(RECV, tree_root, total_bytes)]))
        return program

    return templates(p, key, peers, program_of)


def dual_root_steps(p: int, count: int, *, elem_bytes: int, params) -> ProgramSteps:
    """``models._pipelined.dual_root_programs`` as templates: a rank's program
    depends on whether it is a root, its children and its depth; a root's
    parent is the other tree's root."""
    blocks = _pipelined.dual_root_blocks(tree_node("dual_postorder", rank=0, size=p).height,
                                         count, elem_bytes=elem_bytes, params=params)
    parent, kids, depth = tree_columns("dual_postorder", p)
    first = dual_first_size(p)
    rank = np.arange(p, dtype=np.int64)
    is_root = parent < 0
    peers = np.full((p, ROLES), -1, dtype=np.int64)
    peers[:, 0] = np.where(is_root, np.where(rank < first, p - 1, first - 1), parent)
    peers[:, 1:3] = kids
    key = is_root + 2 * (kids >= 0).sum(axis=1) + 8 * depth

    def program_of(r: int) -> list:
        node = tree_node("dual_postorder", rank=r, size=p)
        return [(task.compute_bytes, [(RECV if op.kind == "recv" else SEND, op.peer, op.n_bytes)
                                      for op in task.ops])
                for task in _pipelined.dual_root_program(r, p, node, blocks)]

    return templates(p, key, peers, program_of)

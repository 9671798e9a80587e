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
from collsim.analysis.trees import dual_first_size, in_order_root

from ..programs import ISEND, RECV, ROLES, SEND, ProgramSteps, templates

__all__ = ["PROGRAM_STEP_MESSAGES", "engine_steps", "dual_root_steps"]

#: Above this many messages the pipelined trees' patterns are :class:`ProgramSteps`
#: (made step by step), up to it the whole arrays of ``trees.arrays_pattern``.
PROGRAM_STEP_MESSAGES = 1 << 20


def _tree_columns(nodes) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """(parent per rank, -1 at a root; its children, p x 2, -1 where none; depth)."""
    p = len(nodes)
    parent = np.fromiter((node.parent for node in nodes), dtype=np.int64, count=p)
    depth = np.fromiter((node.depth for node in nodes), dtype=np.int64, count=p)
    kids = np.full((p, 2), -1, dtype=np.int64)
    for column in range(2):
        kids[:, column] = np.fromiter(
            (node.children[column] if len(node.children) > column else -1 for node in nodes),
            dtype=np.int64, count=p)
    return parent, kids, depth


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


def engine_steps(p: int, nodes, blocks: list[int], phases: tuple[str, ...],
                 root: int | None = None, total_bytes: int = 0) -> ProgramSteps:
    """The engine's programs along ``nodes`` (``phases``: ``("reduce",)``,
    ``("bcast",)`` or both in turn); ``root``: a reduce's root when it is not
    the tree's (the in-order tree's root then sends it ``total_bytes``)."""
    parent, kids, _ = _tree_columns(nodes)
    peers = np.full((p, ROLES), -1, dtype=np.int64)
    peers[:, 0], peers[:, 1:3] = parent, kids
    key = (parent >= 0) + 2 * (kids >= 0).sum(axis=1)
    tree_root = in_order_root(p)
    extra = root is not None and root != tree_root
    if extra:
        peers[tree_root, 3], peers[root, 3] = root, tree_root
        key[tree_root] += 8
        key[root] += 16

    def program_of(rank: int) -> list:
        program = _engine_program(nodes[rank], blocks, phases)
        if extra and rank == tree_root:
            program.append((0, [(SEND, root, total_bytes)]))
        if extra and rank == root:
            program.append((0, [(RECV, tree_root, total_bytes)]))
        return program

    return templates(p, key, peers, program_of)


def dual_root_steps(p: int, count: int, *, elem_bytes: int, params) -> ProgramSteps:
    """``models._pipelined.dual_root_programs`` as templates: a rank's program
    depends on whether it is a root, its children and its depth; a root's
    parent is the other tree's root."""
    nodes, blocks = _pipelined.dual_root_tree_and_blocks(p, count, elem_bytes=elem_bytes,
                                                         params=params)
    parent, kids, depth = _tree_columns(nodes)
    first = dual_first_size(p)
    rank = np.arange(p, dtype=np.int64)
    is_root = parent < 0
    peers = np.full((p, ROLES), -1, dtype=np.int64)
    peers[:, 0] = np.where(is_root, np.where(rank < first, p - 1, first - 1), parent)
    peers[:, 1:3] = kids
    key = is_root + 2 * (kids >= 0).sum(axis=1) + 8 * depth

    def program_of(r: int) -> list:
        return [(task.compute_bytes, [(RECV if op.kind == "recv" else SEND, op.peer, op.n_bytes)
                                      for op in task.ops])
                for task in _pipelined.dual_root_program(r, p, nodes[r], blocks)]

    return templates(p, key, peers, program_of)

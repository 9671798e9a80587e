"""Patterns of the collectives that gather or spread blocks: allgather, gather, scatter.

Each builder follows ``algorithms/<coll>/<coll>_<alg>.c`` message for
message (see :mod:`collsim.analysis.network.patterns`); ``count`` is the
elements of one block (algorithms/collectives.def).
"""

from __future__ import annotations

import numpy as np

from ..pattern import Pattern, Step
from ._common import nothing_to_send, ranks

__all__ = ["PATTERNS"]


@nothing_to_send
def allgather_ring(p: int, count: int, *, elem_bytes: int, root: int = 0,
                   commutative: bool = True, **context) -> Pattern:
    """``allgather_ring.c``: p - 1 shifts of one block to the right neighbour."""
    rank = ranks(p)
    return Pattern(p, (Step(rank, (rank + 1) % p, np.full(p, count * elem_bytes), repeat=p - 1),))


def _others(p: int, root: int) -> np.ndarray:
    rank = ranks(p)
    return rank[rank != root]


@nothing_to_send
def gather_linear(p: int, count: int, *, elem_bytes: int, root: int = 0,
                  commutative: bool = True, **context) -> Pattern:
    """``gather_linear.c``: every rank's block to the root at once."""
    senders = _others(p, root)
    return Pattern(p, (Step(senders, np.full(p - 1, root), np.full(p - 1, count * elem_bytes)),))


@nothing_to_send
def scatter_linear(p: int, count: int, *, elem_bytes: int, root: int = 0,
                   commutative: bool = True, **context) -> Pattern:
    """``scatter_linear.c``: the root's p - 1 blocks at once."""
    receivers = _others(p, root)
    return Pattern(p, (Step(np.full(p - 1, root), receivers, np.full(p - 1, count * elem_bytes)),))


PATTERNS = {
    ("allgather", "ring"): allgather_ring,
    ("gather", "linear"): gather_linear,
    ("scatter", "linear"): scatter_linear,
}

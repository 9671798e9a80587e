"""Patterns of alltoall and barrier.

Each builder follows ``algorithms/<coll>/<coll>_<alg>.c`` message for
message (see :mod:`collsim.analysis.network.patterns`); ``count`` is the
elements of one block (algorithms/collectives.def); a barrier's messages
are empty.
"""

from __future__ import annotations

import numpy as np

from collsim.analysis.models._base import ceil_log2

from ..pattern import Pattern, Step
from ._common import nothing_to_send, ranks

__all__ = ["PATTERNS"]


@nothing_to_send
def alltoall_linear(p: int, count: int, *, elem_bytes: int, root: int = 0,
                    commutative: bool = True, **context) -> Pattern:
    """``alltoall_linear.c``: every rank's p - 1 sends and receives at once (p (p - 1) messages)."""
    rank = ranks(p)
    shift = np.arange(1, p, dtype=np.int64)
    src = np.repeat(rank, p - 1)
    dst = (src + np.tile(shift, p)) % p
    return Pattern(p, (Step(src, dst, np.full(len(src), count * elem_bytes)),))


def barrier_dissemination(p: int, count: int, *, elem_bytes: int, root: int = 0,
                          commutative: bool = True, **context) -> Pattern:
    """``barrier_dissemination.c``: ceil(lg p) rounds, rank i to i + 2^k (empty messages)."""
    rank = ranks(p)
    return Pattern(p, tuple(Step(rank, (rank + (1 << k)) % p, np.zeros(p, dtype=np.int64))
                            for k in range(ceil_log2(p))))


PATTERNS = {
    ("alltoall", "linear"): alltoall_linear,
    ("barrier", "dissemination"): barrier_dissemination,
}

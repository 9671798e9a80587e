"""Patterns of reduce_scatter, scan and exscan.

Each builder follows ``algorithms/<coll>/<coll>_<alg>.c`` message for
message (see :mod:`collsim.analysis.network.patterns`); ``count`` is the
elements of one block (algorithms/collectives.def: reduce_scatter's block
is what each rank receives, a scan's the whole vector).
"""

from __future__ import annotations

import numpy as np

from ..pattern import Pattern, Step, _checked_steps, in_sequence
from . import gathers, rounds
from ._common import nothing_to_send, ranks

__all__ = ["PATTERNS"]


@nothing_to_send
def reduce_scatter_reduce_then_scatter(p: int, count: int, *, elem_bytes: int, root: int = 0,
                                       commutative: bool = True, **context) -> Pattern:
    """``reduce_scatter_reduce_then_scatter.c``: the binomial reduce of the p blocks to
    rank 0, then the linear scatter from it."""
    return in_sequence(
        rounds.reduce_binomial(p, p * count, elem_bytes=elem_bytes, root=0, commutative=True),
        gathers.scatter_linear(p, count, elem_bytes=elem_bytes, root=0))


def _chain(p: int, n_bytes: int, combine: np.ndarray) -> Pattern:
    """Steps k = 0 .. p-2: rank k sends to k + 1, which combines when ``combine[k]``."""
    rank = ranks(p - 1)
    keep = combine.astype(bool)
    reducers = (rank + 1)[keep]
    reduce_cuts = np.concatenate([[0], np.cumsum(keep)])
    return Pattern(p, _checked_steps(rank, rank + 1, np.full(p - 1, n_bytes), reducers,
                                     np.full(len(reducers), n_bytes), (), np.arange(p), reduce_cuts))


@nothing_to_send
def scan_linear(p: int, count: int, *, elem_bytes: int, root: int = 0, commutative: bool = True,
                **context) -> Pattern:
    """``scan_linear.c``: the prefix passed along the chain, each rank combining on receipt."""
    return _chain(p, count * elem_bytes, np.ones(p - 1, dtype=np.int64))


@nothing_to_send
def exscan_linear(p: int, count: int, *, elem_bytes: int, root: int = 0, commutative: bool = True,
                  **context) -> Pattern:
    """``exscan_linear.c``: the chain; every receiver but the last combines before passing on."""
    combine = np.ones(p - 1, dtype=np.int64)
    combine[-1] = 0
    return _chain(p, count * elem_bytes, combine)


PATTERNS = {
    ("reduce_scatter", "reduce_then_scatter"): reduce_scatter_reduce_then_scatter,
    ("scan", "linear"): scan_linear,
    ("exscan", "linear"): exscan_linear,
}

"""Round-based patterns: recursive doubling and halving, rings, binomial trees.

Each builder follows ``algorithms/<coll>/<coll>_<alg>.c`` message for
message (see :mod:`collsim.analysis.network.patterns`).
"""

from __future__ import annotations

import numpy as np

from collsim.analysis.models._base import ceil_log2, floor_log2

from ..pattern import Pattern, Step, exchange
from ._common import fold_real, nothing_to_send, ranks, ring_phase, ring_unrolled

__all__ = ["PATTERNS"]


@nothing_to_send
def allreduce_ring(p: int, count: int, *, elem_bytes: int, root: int = 0,
                   commutative: bool = True, **context) -> Pattern:
    """``allreduce_ring.c``: p - 1 shifts of reduce-scatter (combine), p - 1 of allgather."""
    rank = ranks(p)
    block = count // p + (rank < count % p)
    scatter = ring_phase(p, lambda k: block[(rank - k) % p], reduce=True,
                          elem_bytes=elem_bytes)
    gather = ring_phase(p, lambda k: block[(rank + 1 - k) % p], reduce=False,
                         elem_bytes=elem_bytes)
    return Pattern(p, tuple(scatter + gather), together=ring_unrolled(p))


@nothing_to_send
def allreduce_recursive_doubling(p: int, count: int, *, elem_bytes: int, root: int = 0,
                                 commutative: bool = True, **context) -> Pattern:
    """``allreduce_recursive_doubling.c``: fold, lg p' exchanges of the vector, unfold."""
    n = count * elem_bytes
    pof2 = 1 << floor_log2(p)
    r = p - pof2
    steps = []
    evens = 2 * np.arange(r, dtype=np.int64)
    if r:
        steps.append(Step(evens, evens + 1, np.full(r, n), evens + 1, np.full(r, n)))
    new = ranks(pof2)
    mask = 1
    while mask < pof2:
        low = new[(new & mask) == 0]
        a, b = fold_real(low, r, 1), fold_real(low ^ mask, r, 1)
        src, dst, size = exchange(a, b, n)
        steps.append(Step(src, dst, size, src, size))
        mask <<= 1
    if r:
        steps.append(Step(evens + 1, evens, np.full(r, n)))
    return Pattern(p, tuple(steps))


@nothing_to_send
def allreduce_rabenseifner(p: int, count: int, *, elem_bytes: int, root: int = 0,
                           commutative: bool = True, **context) -> Pattern:
    """``allreduce_rabenseifner.c``: fold by halves, recursive halving, doubling, unfold."""
    from .. import kernels

    pof2 = 1 << floor_log2(p)
    r = p - pof2
    half = count // 2
    steps = []
    evens = 2 * np.arange(r, dtype=np.int64)
    if r:
        # the even rank sends the upper (ceil) half, receives the lower (floor) half
        src, dst, size = exchange(evens, evens + 1, (count - half) * elem_bytes, half * elem_bytes)
        steps.append(Step(src, dst, size, np.concatenate([evens, evens + 1]),
                          np.concatenate([np.full(r, half), np.full(r, count - half)]) * elem_bytes))
        steps.append(Step(evens + 1, evens, np.full(r, (count - half) * elem_bytes)))
    new = ranks(pof2)
    real = fold_real(new, r, 0)
    # per level: the bytes each new rank sends and keeps halving, its range's after
    sent, kept, after = kernels.halving_blocks(pof2, count, elem_bytes)
    partners = [real[new ^ (1 << level)] for level in range(len(sent))]
    for level, partner in enumerate(partners):
        steps.append(Step(real, partner, sent[level], real, kept[level]))
    for level in range(len(partners) - 1, -1, -1):
        # the doubling retraces the halving's pairs: the same arrays, routed once
        steps.append(Step(real, partners[level], after[level]))
    if r:
        steps.append(Step(evens, evens + 1, np.full(r, count * elem_bytes)))
    return Pattern(p, tuple(steps))


@nothing_to_send
def bcast_binomial(p: int, count: int, *, elem_bytes: int, root: int = 0,
                   commutative: bool = True, **context) -> Pattern:
    """``bcast_binomial.c``: ceil(lg p) rounds, farthest child first."""
    n = count * elem_bytes
    v = ranks(p)
    steps = []
    for level in range(ceil_log2(p) - 1, -1, -1):
        mask = 1 << level
        senders = v[(v % (2 * mask) == 0) & (v + mask < p)]
        steps.append(Step((senders + root) % p, (senders + mask + root) % p,
                          np.full(len(senders), n)))
    return Pattern(p, tuple(steps))


@nothing_to_send
def reduce_binomial(p: int, count: int, *, elem_bytes: int, root: int = 0,
                    commutative: bool = True, **context) -> Pattern:
    """``reduce_binomial.c``: ceil(lg p) rounds toward the tree's root, combining each."""
    n = count * elem_bytes
    tree_root = root if commutative else 0
    v = ranks(p)
    steps = []
    mask = 1
    while mask < p:
        senders = v[v % (2 * mask) == mask]
        receivers = (senders - mask + tree_root) % p
        steps.append(Step((senders + tree_root) % p, receivers, np.full(len(senders), n),
                          receivers, np.full(len(senders), n)))
        mask <<= 1
    if tree_root != root:
        steps.append(Step([tree_root], [root], [n]))
    return Pattern(p, tuple(steps))


@nothing_to_send
def bcast_scatter_allgather(p: int, count: int, *, elem_bytes: int, root: int = 0,
                            commutative: bool = True, **context) -> Pattern:
    """``bcast_scatter_allgather.c``: binomial scatter of p chunks, then a ring allgather."""
    c = -(-count // p)
    v = ranks(p)

    def span(first, last):
        return np.minimum(last * c, count) - np.minimum(first * c, count)

    steps = []
    for level in range(ceil_log2(p) - 1, -1, -1):
        mask = 1 << level
        senders = v[(v % (2 * mask) == 0) & (v + mask < p)]
        size = span(senders + mask, np.minimum(senders + 2 * mask, p)) * elem_bytes
        steps.append(Step((senders + root) % p, (senders + mask + root) % p, size))
    chunk = span(v, v + 1)
    # in shift k (from 0) rank i, numbered v = (i - root) mod p, sends chunk (v - k) mod p
    relative = (v - root) % p
    steps += ring_phase(p, lambda k: chunk[(relative - k) % p], reduce=False,
                         elem_bytes=elem_bytes)
    return Pattern(p, tuple(steps), together=ring_unrolled(p))


PATTERNS = {
    ("allreduce", "ring"): allreduce_ring,
    ("allreduce", "recursive_doubling"): allreduce_recursive_doubling,
    ("allreduce", "rabenseifner"): allreduce_rabenseifner,
    ("bcast", "binomial"): bcast_binomial,
    ("bcast", "scatter_allgather"): bcast_scatter_allgather,
    ("reduce", "binomial"): reduce_binomial,
}

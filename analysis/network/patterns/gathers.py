"""Patterns of the collectives that gather or spread blocks: allgather, gather, scatter.

Each builder follows ``algorithms/<coll>/<coll>_<alg>.c`` message for
message (see :mod:`collsim.analysis.network.patterns`); ``count`` is the
elements of one block (algorithms/collectives.def).
"""

from __future__ import annotations

import numpy as np

from collsim.analysis.models._base import ceil_log2
from collsim.analysis.models.allgather import recursive_doubling_steps

from ..pattern import Pattern, Step, exchange, in_sequence
from ._common import binomial_scatter, nothing_to_send, ranks, ring_phase, ring_unrolled
from .rounds import bcast_binomial

__all__ = ["PATTERNS"]


@nothing_to_send
def allgather_ring(p: int, count: int, *, elem_bytes: int, root: int = 0,
                   commutative: bool = True, **context) -> Pattern:
    """``allgather_ring.c``: p - 1 shifts of one block to the right neighbour."""
    return Pattern(p, tuple(ring_phase(p, lambda k: np.full(p, count), reduce=False,
                                       elem_bytes=elem_bytes)), together=ring_unrolled(p))


@nothing_to_send
def allgather_recursive_doubling(p: int, count: int, *, elem_bytes: int, root: int = 0,
                                 commutative: bool = True, **context) -> Pattern:
    """``allgather_recursive_doubling.c``: exchanges with rank ^ 2^k, and for p not a
    power of two the tree passing a truncated subtree's blocks on
    (:func:`collsim.analysis.models.allgather.recursive_doubling_steps`)."""
    n = count * elem_bytes
    steps = []
    for kind, a, b, blocks_ab, blocks_ba in recursive_doubling_steps(p):
        if kind == "exchange":
            steps.append(Step(*exchange(a, b, blocks_ab * n, blocks_ba * n)))
        else:
            steps.append(Step(a, b, blocks_ab * n))
    return Pattern(p, tuple(steps))


@nothing_to_send
def allgather_bruck(p: int, count: int, *, elem_bytes: int, root: int = 0,
                    commutative: bool = True, **context) -> Pattern:
    """``allgather_bruck.c``: ceil(lg p) shifts to rank - 2^k of min(2^k, p - 2^k) blocks."""
    rank = ranks(p)
    return Pattern(p, tuple(
        Step(rank, (rank - (1 << k)) % p, np.full(p, min(1 << k, p - (1 << k)) * count * elem_bytes))
        for k in range(ceil_log2(p))))


#: The most messages of a neighbour exchange simulated step by step in order, together.
NEIGHBOR_TOGETHER_MESSAGES = 1 << 17


@nothing_to_send
def allgather_neighbor_exchange(p: int, count: int, *, elem_bytes: int, root: int = 0,
                                commutative: bool = True, **context) -> Pattern:
    """``allgather_neighbor_exchange.c``: one block with the neighbour on one side, then
    p/2 - 1 pairs of blocks alternately with each; p odd: the ring, as the C code runs.

    Up to :data:`NEIGHBOR_TOGETHER_MESSAGES` messages (p^2/2: 512 ranks) every
    step is there in order, all simulated together (``Pattern.together``: on
    512 random ranks of Slingshot, each step timed alone was 53 % under SimGrid,
    in windows of 4096 messages 40 % under, together within 0.1 %); above, the
    steps with each pairing are one repeated step each (the same messages,
    without the alternation, each repeat timed alone: 50 % off on a dragonfly's
    random ranks at 100 ranks when done so there, +22 % on 512 block ranks of
    Slingshot).
    """
    if p % 2:
        return allgather_ring(p, count, elem_bytes=elem_bytes)
    n = count * elem_bytes
    evens = np.arange(0, p, 2, dtype=np.int64)
    odds = evens + 1
    first = Step(*exchange(evens, odds, n))
    later = p // 2 - 1
    if p * p // 2 <= NEIGHBOR_TOGETHER_MESSAGES:
        pairs = (exchange(odds, (odds + 1) % p, 2 * n), exchange(evens, odds, 2 * n))
        return Pattern(p, (first, *(Step(*pairs[(s + 1) % 2]) for s in range(1, later + 1))),
                       together=True)
    repeats = ((odds, (odds + 1) % p, (later + 1) // 2), (evens, odds, later // 2))
    return Pattern(p, (first, *(Step(*exchange(a, b, 2 * n), repeat=times)
                                 for a, b, times in repeats if times)))


@nothing_to_send
def allgather_gather_bcast(p: int, count: int, *, elem_bytes: int, root: int = 0,
                           commutative: bool = True, **context) -> Pattern:
    """``allgather_gather_bcast.c``: :func:`gather_binomial` to rank 0, then
    ``bcast_binomial`` of the p blocks from rank 0."""
    return in_sequence(gather_binomial(p, count, elem_bytes=elem_bytes, root=0),
                       bcast_binomial(p, p * count, elem_bytes=elem_bytes, root=0))


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


@nothing_to_send
def gather_binomial(p: int, count: int, *, elem_bytes: int, root: int = 0,
                    commutative: bool = True, **context) -> Pattern:
    """``gather_binomial.c``: in round k every v with lowest set bit 2^k sends its
    min(2^k, p - v) blocks to v - 2^k (v numbered from the root), nearest child first."""
    v = ranks(p)
    steps = []
    for k in range(ceil_log2(p)):
        mask = 1 << k
        senders = v[v % (2 * mask) == mask]
        steps.append(Step((senders + root) % p, (senders - mask + root) % p,
                          np.minimum(mask, p - senders) * count * elem_bytes))
    return Pattern(p, tuple(steps))


@nothing_to_send
def scatter_binomial(p: int, count: int, *, elem_bytes: int, root: int = 0,
                     commutative: bool = True, **context) -> Pattern:
    """``scatter_binomial.c``: the root's p blocks down a binomial tree, farthest child
    first (``binomial_scatter`` of p blocks of count elements)."""
    return Pattern(p, tuple(binomial_scatter(p, p * count, root, elem_bytes)))


PATTERNS = {
    ("allgather", "ring"): allgather_ring,
    ("allgather", "recursive_doubling"): allgather_recursive_doubling,
    ("allgather", "bruck"): allgather_bruck,
    ("allgather", "neighbor_exchange"): allgather_neighbor_exchange,
    ("allgather", "gather_bcast"): allgather_gather_bcast,
    ("gather", "linear"): gather_linear,
    ("gather", "binomial"): gather_binomial,
    ("scatter", "linear"): scatter_linear,
    ("scatter", "binomial"): scatter_binomial,
}

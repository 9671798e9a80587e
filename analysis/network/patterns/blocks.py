"""Block-based patterns: binary blocks, Rabenseifner's reduce, the ring reduce,
the scatter + recursive-doubling broadcast.

Each builder follows ``algorithms/<coll>/<coll>_<alg>.c`` (and
``algorithms/common/blocks.c``, ``scatter.c``) message for message, as the
replayed models of :mod:`collsim.analysis.models` do; the block layout and
the joining ranks come from their Python twin :mod:`collsim.analysis.models._blocks`.
A rank's steps are listed in its program order; ranks of different blocks
interleave freely (the engine orders a rank's steps only among themselves).
"""

from __future__ import annotations

import numpy as np

from collsim.analysis.models import _blocks
from collsim.analysis.models._base import floor_log2

from ..pattern import Pattern, Step, exchange
from ..serial import SerialSteps
from ..shifts import ShiftSteps, beyond_explicit
from ._common import binomial_scatter, nothing_to_send, ranks, ring_unrolled

__all__ = ["PATTERNS", "halving_range"]


def halving_range(count: int, j, s: int) -> tuple[np.ndarray, np.ndarray]:
    """Range [lo, hi) local rank(s) j hold after s halvings of count elements.

    The vectorised :func:`collsim.analysis.models._blocks.halving_range`
    (``collsim_blocks_range``: ``mid = lo + (hi - lo) / 2``, bit ``step`` of j
    set keeps the upper half); ``tests/test_network_patterns_composite.py``
    holds the two equal.

    Examples
    --------
    >>> [int(x) for x in halving_range(5, np.array([3]), 2)[0]]
    [3]
    """
    j = np.asarray(j, dtype=np.int64)
    lo, hi = np.zeros(j.shape, dtype=np.int64), np.full(j.shape, count, dtype=np.int64)
    for step in range(s):
        mid = lo + (hi - lo) // 2
        upper = (j >> step & 1) == 1
        lo, hi = np.where(upper, mid, lo), np.where(upper, hi, mid)
    return lo, hi


def _width(count: int, j, s: int) -> np.ndarray:
    lo, hi = halving_range(count, j, s)
    return hi - lo


def _join_senders(blocks, b: int) -> tuple[np.ndarray, np.ndarray]:
    """(ranks of block b + 1, the ranks of block b they join): ``collsim_blocks_joiner``
    is its first rank's joiner plus i."""
    i = ranks(blocks[b + 1].size)
    return blocks[b + 1].first + i, _blocks.joiner(blocks, b, 0) + i


def _blocks_reduce_scatter(blocks, count: int, elem_bytes: int) -> list[Step]:
    """``collsim_blocks_reduce_scatter``, smallest block first (``_blocks.replay_reduce_scatter``)."""
    steps = []
    for b in reversed(range(len(blocks))):
        block = blocks[b]
        join_step = blocks[b + 1].lg if b + 1 < len(blocks) else -1
        j = ranks(block.size)
        for s in range(block.lg):
            if s == join_step:
                # block b + 1 hands its ranges over; the joiner combines them as right operand
                senders, joiners = _join_senders(blocks, b)
                width = _width(count, senders - blocks[b + 1].first, s) * elem_bytes
                steps.append(Step(senders, joiners, width, joiners, width))
            low = j[(j >> s & 1) == 0]
            lo, hi = halving_range(count, low, s)
            mid = lo + (hi - lo) // 2
            # the rank with bit s clear keeps [lo, mid), sends [mid, hi)
            src, dst, size = exchange(block.first + low, block.first + (low | 1 << s),
                                      (hi - mid) * elem_bytes, (mid - lo) * elem_bytes)
            steps.append(Step(src, dst, size, dst, size))
    return steps


@nothing_to_send
def allreduce_binary_blocks(p: int, count: int, *, elem_bytes: int, root: int = 0,
                            commutative: bool = True, **context) -> Pattern:
    """``allreduce_binary_blocks.c``: the blocks' reduce-scatter, then their allgather,
    each block handing the finished ranges back to the next smaller one."""
    blocks = _blocks.layout(p)
    steps = _blocks_reduce_scatter(blocks, count, elem_bytes)
    for b, block in enumerate(blocks):
        join_step = blocks[b + 1].lg if b + 1 < len(blocks) else -1
        j = ranks(block.size)
        for s in reversed(range(block.lg)):
            low = j[(j >> s & 1) == 0]
            high = low | 1 << s
            src, dst, size = exchange(block.first + low, block.first + high,
                                      _width(count, low, s + 1) * elem_bytes,
                                      _width(count, high, s + 1) * elem_bytes)
            steps.append(Step(src, dst, size))
            if s == join_step:
                receivers, joiners = _join_senders(blocks, b)
                steps.append(Step(joiners, receivers,
                                  _width(count, receivers - blocks[b + 1].first, s) * elem_bytes))
    return Pattern(p, tuple(steps))


def _gather_to_root(count: int, levels: int, root_local: int, real, elem_bytes: int) -> list[Step]:
    """The binomial gather of halved ranges on 2^levels ranks (``collsim_doubling_step``
    SEND / RECEIVE): at level s the ranks that differ from the root in bit s and
    agree above it send what they hold (their range after s + 1 halvings) and are done."""
    v = ranks(1 << levels)
    steps = []
    for s in reversed(range(levels)):
        senders = v[(v ^ root_local) >> s == 1]
        steps.append(Step(real(senders), real(senders ^ 1 << s),
                          _width(count, senders, s + 1) * elem_bytes))
    return steps


@nothing_to_send
def reduce_binary_blocks(p: int, count: int, *, elem_bytes: int, root: int = 0,
                         commutative: bool = True, **context) -> Pattern:
    """``reduce_binary_blocks.c``: the blocks' reduce-scatter, then a binomial gather
    in block 0; a root outside block 0 first gets rank 0's range and plays rank 0."""
    blocks = _blocks.layout(p)
    steps = _blocks_reduce_scatter(blocks, count, elem_bytes)
    k0 = blocks[0].lg
    outside = root >= blocks[0].size
    if outside:
        steps.append(Step([0], [root], _width(count, [0], k0) * elem_bytes))

    def real(v):
        return np.where(v == 0, root, v) if outside else v

    steps += _gather_to_root(count, k0, 0 if outside else root, real, elem_bytes)
    return Pattern(p, tuple(steps))


@nothing_to_send
def reduce_rabenseifner(p: int, count: int, *, elem_bytes: int, root: int = 0,
                        commutative: bool = True, **context) -> Pattern:
    """``reduce_rabenseifner.c``: fold by halves to a power of two (the root always
    kept), recursive halving, binomial gather of the halves to the root."""
    pof2 = 1 << floor_log2(p)
    r = p - pof2
    half = count // 2
    steps = []
    if r:
        evens = 2 * np.arange(r, dtype=np.int64)
        # the even rank sends the upper (ceil) half, receives the lower (floor) half
        src, dst, size = exchange(evens, evens + 1, (count - half) * elem_bytes, half * elem_bytes)
        steps.append(Step(src, dst, size, np.concatenate([evens, evens + 1]),
                          np.concatenate([np.full(r, half), np.full(r, count - half)]) * elem_bytes))
        # the pair's keeper (the root when it is the odd one) gets the other's half
        odd_keeps = evens + 1 == root
        steps.append(Step(np.where(odd_keeps, evens, evens + 1), np.where(odd_keeps, evens + 1, evens),
                          np.where(odd_keeps, half, count - half) * elem_bytes))

    def real(new):
        # real_rank() of the C file: the root stands for its pair
        return np.where(new >= r, new + r, np.where(2 * new + 1 == root, root, 2 * new))

    new = ranks(pof2)
    levels = floor_log2(pof2)
    for s in range(levels):
        low = new[(new >> s & 1) == 0]
        lo, hi = halving_range(count, low, s)
        mid = lo + (hi - lo) // 2
        src, dst, size = exchange(real(low), real(low | 1 << s), (hi - mid) * elem_bytes,
                                  (mid - lo) * elem_bytes)
        steps.append(Step(src, dst, size, dst, size))
    root_new = root // 2 if root < 2 * r else root - r
    steps += _gather_to_root(count, levels, root_new, real, elem_bytes)
    return Pattern(p, tuple(steps))


def reduce_ring(p: int, count: int, *, elem_bytes: int, root: int = 0,
                commutative: bool = True, **context) -> Pattern:
    """``reduce_ring.c``: p - 1 pairwise exchanges (rank r sends the block of r + k to
    r + k, combines its own), then every rank's block straight to the root, which
    receives them in rank order (above ``pattern.MAX_MESSAGES`` messages, the exchanges are
    :class:`ShiftSteps`, the sends to the root :class:`SerialSteps`)."""
    if not commutative:  # refused whatever p and count, as the registry refuses it
        raise ValueError("reduce ring needs a commutative op (commutative=True)")
    return _reduce_ring(p, count, elem_bytes=elem_bytes, root=root)


@nothing_to_send
def _reduce_ring(p: int, count: int, *, elem_bytes: int, root: int) -> Pattern:
    rank = ranks(p)
    # collsim_block_count: the first count mod p blocks one element larger
    block = (count // p + (rank < count % p)) * elem_bytes
    if beyond_explicit(p):
        # the exchanges as shift steps (a sample timed), the p - 1 steps of one message
        # to the root as serial steps (the same steps, timed at once)
        others = rank[rank != root]
        return Pattern(p, (ShiftSteps.series(rank, block, block),
                           SerialSteps(others, np.full(p - 1, root), block[others])))
    steps = []
    for k in range(1, p):
        dst = (rank + k) % p
        steps.append(Step(rank, dst, block[dst], rank, block))
    for src in rank[rank != root]:
        steps.append(Step([src], [root], [block[src]]))
    # its p - 1 exchanges drift apart as a ring's shifts do: run together up to 512 ranks
    return Pattern(p, tuple(steps), together=ring_unrolled(p))


@nothing_to_send
def bcast_scatter_recursive_doubling_allgather(p: int, count: int, *, elem_bytes: int,
                                               root: int = 0, commutative: bool = True,
                                               **context) -> Pattern:
    """``bcast_scatter_recursive_doubling_allgather.c``: binomial scatter of p chunks,
    then lg p exchanges of 1, 2, 4, ... chunks with rank (v xor m)."""
    if p & (p - 1):
        raise ValueError(f"p must be a power of two, got {p}")
    steps = binomial_scatter(p, count, root, elem_bytes)
    c = -(-count // p)
    v = ranks(p)
    m = 1
    while m < p:
        first = v & ~(m - 1)
        # collsim_chunk_span of the aligned group of m chunks
        size = np.minimum((first + m) * c, count) - np.minimum(first * c, count)
        steps.append(Step((v + root) % p, ((v ^ m) + root) % p, size * elem_bytes))
        m <<= 1
    return Pattern(p, tuple(steps))


PATTERNS = {
    ("allreduce", "binary_blocks"): allreduce_binary_blocks,
    ("reduce", "binary_blocks"): reduce_binary_blocks,
    ("reduce", "rabenseifner"): reduce_rabenseifner,
    ("reduce", "ring"): reduce_ring,
    ("bcast", "scatter_recursive_doubling_allgather"): bcast_scatter_recursive_doubling_allgather,
}

"""Patterns of alltoall and barrier.

Each builder follows ``algorithms/<coll>/<coll>_<alg>.c`` message for
message (see :mod:`collsim.analysis.network.patterns`); ``count`` is the
elements of one block (algorithms/collectives.def); a barrier's messages
are empty.

The alltoall patterns other than Bruck's (p ceil(lg p) messages) hold all
p (p - 1) messages, each rank's block for each other, and the engine routes
and shares as many flows: 16.8 million at 4096 ranks, where ``collsim predict
--platform fat-tree --nodes 4096 --np 4096 --coll alltoall --bytes 64KiB``
took 3.6 s and 320 MB for pairwise, 32 s and 610 MB for scattered (measured;
1024 ranks: 2.6 s and 3.2 s).  Fine up to a few thousand ranks; the cost grows
as p^2, so a million ranks (10^12 messages) is out of reach as explicit
messages.  Above ``pattern.MAX_MESSAGES`` (4096 ranks) the pairwise ones are
one :class:`collsim.analysis.network.shifts.ShiftSteps` (their p - 1
permutation steps, a stratified sample of them timed: a model of the
engine, its error measured), and the linear and scattered ones, which post
all of a rank's messages (or batches of 32) at once, one
:class:`collsim.analysis.network.batches.ShiftBatches` (a weighted sample
of each batch's shifts shared by max-min, scattered's batches sampled: a
model of the engine, its error measured); linear, timed by levels on a
fat-tree or a dragonfly whose nodes its ranks fill in whole blocks, refuses
(``PatternTooLarge``) on a fat-tree's other ranks (its sample in strata
there takes more than 13 minutes) and elsewhere where that sample would
exceed ``batches.SAMPLE_FLOWS`` flows (above 335,544 ranks).
"""

from __future__ import annotations

import numpy as np

from collsim.analysis.models._base import ceil_log2
from collsim.analysis.models.alltoall import SCATTERED_THROTTLE, bruck_blocks, scattered_batches

from ..pattern import Pattern, Step, exchange
from ..batches import ShiftBatches
from ..serial import SerialSteps
from ..shifts import ShiftSteps, beyond_explicit
from ._common import nothing_to_send, ranks, ring_unrolled

__all__ = ["PATTERNS"]


@nothing_to_send
def alltoall_linear(p: int, count: int, *, elem_bytes: int, root: int = 0,
                    commutative: bool = True, **context) -> Pattern:
    """``alltoall_linear.c``: every rank's p - 1 sends and receives at once (p (p - 1) messages;
    above ``pattern.MAX_MESSAGES``, :class:`ShiftBatches`, one batch)."""
    rank = ranks(p)
    if beyond_explicit(p):
        return Pattern(p, (ShiftBatches.of(rank, count * elem_bytes, p),))
    shift = np.arange(1, p, dtype=np.int64)
    src = np.repeat(rank, p - 1)
    dst = (src + np.tile(shift, p)) % p
    # every MPI_Irecv before the MPI_Isends
    return Pattern(p, (Step(src, dst, np.full(len(src), count * elem_bytes),
                            receive_first=np.ones(len(src))),))


def _shifts(p: int, n_bytes: int) -> tuple[Step, ...]:
    """p - 1 steps, step k: rank i sends to i + k (mod p); above ``pattern.MAX_MESSAGES``
    messages, one :class:`ShiftSteps` (a sample of them timed)."""
    rank = ranks(p)
    if beyond_explicit(p):
        return (ShiftSteps.series(rank, np.full(p, n_bytes)),)
    size = np.full(p, n_bytes)
    return tuple(Step(rank, (rank + k) % p, size) for k in range(1, p))


@nothing_to_send
def alltoall_pairwise(p: int, count: int, *, elem_bytes: int, root: int = 0,
                      commutative: bool = True, **context) -> Pattern:
    """``alltoall_pairwise.c``: p - 1 steps, rank i to i + k and from i - k (p (p - 1) messages,
    run together up to 512 ranks as a ring phase is; above ``pattern.MAX_MESSAGES``,
    :class:`ShiftSteps`)."""
    return Pattern(p, _shifts(p, count * elem_bytes), together=ring_unrolled(p))


@nothing_to_send
def alltoall_pairwise_xor(p: int, count: int, *, elem_bytes: int, root: int = 0,
                          commutative: bool = True, **context) -> Pattern:
    """``alltoall_pairwise_xor.c``: p - 1 steps with i XOR k for a power of two, else shifts
    (above ``pattern.MAX_MESSAGES``, :class:`ShiftSteps`)."""
    n = count * elem_bytes
    if p & (p - 1):
        return Pattern(p, _shifts(p, n), together=ring_unrolled(p))
    rank = ranks(p)
    if beyond_explicit(p):
        return Pattern(p, (ShiftSteps.series(rank, np.full(p, n), xor=True),))
    return Pattern(p, tuple(Step(rank, rank ^ k, np.full(p, n)) for k in range(1, p)),
                   together=ring_unrolled(p))


@nothing_to_send
def alltoall_bruck(p: int, count: int, *, elem_bytes: int, root: int = 0,
                   commutative: bool = True, **context) -> Pattern:
    """``alltoall_bruck.c``: ceil(lg p) steps, rank i to i + 2^k, the blocks with bit k set."""
    rank = ranks(p)
    return Pattern(p, tuple(
        Step(rank, (rank + (1 << k)) % p, np.full(p, bruck_blocks(p, 1 << k) * count * elem_bytes))
        for k in range(ceil_log2(p))))


@nothing_to_send
def alltoall_scattered(p: int, count: int, *, elem_bytes: int, root: int = 0,
                       commutative: bool = True, **context) -> Pattern:
    """``alltoall_scattered.c``: batches of 32 offsets, all of a batch at once (p (p - 1)
    messages; above ``pattern.MAX_MESSAGES``, :class:`ShiftBatches` of 32)."""
    rank = ranks(p)
    if beyond_explicit(p):
        return Pattern(p, (ShiftBatches.of(rank, count * elem_bytes, SCATTERED_THROTTLE,
                                           backward=True),))
    steps = []
    for batch in scattered_batches(p):
        offsets = np.asarray(batch, dtype=np.int64)
        src = np.repeat(rank, len(offsets))
        steps.append(Step(src, (src - np.tile(offsets, p)) % p,
                          np.full(len(src), count * elem_bytes), receive_first=np.ones(len(src))))
    return Pattern(p, tuple(steps))


def _empty(n: int) -> np.ndarray:
    return np.zeros(n, dtype=np.int64)


def barrier_dissemination(p: int, count: int, *, elem_bytes: int, root: int = 0,
                          commutative: bool = True, **context) -> Pattern:
    """``barrier_dissemination.c``: ceil(lg p) rounds, rank i to i + 2^k (empty messages)."""
    rank = ranks(p)
    return Pattern(p, tuple(Step(rank, (rank + (1 << k)) % p, _empty(p))
                            for k in range(ceil_log2(p))))


def barrier_recursive_doubling(p: int, count: int, *, elem_bytes: int, root: int = 0,
                               commutative: bool = True, **context) -> Pattern:
    """``barrier_recursive_doubling.c``: ranks >= m enter through r - m, lg m exchanges
    among the first m ranks (m the largest power of two <= p), then r - m releases r."""
    m = 1 << (p.bit_length() - 1)
    high = np.arange(m, p, dtype=np.int64)
    low = ranks(m)
    steps = [Step(high, high - m, _empty(p - m))] if p > m else []
    mask = 1
    while mask < m:
        a = low[(low & mask) == 0]
        src, dst, size = exchange(a, a | mask, 0)
        # MPI_Irecv, MPI_Send, MPI_Wait
        steps.append(Step(src, dst, size, receive_first=np.ones(len(src))))
        mask <<= 1
    if p > m:
        # the release is an MPI_Ssend
        steps.append(Step(high - m, high, _empty(p - m), synchronous=np.ones(p - m)))
    return Pattern(p, tuple(steps))


def barrier_tree(p: int, count: int, *, elem_bytes: int, root: int = 0,
                 commutative: bool = True, **context) -> Pattern:
    """``barrier_tree.c``: binomial gather to rank 0 (jumps 1, 2, 4, ...), then release
    (the largest jump first)."""
    rank = ranks(p)
    jumps = [1 << k for k in range(ceil_log2(p))]
    up = [Step(rank[rank % (2 * j) == j], rank[rank % (2 * j) == j] - j,
               _empty(int(np.count_nonzero(rank % (2 * j) == j)))) for j in jumps]
    down = []
    for j in reversed(jumps):
        parents = rank[(rank % (2 * j) == 0) & (rank + j < p)]
        down.append(Step(parents, parents + j, _empty(len(parents))))
    return Pattern(p, tuple(up + down))


def barrier_double_ring(p: int, count: int, *, elem_bytes: int, root: int = 0,
                        commutative: bool = True, **context) -> Pattern:
    """``barrier_double_ring.c``: 2p steps of one empty message, i to i + 1, twice round
    (``MPI_Send`` the first time round, ``MPI_Ssend`` the second: :class:`SerialSteps`)."""
    if p == 1:
        return Pattern(p, ())
    sender = np.arange(2 * p, dtype=np.int64) % p
    return Pattern(p, (SerialSteps(sender, (sender + 1) % p, _empty(2 * p),
                                   synchronous=np.arange(2 * p) >= p),))


PATTERNS = {
    ("alltoall", "linear"): alltoall_linear,
    ("alltoall", "pairwise"): alltoall_pairwise,
    ("alltoall", "pairwise_xor"): alltoall_pairwise_xor,
    ("alltoall", "bruck"): alltoall_bruck,
    ("alltoall", "scattered"): alltoall_scattered,
    ("barrier", "dissemination"): barrier_dissemination,
    ("barrier", "recursive_doubling"): barrier_recursive_doubling,
    ("barrier", "tree"): barrier_tree,
    ("barrier", "double_ring"): barrier_double_ring,
}

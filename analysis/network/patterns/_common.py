"""What the pattern builders share: the empty case, rank vectors, ring phases, the fold,
the binomial scatter."""

from __future__ import annotations

import numpy as np

from collsim.analysis.models._base import ceil_log2

from ..pattern import Pattern, Step

__all__ = ["RING_EVENT_MESSAGES", "nothing_to_send", "ranks", "ring_phase", "ring_unrolled",
           "fold_real", "binomial_scatter"]


def nothing_to_send(build):
    """One rank or no data: the C code returns at once (no step)."""
    def wrapped(p: int, count: int, **kwargs) -> Pattern:
        if p < 1 or count < 0:
            raise ValueError(f"need p >= 1 and count >= 0, got p={p}, count={count}")
        return Pattern(p, ()) if p == 1 or count == 0 else build(p, count, **kwargs)

    wrapped.__name__, wrapped.__doc__ = build.__name__, build.__doc__
    return wrapped


def ranks(p: int) -> np.ndarray:
    """0, 1, ..., p - 1 as int64."""
    return np.arange(p, dtype=np.int64)


# Ring phases of at most this many messages (p (p - 1): up to 512 ranks) are
# unrolled, each shift with its real block sizes, and the pattern runs them together
# as one event simulation (``Pattern.together``: the ranks drift apart as in SimGrid).
# Above, the first shift, with its real block sizes, is repeated p - 1 times (every
# shift moves the same blocks one place on), its first repeats as events
# (``engine._repeat``).  On random ranks of seed004_graphene, allreduce ring: 8 B on
# 512 ranks +14.7 % with the largest block repeated (the closed forms' bound), -3.2 %
# unrolled; 64 KiB on 100 ranks +10.8 % and +0.9 % (docs/MODELS.md "Ring phases").
RING_EVENT_MESSAGES = 1 << 18


def ring_unrolled(p: int) -> bool:
    """Whether a ring phase on p ranks is unrolled (:data:`RING_EVENT_MESSAGES`): its
    pattern then runs together (``Pattern(..., together=ring_unrolled(p))``).  The
    pairwise exchanges (alltoall ``pairwise`` and ``pairwise_xor``, reduce_scatter
    ``pairwise``, reduce ``ring``), p - 1 steps of p messages that drift apart as a
    ring's shifts do, run together by the same bound (on 256 random ranks of
    seed004_graphene, timed step by step, 21 to 77 % under SimGrid; together, equal:
    docs/MODELS.md "The pairwise exchanges run together")."""
    return p * (p - 1) <= RING_EVENT_MESSAGES


def ring_phase(p: int, sizes_at, *, reduce: bool, elem_bytes: int) -> list[Step]:
    """p - 1 ring shifts: in shift k rank i sends ``sizes_at(k)[i]`` elements to i + 1.

    ``sizes_at(k)`` is a rotation of the blocks (a rank passes on what it received):
    every shift moves the same block sizes.  Each shift in turn where
    :func:`ring_unrolled`, else the first shift repeated (``Step.repeat``)."""
    rank = ranks(p)
    right = (rank + 1) % p
    if ring_unrolled(p):
        steps = []
        for k in range(p - 1):
            n = sizes_at(k) * elem_bytes
            steps.append(Step(rank, right, n, right if reduce else (),
                              n if reduce else ()))
        return steps
    n = sizes_at(0) * elem_bytes
    return [Step(rank, right, n, right if reduce else (), n if reduce else (), repeat=p - 1)]


def fold_real(newrank: np.ndarray, r: int, odd: int) -> np.ndarray:
    """The real rank of a new rank after the power-of-two fold (``real_rank`` in the C files)."""
    return np.where(newrank < r, 2 * newrank + odd, newrank + r)




def binomial_scatter(p: int, count: int, root: int, elem_bytes: int) -> list[Step]:
    """``collsim_binomial_scatter`` (algorithms/common/scatter.c): chunks of
    ``ceil(count / p)`` elements down a binomial tree, farthest subtree first.

    Rank v (numbered from the root) receives the chunks v .. v + mask - 1 of
    its subtree, then sends each child's subtree; a chunk past the count is
    empty, and an empty send is still a message (its envelope).
    """
    c = -(-count // p)
    v = ranks(p)
    steps = []
    for level in range(ceil_log2(p) - 1, -1, -1):
        mask = 1 << level
        senders = v[(v % (2 * mask) == 0) & (v + mask < p)]
        last = np.minimum(senders + 2 * mask, p)
        size = np.minimum(last * c, count) - np.minimum((senders + mask) * c, count)
        steps.append(Step((senders + root) % p, (senders + mask + root) % p, size * elem_bytes))
    return steps

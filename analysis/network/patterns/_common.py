"""What the pattern builders share: the empty case, rank vectors, ring phases, the fold,
the binomial scatter."""

from __future__ import annotations

import numpy as np

from collsim.analysis.models._base import ceil_log2

from ..pattern import Pattern, Step

__all__ = ["UNROLL_RANKS", "nothing_to_send", "ranks", "ring_phase", "fold_real", "binomial_scatter"]

# Ring phases of uneven blocks are timed step by step (exact block sizes, each
# rank on its own clock) up to this many ranks; above, as the first shift (its
# real block sizes) repeated p - 1 times: every shift moves the same blocks, one
# place on (allreduce ring of 8 B on 512 random ranks of seed004_graphene: +3e-6
# against SimGrid; the largest block repeated, the closed forms' bound, +14.7 %).
UNROLL_RANKS = 64


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


def ring_phase(p: int, sizes_at, *, reduce: bool, elem_bytes: int) -> list[Step]:
    """p - 1 ring shifts: in shift k rank i sends ``sizes_at(k)[i]`` elements to i + 1.

    ``sizes_at(k)`` is a rotation of the blocks (a rank passes on what it received):
    every shift moves the same block sizes.  Even blocks, or uneven ones above
    :data:`UNROLL_RANKS`, are the first shift repeated (``Step.repeat``); uneven ones
    up to it, each shift in turn."""
    rank = ranks(p)
    right = (rank + 1) % p
    first = sizes_at(0)
    if np.any(first != first[0]) and p <= UNROLL_RANKS:
        steps = []
        for k in range(p - 1):
            n = sizes_at(k) * elem_bytes
            steps.append(Step(rank, right, n, right if reduce else (),
                              n if reduce else ()))
        return steps
    n = first * elem_bytes
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

"""The message patterns of the registry's algorithms, read off their C code.

One builder per registry entry, ``f(p, count, *, elem_bytes, root,
commutative) -> Pattern``, following ``algorithms/<coll>/<coll>_<alg>.c``
message for message: who sends how many elements to whom in which step, and
who combines how many afterwards (block sizes as the C code rounds them).
On a crossbar each pattern's time is the closed-form model of
``collsim.analysis.models`` (``tests/test_network_model.py``).

:data:`PATTERNS` maps ``(collective, algorithm)`` to its builder; an
algorithm without one has no network model yet.
"""

from __future__ import annotations

import numpy as np

from collsim.analysis.models._base import ceil_log2, floor_log2

from .pattern import Pattern, Step, exchange

__all__ = ["PATTERNS", "pattern_for", "UNROLL_RANKS"]

# Ring phases of uneven blocks are timed step by step (exact block sizes, each
# rank on its own clock) up to this many ranks; above, as one step of the
# largest block repeated p - 1 times (the closed forms' bound).
UNROLL_RANKS = 64


def _nothing_to_send(build):
    """One rank or no data: the C code returns at once (no step)."""
    def wrapped(p: int, count: int, **kwargs) -> Pattern:
        if p < 1 or count < 0:
            raise ValueError(f"need p >= 1 and count >= 0, got p={p}, count={count}")
        return Pattern(p, ()) if p == 1 or count == 0 else build(p, count, **kwargs)

    wrapped.__name__, wrapped.__doc__ = build.__name__, build.__doc__
    return wrapped


def _ranks(p: int) -> np.ndarray:
    return np.arange(p, dtype=np.int64)


def _ring_phase(p: int, sizes_at, *, reduce: bool, elem_bytes: int, largest: int) -> list[Step]:
    """p - 1 ring shifts: in shift k rank i sends ``sizes_at(k)[i]`` elements to i + 1."""
    ranks = _ranks(p)
    right = (ranks + 1) % p
    first = sizes_at(0)
    uneven = bool(np.any(first != largest))
    if uneven and p <= UNROLL_RANKS:
        steps = []
        for k in range(p - 1):
            n = sizes_at(k) * elem_bytes
            steps.append(Step(ranks, right, n, right if reduce else (),
                              n if reduce else ()))
        return steps
    n = np.full(p, largest * elem_bytes)
    return [Step(ranks, right, n, right if reduce else (), n if reduce else (), repeat=p - 1)]


@_nothing_to_send
def allreduce_ring(p: int, count: int, *, elem_bytes: int, root: int = 0,
                   commutative: bool = True) -> Pattern:
    """``allreduce_ring.c``: p - 1 shifts of reduce-scatter (combine), p - 1 of allgather."""
    ranks = _ranks(p)
    block = count // p + (ranks < count % p)
    largest = int(block.max())
    scatter = _ring_phase(p, lambda k: block[(ranks - k) % p], reduce=True,
                          elem_bytes=elem_bytes, largest=largest)
    gather = _ring_phase(p, lambda k: block[(ranks + 1 - k) % p], reduce=False,
                         elem_bytes=elem_bytes, largest=largest)
    return Pattern(p, tuple(scatter + gather))


def _fold_real(newrank: np.ndarray, r: int, odd: int) -> np.ndarray:
    """The real rank of a new rank after the power-of-two fold (``real_rank`` in the C files)."""
    return np.where(newrank < r, 2 * newrank + odd, newrank + r)


@_nothing_to_send
def allreduce_recursive_doubling(p: int, count: int, *, elem_bytes: int, root: int = 0,
                                 commutative: bool = True) -> Pattern:
    """``allreduce_recursive_doubling.c``: fold, lg p' exchanges of the vector, unfold."""
    n = count * elem_bytes
    pof2 = 1 << floor_log2(p)
    r = p - pof2
    steps = []
    evens = 2 * np.arange(r, dtype=np.int64)
    if r:
        steps.append(Step(evens, evens + 1, np.full(r, n), evens + 1, np.full(r, n)))
    new = _ranks(pof2)
    mask = 1
    while mask < pof2:
        low = new[(new & mask) == 0]
        a, b = _fold_real(low, r, 1), _fold_real(low ^ mask, r, 1)
        src, dst, size = exchange(a, b, n)
        steps.append(Step(src, dst, size, src, size))
        mask <<= 1
    if r:
        steps.append(Step(evens + 1, evens, np.full(r, n)))
    return Pattern(p, tuple(steps))


@_nothing_to_send
def allreduce_rabenseifner(p: int, count: int, *, elem_bytes: int, root: int = 0,
                           commutative: bool = True) -> Pattern:
    """``allreduce_rabenseifner.c``: fold by halves, recursive halving, doubling, unfold."""
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
    new = _ranks(pof2)
    real = _fold_real(new, r, 0)
    lo, hi = np.zeros(pof2, dtype=np.int64), np.full(pof2, count, dtype=np.int64)
    saved = []
    mask = 1
    while mask < pof2:
        saved.append((lo.copy(), hi.copy()))
        mid = lo + (hi - lo) // 2
        keep_lower = (new & mask) == 0
        sent = np.where(keep_lower, hi - mid, mid - lo)
        kept = np.where(keep_lower, mid - lo, hi - mid)
        steps.append(Step(real, real[new ^ mask], sent * elem_bytes, real, kept * elem_bytes))
        lo, hi = np.where(keep_lower, lo, mid), np.where(keep_lower, mid, hi)
        mask <<= 1
    for level in range(len(saved) - 1, -1, -1):
        steps.append(Step(real, real[new ^ (1 << level)], (hi - lo) * elem_bytes))
        lo, hi = saved[level]
    if r:
        steps.append(Step(evens, evens + 1, np.full(r, count * elem_bytes)))
    return Pattern(p, tuple(steps))


@_nothing_to_send
def bcast_binomial(p: int, count: int, *, elem_bytes: int, root: int = 0,
                   commutative: bool = True) -> Pattern:
    """``bcast_binomial.c``: ceil(lg p) rounds, farthest child first."""
    n = count * elem_bytes
    v = _ranks(p)
    steps = []
    for level in range(ceil_log2(p) - 1, -1, -1):
        mask = 1 << level
        senders = v[(v % (2 * mask) == 0) & (v + mask < p)]
        steps.append(Step((senders + root) % p, (senders + mask + root) % p,
                          np.full(len(senders), n)))
    return Pattern(p, tuple(steps))


@_nothing_to_send
def reduce_binomial(p: int, count: int, *, elem_bytes: int, root: int = 0,
                    commutative: bool = True) -> Pattern:
    """``reduce_binomial.c``: ceil(lg p) rounds toward the tree's root, combining each."""
    n = count * elem_bytes
    tree_root = root if commutative else 0
    v = _ranks(p)
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


@_nothing_to_send
def bcast_scatter_allgather(p: int, count: int, *, elem_bytes: int, root: int = 0,
                            commutative: bool = True) -> Pattern:
    """``bcast_scatter_allgather.c``: binomial scatter of p chunks, then a ring allgather."""
    c = -(-count // p)
    v = _ranks(p)

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
    steps += _ring_phase(p, lambda k: chunk[(relative - k) % p], reduce=False,
                         elem_bytes=elem_bytes, largest=c)
    return Pattern(p, tuple(steps))


PATTERNS = {
    ("allreduce", "ring"): allreduce_ring,
    ("allreduce", "recursive_doubling"): allreduce_recursive_doubling,
    ("allreduce", "rabenseifner"): allreduce_rabenseifner,
    ("bcast", "binomial"): bcast_binomial,
    ("bcast", "scatter_allgather"): bcast_scatter_allgather,
    ("reduce", "binomial"): reduce_binomial,
}


def pattern_for(collective: str, algorithm: str):
    """The pattern builder of a registry entry.

    Raises
    ------
    KeyError
        Naming the entries that have one.
    """
    try:
        return PATTERNS[(collective, algorithm)]
    except KeyError:
        have = ", ".join(f"{c}/{a}" for c, a in PATTERNS)
        raise KeyError(f"{collective}/{algorithm} has no network pattern yet (have: {have})") \
            from None

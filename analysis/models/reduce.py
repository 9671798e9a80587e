"""Cost models of the reduce algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``).  Accuracy
classes hold on the crossbar (one rank per node) under the ``hockney`` profile.
"""

from __future__ import annotations

from ._base import (
    DEFAULT_PARAMS,
    AlgorithmParams,
    NetworkParams,
    Prediction,
    ceil_log2,
    check_arguments,
    exact,
    message_s,
    reduce_s,
)
from ._replay import Clocks

__all__ = ["binomial", "linear", "rabenseifner"]


def binomial(
    p: int,
    n_bytes: int,
    net: NetworkParams,
    *,
    elem_bytes: int = 8,
    root: int = 0,
    commutative: bool = True,
    params: AlgorithmParams = DEFAULT_PARAMS,
) -> Prediction:
    """Binomial-tree reduce.

    ``T = ceil(lg p) (alpha + n beta + n gamma) + [not commutative and root != 0] (alpha + n beta)``
    (seed 004 formula (6) with ``ceil``; the extra message carries the result
    from rank 0, where a non-commutative reduction ends in rank order, to the
    root).

    Accuracy: exact.  The root receives ceil(lg p) messages one after the
    other, and each child has finished its own subtree by the time the root
    asks for it.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    time = ceil_log2(p) * (message_s(net, n_bytes) + reduce_s(net, n_bytes))
    if not commutative and root != 0:
        time += message_s(net, n_bytes)
    return exact(time)


def linear(
    p: int,
    n_bytes: int,
    net: NetworkParams,
    *,
    elem_bytes: int = 8,
    root: int = 0,
    commutative: bool = True,
    params: AlgorithmParams = DEFAULT_PARAMS,
) -> Prediction:
    """Linear (flat-tree) reduce with in-order blocking receives.

    ``T = (p - 1) (alpha + n beta + n gamma)`` (seed 004 formulas (1), (3)).

    Accuracy: exact.  The root posts one receive at a time, so the p - 1
    transfers and reductions are serialized.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact((p - 1) * (message_s(net, n_bytes) + reduce_s(net, n_bytes)))


def _halving_ranges(count: int, pof2: int) -> tuple[list[int], list[int], list[list[tuple[int, int]]]]:
    """Ranges of recursive vector halving on pof2 ranks.

    Returns the final (lo, hi) of every new rank, and per level the (lo, hi)
    every rank held before that level's step (as in the C code: at distance
    d the rank whose bit d is 0 keeps the lower half ``[lo, lo + (hi-lo)//2)``).
    """
    lo, hi = [0] * pof2, [count] * pof2
    before: list[list[tuple[int, int]]] = []
    mask = 1
    while mask < pof2:
        before.append(list(zip(lo, hi)))
        for v in range(pof2):
            mid = lo[v] + (hi[v] - lo[v]) // 2
            if v & mask:
                lo[v] = mid
            else:
                hi[v] = mid
        mask <<= 1
    return lo, hi, before


def _rabenseifner_reduce_scatter(clocks: Clocks, p: int, count: int, rank_of, levels_ranges) -> None:
    """Replay the recursive-halving reduce-scatter on the p' new ranks."""
    for level, ranges in enumerate(levels_ranges):
        mask = 1 << level
        for v, (lo, hi) in enumerate(ranges):
            u = v ^ mask
            if v & mask:
                continue
            mid = lo + (hi - lo) // 2
            clocks.exchange(rank_of(v), rank_of(u), hi - mid, mid - lo)
            clocks.reduce(rank_of(v), mid - lo)
            clocks.reduce(rank_of(u), hi - mid)


def rabenseifner(
    p: int,
    n_bytes: int,
    net: NetworkParams,
    *,
    elem_bytes: int = 8,
    root: int = 0,
    commutative: bool = True,
    params: AlgorithmParams = DEFAULT_PARAMS,
) -> Prediction:
    """Rabenseifner's reduce: recursive-halving reduce-scatter + binomial gather.

    Seed 001 sec. 2.5 (reduce-scatter + gather), with ``p' = 2^floor(lg p)``
    and ``f_alpha = f_beta = 1``:

    ``T = 2 lg p' alpha + 2 (1 - 1/p') n beta + (1 - 1/p') n gamma``
    ``    + [p != p'] (2 alpha + n beta + n/2 gamma)``

    (the pre-step folding 2r = 2(p - p') ranks into r: one exchange of halves,
    a reduction of a half, and the half sent back; the root always takes part,
    so no final message).  Every message carries SMPI's 16-byte envelope.

    The blocks are whole elements: when halvings are uneven, the sizes are
    replayed exactly on per-rank clocks (``_replay.Clocks``), which equals the
    formula above when p' divides the count.

    Accuracy: exact.  Every step is a blocking exchange or message between
    two ranks on separate full-duplex links, so the replay of the schedule is
    the simulation's critical path.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if not 0 <= root < p:
        raise ValueError(f"root must be in 0..{p - 1}, got {root!r}")
    if p == 1 or count == 0:
        return exact(0.0)
    pof2 = 1 << (p.bit_length() - 1)
    r = p - pof2
    half = count // 2

    def rank_of(v: int) -> int:
        if v >= r:
            return v + r
        return root if root == 2 * v + 1 else 2 * v

    clocks = Clocks(p, net, elem_bytes)
    for i in range(r):
        even, odd = 2 * i, 2 * i + 1
        clocks.exchange(even, odd, count - half, half)
        clocks.reduce(even, half)
        clocks.reduce(odd, count - half)
        if root == odd:
            clocks.send(even, odd, half)
        else:
            clocks.send(odd, even, count - half)
    lo, hi, before = _halving_ranges(count, pof2)
    _rabenseifner_reduce_scatter(clocks, p, count, rank_of, before)
    root_new = root // 2 if root < 2 * r else root - r
    cur_lo, cur_hi = list(lo), list(hi)
    for level in reversed(range(len(before))):
        mask = 1 << level
        for v in range(pof2):
            if (v ^ root_new) >> level != 1:
                continue  # a sender differs from the root in bit `level`, agrees above
            u = v ^ mask
            clocks.send(rank_of(v), rank_of(u), cur_hi[v] - cur_lo[v])
            cur_lo[u], cur_hi[u] = before[level][u]
    return exact(clocks.finish())

"""Patterns of reduce_scatter, scan and exscan.

Each builder follows ``algorithms/<coll>/<coll>_<alg>.c`` message for
message (see :mod:`collsim.analysis.network.patterns`); ``count`` is the
elements of one block (algorithms/collectives.def: reduce_scatter's block
is what each rank receives, a scan's the whole vector).
"""

from __future__ import annotations

import numpy as np

from collsim.analysis.models._base import floor_log2

from ..pattern import Pattern, Step, exchange, in_sequence
from ..serial import SerialSteps
from ..shifts import ShiftSteps, beyond_explicit
from . import gathers, rounds
from ._common import fold_real, nothing_to_send, ranks, ring_phase, ring_unrolled

__all__ = ["PATTERNS"]


@nothing_to_send
def reduce_scatter_reduce_then_scatter(p: int, count: int, *, elem_bytes: int, root: int = 0,
                                       commutative: bool = True, **context) -> Pattern:
    """``reduce_scatter_reduce_then_scatter.c``: the binomial reduce of the p blocks to
    rank 0, then the linear scatter from it."""
    return in_sequence(
        rounds.reduce_binomial(p, p * count, elem_bytes=elem_bytes, root=0, commutative=True),
        gathers.scatter_linear(p, count, elem_bytes=elem_bytes, root=0))


@nothing_to_send
def reduce_scatter_ring(p: int, count: int, *, elem_bytes: int, root: int = 0,
                        commutative: bool = True, **context) -> Pattern:
    """``reduce_scatter_ring.c``: p - 1 shifts of one block to the right, each combined
    (``commutative`` is not read: the registry refuses the others)."""
    return Pattern(p, tuple(ring_phase(p, lambda k: np.full(p, count), reduce=True,
                                       elem_bytes=elem_bytes)), together=ring_unrolled(p))


@nothing_to_send
def reduce_scatter_pairwise(p: int, count: int, *, elem_bytes: int, root: int = 0,
                            commutative: bool = True, **context) -> Pattern:
    """``reduce_scatter_pairwise.c``: in step s every rank r sends a block to r + s and
    combines the one it receives from r - s (p (p - 1) messages; above
    ``pattern.MAX_MESSAGES``, :class:`ShiftSteps`: a sample of the steps timed)."""
    rank = ranks(p)
    n = np.full(p, count * elem_bytes)
    if beyond_explicit(p):
        return Pattern(p, (ShiftSteps.series(rank, n, n),))
    return Pattern(p, tuple(Step(rank, (rank + s) % p, n, rank, n) for s in range(1, p)),
                   together=ring_unrolled(p))


def _fold(p: int, count: int, elem_bytes: int) -> tuple[int, list[Step]]:
    """The fold of recursive_halving and butterfly: even rank 2i < 2r sends its p blocks
    to 2i + 1, which combines them.  Returns r and the step (none when r = 0)."""
    r = p - (1 << floor_log2(p))
    if not r:
        return 0, []
    evens = 2 * ranks(r)
    n = np.full(r, p * count * elem_bytes)
    return r, [Step(evens, evens + 1, n, evens + 1, n)]


def _group_block(v: np.ndarray, r: int) -> np.ndarray:
    """The first block of new rank v's group (``group_block`` in the C files)."""
    return np.where(v < r, 2 * v, v + r)


def _pair_step(a: np.ndarray, b: np.ndarray, a_sends, b_sends, a_keeps, b_keeps) -> Step:
    """MPI_Sendrecv between the pairs (a, b) (sizes in bytes), each combining what it keeps."""
    src, dst, size = exchange(a, b, a_sends, b_sends)
    return Step(src, dst, size, np.concatenate([a, b]), np.concatenate([a_keeps, b_keeps]))


@nothing_to_send
def reduce_scatter_recursive_halving(p: int, count: int, *, elem_bytes: int, root: int = 0,
                                     commutative: bool = True, **context) -> Pattern:
    """``reduce_scatter_recursive_halving.c``: the fold, halving over the p' groups at
    distance p'/2 .. 1 (the lower rank keeps the lower half), each odd rank's return of
    its even neighbour's block."""
    r, steps = _fold(p, count, elem_bytes)
    pof2 = p - r
    new = ranks(pof2)
    unit = count * elem_bytes
    mask = pof2 >> 1
    while mask:
        low = new[(new & mask) == 0]
        lo = low & -(2 * mask)   # the pair's range of groups: [lo, lo + 2 mask)
        first, middle, last = (_group_block(lo + k * mask, r) for k in (0, 1, 2))
        steps.append(_pair_step(fold_real(low, r, 1), fold_real(low | mask, r, 1),
                                (last - middle) * unit, (middle - first) * unit,
                                (middle - first) * unit, (last - middle) * unit))
        mask >>= 1
    if r:
        evens = 2 * ranks(r)
        steps.append(Step(evens + 1, evens, np.full(r, unit)))
    return Pattern(p, tuple(steps))


def _mirror(v: np.ndarray, bits: int) -> np.ndarray:
    """v with its low ``bits`` bits reversed."""
    out = np.zeros_like(v)
    for b in range(bits):
        out |= ((v >> b) & 1) << (bits - 1 - b)
    return out


@nothing_to_send
def reduce_scatter_butterfly(p: int, count: int, *, elem_bytes: int, root: int = 0,
                             commutative: bool = True, **context) -> Pattern:
    """``reduce_scatter_butterfly.c``: (the fold), the rounds at distance 1 .. p'/2 (the
    lower rank keeps the lower half of its range), then (p not a power of two) each group's
    first block to its even rank and an exchange with the holder of the rank's own group."""
    r, steps = _fold(p, count, elem_bytes)
    pof2 = p - r
    bits = floor_log2(pof2)
    new = ranks(pof2)
    unit = count * elem_bytes
    index = np.zeros(pof2, dtype=np.int64)  # the first group each new rank holds
    nblocks, mask = pof2, 1
    while mask < pof2:
        nblocks //= 2
        low = new[(new & mask) == 0]
        first, middle, last = (_group_block(index[low] + k * nblocks, r) for k in (0, 1, 2))
        steps.append(_pair_step(fold_real(low, r, 1), fold_real(low | mask, r, 1),
                                (last - middle) * unit, (middle - first) * unit,
                                (middle - first) * unit, (last - middle) * unit))
        index[low | mask] += nblocks
        mask <<= 1
    if r:
        peer = _mirror(new, bits)
        pairs = new[peer < r]
        steps.append(Step(fold_real(pairs, r, 1), 2 * peer[pairs], np.full(len(pairs), unit)))
        low = new[new < peer]
        src, dst, size = exchange(fold_real(low, r, 1), fold_real(peer[low], r, 1), unit)
        steps.append(Step(src, dst, size))
    return Pattern(p, tuple(steps))


def _outside(root: np.ndarray, mask: int, p: int) -> np.ndarray:
    """Blocks of p outside the subtrees [root, root + mask), clipped to p."""
    return np.minimum(root, p) + p - np.minimum(root + mask, p)


@nothing_to_send
def reduce_scatter_recursive_doubling(p: int, count: int, *, elem_bytes: int, root: int = 0,
                                      commutative: bool = True, **context) -> Pattern:
    """``reduce_scatter_recursive_doubling.c``: in step mask the pairs exchange the blocks
    outside their subtrees; in a subtree whose partner subtree p cuts, the ranks with a
    partner forward what they received, level by level; then every rank that received
    combines (in its last step of the round)."""
    rank = ranks(p)
    unit = count * elem_bytes
    steps = []
    mask = 1
    while mask < p:
        low = rank[((rank & mask) == 0) & ((rank | mask) < p)]
        high = low | mask
        src, dst, size = exchange(low, high, _outside(low & -mask, mask, p) * unit,
                                  _outside(high & -mask, mask, p) * unit)
        round_steps = [(src, dst, size)] + _forwards(p, mask, unit)
        got = np.zeros(p, dtype=bool)
        last = np.full(p, -1)
        for k, (src, dst, _) in enumerate(round_steps):
            got[dst] = True
            last[src] = last[dst] = k
        for k, (src, dst, size) in enumerate(round_steps):
            reducers = rank[got & (last == k)]
            steps.append(Step(src, dst, size, reducers,
                              _outside((reducers ^ mask) & -mask, mask, p) * unit))
        mask <<= 1
    return Pattern(p, tuple(steps))


def _forwards(p: int, mask: int, unit: int) -> list[tuple[np.ndarray, np.ndarray, np.ndarray]]:
    """The forwarding sends of step mask, one (src, dst, bytes) per level: only the lower
    subtree of the last pair, when p cuts its partner subtree, forwards."""
    root = (p - 1) & -(2 * mask)            # the last pair of subtrees
    partner_root = root + mask
    if partner_root >= p or partner_root + mask <= p:
        return []
    completed = p - partner_root
    size = int(_outside(np.array(partner_root), mask, p)) * unit
    v = np.arange(root, root + mask, dtype=np.int64)
    levels = []
    half = mask >> 1
    while half:
        tree_root = v & -(2 * half)
        send = ((v & half) == 0) & (v < tree_root + completed) & (v + half >= tree_root + completed)
        levels.append((v[send], v[send] + half, np.full(int(send.sum()), size)))
        half >>= 1
    return [level for level in levels if len(level[0])]


def _chain(p: int, n_bytes: int, combine: np.ndarray) -> Pattern:
    """Steps k = 0 .. p-2: rank k sends to k + 1, which combines when ``combine[k]``
    (:class:`SerialSteps`: one message a step, one after another)."""
    rank = ranks(p - 1)
    return Pattern(p, (SerialSteps(rank, rank + 1, np.full(p - 1, n_bytes),
                                   combine_bytes=np.where(combine.astype(bool), n_bytes, 0)),))


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


def _recursive_doubling_scan(p: int, count: int, elem_bytes: int, inclusive: bool) -> Pattern:
    """The exchanges of the recursive-doubling scans: the lower rank of a pair combines
    once, the higher twice (exscan: once the first time it is the higher)."""
    rank = ranks(p)
    n = count * elem_bytes
    steps = []
    mask = 1
    while mask < p:
        low = rank[((rank & mask) == 0) & ((rank | mask) < p)]
        high = low | mask
        twice = np.full(len(high), True) if inclusive else (high & (mask - 1)) != 0
        src, dst, size = exchange(low, high, n)
        steps.append(Step(src, dst, size, np.concatenate([low, high]),
                          np.concatenate([np.full(len(low), n), np.where(twice, 2 * n, n)])))
        mask <<= 1
    return Pattern(p, tuple(steps))


@nothing_to_send
def scan_recursive_doubling(p: int, count: int, *, elem_bytes: int, root: int = 0,
                            commutative: bool = True, **context) -> Pattern:
    """``scan_recursive_doubling.c``: ceil(lg p) exchanges of partials with rank xor 2^k."""
    return _recursive_doubling_scan(p, count, elem_bytes, inclusive=True)


@nothing_to_send
def exscan_recursive_doubling(p: int, count: int, *, elem_bytes: int, root: int = 0,
                              commutative: bool = True, **context) -> Pattern:
    """``exscan_recursive_doubling.c``: the exchanges of the scan; a rank's first received
    partial from below is copied, not combined."""
    return _recursive_doubling_scan(p, count, elem_bytes, inclusive=False)


PATTERNS = {
    ("reduce_scatter", "reduce_then_scatter"): reduce_scatter_reduce_then_scatter,
    ("reduce_scatter", "ring"): reduce_scatter_ring,
    ("reduce_scatter", "pairwise"): reduce_scatter_pairwise,
    ("reduce_scatter", "recursive_halving"): reduce_scatter_recursive_halving,
    ("reduce_scatter", "butterfly"): reduce_scatter_butterfly,
    ("reduce_scatter", "recursive_doubling"): reduce_scatter_recursive_doubling,
    ("scan", "linear"): scan_linear,
    ("scan", "recursive_doubling"): scan_recursive_doubling,
    ("exscan", "linear"): exscan_linear,
    ("exscan", "recursive_doubling"): exscan_recursive_doubling,
}

"""Cost models of the allgather algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``); ``n_bytes``
is one rank's block (collectives.def), the result p blocks.  Accuracy classes
hold on the crossbar (one rank per node) under the ``hockney`` profile.
"""

from __future__ import annotations

import numpy as np

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from ._base import (NetworkParams, Prediction, ceil_log2, check_arguments, exact, message_s, one_way,
                    total)
from ._lookup import model_for

__all__ = ["ring", "recursive_doubling", "bruck", "neighbor_exchange", "gather_bcast"]


def ring(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
         commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Ring allgather: p - 1 steps of one block to the right neighbour.

    ``T = (p - 1) (alpha + n beta)`` (Thakur, Rabenseifner & Gropp 2005,
    sec. 3.1).

    Accuracy: exact.  Every step is one ``MPI_Sendrecv`` per rank, each link
    carries one message each way, and all ranks start and end each step
    together.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact((p - 1) * message_s(one_way(net), n_bytes))


def recursive_doubling_steps(p: int) -> list[tuple[str, np.ndarray, np.ndarray, np.ndarray,
                                                   np.ndarray | None]]:
    """The messages of ``allgather_recursive_doubling.c``, step by step, in blocks.

    Each step is ``("exchange", a, b, blocks_ab, blocks_ba)`` (``MPI_Sendrecv``
    between a[i] and b[i]) or ``("send", src, dst, blocks, None)`` (the tree
    that passes a truncated subtree's blocks on); no rank appears twice in a
    step, and every rank meets its steps in this order.

    >>> [(kind, a.tolist(), b.tolist(), n.tolist()) for kind, a, b, n, _ in
    ...  recursive_doubling_steps(6)][2:]
    [('exchange', [0, 1], [4, 5], [4, 4]), ('send', [0, 1], [2, 3], [2, 2])]
    """
    rank = np.arange(p, dtype=np.int64)
    steps = []
    mask = 1
    while mask < p:
        low = rank[((rank & mask) == 0) & ((rank ^ mask) < p)]
        high = low ^ mask
        base_low, base_high = low & ~(mask - 1), high & ~(mask - 1)
        steps.append(("exchange", low, high, np.minimum(mask, p - base_low),
                      np.minimum(mask, p - base_high)))
        # the 2 mask group holding rank p - 1: its upper half truncated but not empty
        base = (p - 1) & ~(2 * mask - 1)
        have = p - base - mask
        if 0 < have < mask:
            sub = base + np.arange(mask, dtype=np.int64)
            half = mask >> 1
            while half:
                first = sub & ~(2 * half - 1)
                send = ((sub & half) == 0) & (sub < first + have) & (sub + half >= first + have)
                src = sub[send]
                if len(src):
                    steps.append(("send", src, src + half, np.full(len(src), have), None))
                half >>= 1
        mask <<= 1
    return steps


def _message_times(net: NetworkParams, n_bytes: np.ndarray) -> np.ndarray:
    """:func:`message_s` of each size (computed once per distinct size)."""
    sizes, where = np.unique(n_bytes, return_inverse=True)
    return np.array([message_s(net, int(size)) for size in sizes])[where.reshape(-1)]


def recursive_doubling(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8,
                       root: int = 0, commutative: bool = True,
                       params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Recursive-doubling allgather, any p (MPICH's tree for the blocks a
    non-power-of-two p leaves out).

    p a power of two: ``T = lg p alpha + (p - 1) n beta`` (Thakur,
    Rabenseifner & Gropp 2005, sec. 3.1), plus the envelope of each of the
    lg p messages.  Otherwise the subtrees are uneven: after the exchange of
    mask m whose partner subtree holds only c < m ranks, the c ranks that had
    a partner pass its c blocks on to the rest of their subtree in up to
    lg m more steps (``allgather_recursive_doubling.c``).  The latency on the
    critical path lies between ceil(lg p) and 2 ceil(lg p) - 1 alphas (the
    most at p = 2^k - 1), the bandwidth term between (p - 1) n beta and
    2.25 (p - 1) n beta (the most at p = 9; about 2.2 at p = 2^k + 1, 1.77
    at p = 100): measured on this replay for p up to 1100.  The schedule (:func:`recursive_doubling_steps`) is replayed on one clock
    per rank: an exchange starts when both ranks reach it and lasts the
    longer direction's ``alpha + (m + envelope) beta``; a tree message starts
    when both ends reach it (``send-is-detached-thresh:0``) and costs a one-way
    message.

    Accuracy: exact.  Every message is blocking between two ranks, at most
    one per direction on a rank's link at a time, so the replay is the
    simulation's schedule on the crossbar.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    clock = np.zeros(p)
    uni = one_way(net)
    for kind, a, b, blocks_ab, blocks_ba in recursive_doubling_steps(p):
        start = np.maximum(clock[a], clock[b])
        if kind == "exchange":
            duration = np.maximum(_message_times(net, blocks_ab * n_bytes),
                                  _message_times(net, blocks_ba * n_bytes))
        else:
            duration = _message_times(uni, blocks_ab * n_bytes)
        clock[a] = clock[b] = start + duration
    return exact(float(clock.max()))


def bruck(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
          commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Bruck's allgather: ceil(lg p) shifts of min(2^k, p - 2^k) blocks.

    ``T = sum_k (alpha + min(2^k, p - 2^k) n beta) = ceil(lg p) alpha +
    (p - 1) n beta`` (Bruck et al., IEEE TPDS 1997; Thakur, Rabenseifner &
    Gropp 2005, sec. 3.1), plus the envelope of each message; the final
    rotation is a local copy and costs nothing.

    Accuracy: exact.  Every step is one ``MPI_Sendrecv`` per rank (to rank -
    2^k, from rank + 2^k) of the same size on every rank, so all ranks start
    and end each step together, one message each way on each link.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact(sum(message_s(net, min(1 << k, p - (1 << k)) * n_bytes)
                     for k in range(ceil_log2(p))))


def neighbor_exchange(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8,
                      root: int = 0, commutative: bool = True,
                      params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Neighbor-exchange allgather (Chen et al. 2005; Open MPI's): p/2 exchanges.

    p even: ``T = (alpha + n beta) + (p/2 - 1) (alpha + 2 n beta)``, each
    message with its envelope: one block each way with the neighbour on one
    side, then p/2 - 1 pairs of blocks alternately with each neighbour.
    p odd: the C code runs the ring, as Open MPI does
    (``ompi_coll_base_allgather_intra_neighborexchange``), and this is
    :func:`ring`'s ``(p - 1) (alpha + n beta)``.

    Accuracy: exact.  Every step is one ``MPI_Sendrecv`` between disjoint
    pairs, the same size on every rank, so all ranks start and end each step
    together.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    if p % 2:
        return model_for("allgather", "ring")(p, n_bytes, net, elem_bytes=elem_bytes)
    return exact(message_s(net, n_bytes) + (p // 2 - 1) * message_s(net, 2 * n_bytes))


def gather_bcast(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8,
                 root: int = 0, commutative: bool = True,
                 params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Binomial gather to rank 0, then binomial broadcast of the p blocks.

    ``T = [ceil(lg p) alpha + (p - 1) n beta] + ceil(lg p) (alpha + p n beta)``:
    :func:`collsim.analysis.models.gather.binomial` rooted at 0 plus
    :func:`collsim.analysis.models.bcast.binomial` of p n bytes (each message
    with its envelope).

    Accuracy: exact, as its two parts are: rank 0 is the last to finish the
    gather (its receives are the gather's critical path) and every other rank
    already waits in the broadcast's receive, so the broadcast starts when
    the gather ends.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    gather = model_for("gather", "binomial")(p, n_bytes, net, elem_bytes=elem_bytes, root=0)
    bcast = model_for("bcast", "binomial")(p, p * n_bytes, net, elem_bytes=elem_bytes, root=0)
    return total(gather, bcast)

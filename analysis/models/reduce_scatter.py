"""Cost models of the reduce_scatter algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``); ``n_bytes``
is one block, what each rank receives (``MPI_Reduce_scatter_block``'s
recvcount; collectives.def): each rank's input is p blocks.  Accuracy classes
hold on the crossbar (one rank per node) under the ``hockney`` profile.
"""

from __future__ import annotations

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from ._native import selector
from ._base import (NetworkParams, Prediction, check_arguments, exact, floor_log2, message_s,
                    reduce_s, total)
from ._lookup import model_for
from ._replay import Clocks

__all__ = ["reduce_then_scatter", "ring", "pairwise", "recursive_halving", "butterfly",
           "recursive_doubling", "openmpi_default", "mpich_default"]


def reduce_then_scatter(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8,
                        root: int = 0, commutative: bool = True,
                        params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Binomial reduce of the p blocks to rank 0, then linear scatter from rank 0.

    ``T = T_reduce,binomial(p n) + T_scatter,linear(n)``: the scatter starts
    when rank 0, the reduce's root, has the whole result, which is when the
    reduce ends.

    Accuracy: that of its parts (exact).
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    common = dict(elem_bytes=elem_bytes, root=0, commutative=commutative, params=DEFAULT_PARAMS)
    return total(model_for("reduce", "binomial")(p, p * n_bytes, net, **common),
                 model_for("scatter", "linear")(p, n_bytes, net, **common))


def ring(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
         commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Ring reduce-scatter: p - 1 shifts of one block to the right, each combined.

    ``T = (p - 1) (alpha + n beta + n gamma)`` (the first phase of the ring
    allreduce, seed 001 sec. 2.7, with whole blocks: every block is n).

    Accuracy: exact.  Every rank sends and receives one block of the same
    size per step over the two directions of its link, so the ranks move in
    lockstep.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact((p - 1) * (message_s(net, n_bytes) + reduce_s(net, n_bytes)))


def pairwise(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
             commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Pairwise-exchange reduce-scatter (MPICH's MPIR_Reduce_scatter_block_intra_pairwise).

    ``T = (p - 1) (alpha + n beta + n gamma)`` (Thakur, Rabenseifner & Gropp
    2005: ``(p-1) alpha + n (p-1)/p (beta + gamma)`` with n the whole vector).

    Accuracy: exact.  In step s every rank sends one block to rank + s and
    receives one from rank - s: one message each way on every link, all of
    one size, in lockstep.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact((p - 1) * (message_s(net, n_bytes) + reduce_s(net, n_bytes)))


def _fold_to_pof2(clocks: Clocks, p: int, count: int) -> int:
    """The fold of MPICH's and Open MPI's reduce-scatters: each even rank 2i < 2r sends
    its whole vector (``count`` elements) to 2i + 1, which combines it.  Returns r."""
    r = p - (1 << floor_log2(p))
    for i in range(r):
        clocks.send(2 * i, 2 * i + 1, count)
        clocks.reduce(2 * i + 1, count)
    return r


def _real(v: int, r: int) -> int:
    """The real rank of new rank v after the fold (``real_rank`` in the C files)."""
    return 2 * v + 1 if v < r else v + r


def _group_block(v: int, r: int) -> int:
    """The first block of new rank v's group (blocks 2v, 2v + 1 when v < r; v + r else)."""
    return 2 * v if v < r else v + r


def recursive_halving(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8,
                      root: int = 0, commutative: bool = True,
                      params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """MPICH's recursive-halving reduce-scatter, folded to p' = 2^floor(lg p) ranks.

    p = p': ``T = lg p alpha + (p - 1) n (beta + gamma)`` (Thakur,
    Rabenseifner & Gropp 2005: ``lg p alpha + n (p-1)/p (beta + gamma)`` with
    n the whole vector), one envelope per message.  Otherwise the fold
    (``alpha + p n beta + p n gamma``, one way), the halving over groups of
    2 n (new ranks below r = p - p') or n elements, and the return of
    ``alpha + n beta`` to the even ranks.  The model replays
    ``reduce_scatter_recursive_halving.c`` on per-rank clocks
    (``_replay.Clocks``), every message whole blocks.

    Accuracy: exact.  Every message is a blocking send or an exchange of
    one pair; the replay is the simulation's critical path.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    clocks = Clocks(p, net, elem_bytes)
    r = _fold_to_pof2(clocks, p, p * count)
    pof2 = p - r
    # per new rank: [send_idx, recv_idx, last_idx) in groups, as in MPICH
    send_idx, recv_idx, last_idx = [0] * pof2, [0] * pof2, [pof2] * pof2
    mask = pof2 >> 1
    while mask:
        for v in range(pof2):
            if v & mask:
                continue
            w = v | mask  # v keeps the lower half, w the upper
            recv_idx[w] = send_idx[w] + mask
            send_idx[v] = recv_idx[v] + mask
            v_keeps = (_group_block(recv_idx[v], r), _group_block(send_idx[v], r))
            w_keeps = (_group_block(recv_idx[w], r), _group_block(last_idx[w], r))
            v_sends = _group_block(last_idx[v], r) - v_keeps[1]
            w_sends = w_keeps[0] - _group_block(send_idx[w], r)
            clocks.exchange(_real(v, r), _real(w, r), v_sends * count, w_sends * count)
            clocks.reduce(_real(v, r), (v_keeps[1] - v_keeps[0]) * count)
            clocks.reduce(_real(w, r), (w_keeps[1] - w_keeps[0]) * count)
            for u in (v, w):
                send_idx[u] = recv_idx[u]
                last_idx[u] = recv_idx[u] + mask
        mask >>= 1
    for i in range(r):
        clocks.send(2 * i + 1, 2 * i, count)
    return exact(clocks.finish())


def _mirror(v: int, bits: int) -> int:
    """v with its low ``bits`` bits reversed (the mirror permutation)."""
    return int(format(v, f"0{bits}b")[::-1], 2) if bits else 0


def butterfly(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
              commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Träff's butterfly (Open MPI's ompi_coll_base_reduce_scatter_block_intra_butterfly).

    p = 2^k: ``T = lg p alpha + (p - 1) n (beta + gamma)``, the halving of the
    mirror-permuted blocks (Open MPI's header gives ``2 lg p alpha + 2 m (1 - 1/p)
    beta + m (1 - 1/p) gamma``, m = p n, counting the two directions of each
    exchange one after the other; on full-duplex links they overlap, and the
    local permutation costs no simulated time).  Otherwise the fold of
    :func:`recursive_halving`, the rounds (distance doubling) over the p'
    groups of 2 n or n elements, then each group's blocks sent to their
    ranks: a group of two first to the even rank (one way), then an
    exchange with the holder of the rank's own group.  The model replays
    ``reduce_scatter_butterfly.c`` on per-rank clocks.

    Accuracy: exact.  Every message is a blocking send or an exchange of
    one pair; the replay is the simulation's critical path.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    clocks = Clocks(p, net, elem_bytes)
    r = _fold_to_pof2(clocks, p, p * count) if p & (p - 1) else 0
    pof2 = p - r
    bits = floor_log2(pof2)
    index, nblocks, mask = [0] * pof2, pof2, 1  # index: the first group each new rank holds
    while mask < pof2:
        nblocks //= 2
        for v in range(pof2):
            if v & mask:
                continue
            w = v | mask  # v keeps the lower half of its range, w the upper
            lower, upper = index[v], index[w] + nblocks
            v_sends = _group_block(lower + 2 * nblocks, r) - _group_block(lower + nblocks, r)
            w_sends = _group_block(upper, r) - _group_block(index[w], r)
            v_keeps = _group_block(lower + nblocks, r) - _group_block(lower, r)
            w_keeps = _group_block(upper + nblocks, r) - _group_block(upper, r)
            clocks.exchange(_real(v, r), _real(w, r), v_sends * count, w_sends * count)
            clocks.reduce(_real(v, r), v_keeps * count)
            clocks.reduce(_real(w, r), w_keeps * count)
            index[w] = upper
        mask <<= 1
    if r:
        _butterfly_return(clocks, pof2, r, bits, count)
    return exact(clocks.finish())


def _butterfly_return(clocks: Clocks, pof2: int, r: int, bits: int, count: int) -> None:
    """The end of the butterfly for p not a power of two: new rank v holds group
    mirror(v); a group of two sends its first block to the even rank first, then v
    and the holder of its own group exchange a block (each in its program order)."""
    for v in range(pof2):
        peer = _mirror(v, bits)
        if peer < r:
            clocks.send(_real(v, r), _real(peer, r) - 1, count)
    for v in range(pof2):
        peer = _mirror(v, bits)
        if v < peer:
            clocks.exchange(_real(v, r), _real(peer, r), count, count)


def _outside(root: int, mask: int, p: int) -> int:
    """The blocks of p outside the subtree [root, root + mask), clipped to p."""
    return min(root, p) + p - min(root + mask, p)


def recursive_doubling(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8,
                       root: int = 0, commutative: bool = True,
                       params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """MPICH's recursive-doubling reduce-scatter (MPIR_Reduce_scatter_block_intra_recursive_doubling).

    p = 2^k: ``T = lg p alpha + (p lg p - p + 1) n (beta + gamma)`` (Thakur,
    Rabenseifner & Gropp 2005: ``lg p alpha + n (lg p - (p-1)/p) (beta + gamma)``
    with n the whole vector): in step mask every rank sends and combines the
    p - mask blocks outside its subtree.  Other p: the ranks whose partner
    does not exist get the received data forwarded inside their subtree
    (one blocking send per level) before anyone combines; the model replays
    ``reduce_scatter_recursive_doubling.c`` on per-rank clocks.

    Accuracy: exact.  Every message is a blocking send or an exchange of
    one pair; the replay is the simulation's critical path.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    clocks = Clocks(p, net, elem_bytes)
    mask = 1
    while mask < p:
        got = [False] * p
        for v in range(p):
            w = v ^ mask
            if v < w < p:
                clocks.exchange(v, w, _outside(v & -mask, mask, p) * count,
                                _outside(w & -mask, mask, p) * count)
                got[v] = got[w] = True
        _forward(clocks, p, mask, count, got)
        for v in range(p):
            if got[v]:
                clocks.reduce(v, _outside((v ^ mask) & -mask, mask, p) * count)
        mask <<= 1
    return exact(clocks.finish())


def _forward(clocks: Clocks, p: int, mask: int, count: int, got: list[bool]) -> None:
    """MPICH's forwarding in step mask: in a subtree whose partner subtree is cut off
    by p, the ranks that had a partner pass what they received on, level by level."""
    for root in range(0, p, 2 * mask):
        partner_root = root + mask
        if partner_root + mask <= p or partner_root >= p:
            continue  # the partner subtree is whole, or missing (nobody received)
        completed = p - partner_root
        size = _outside(partner_root, mask, p) * count
        half = mask >> 1
        while half:
            for v in range(root, root + mask):
                tree_root = v & -(2 * half)
                w = v + half
                if v & half == 0 and v < tree_root + completed <= w:
                    clocks.send(v, w, size)
                    got[w] = True
            half >>= 1


openmpi_default = selector("reduce_scatter", "openmpi_default")
mpich_default = selector("reduce_scatter", "mpich_default")

"""Cost models of the barrier algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``); a barrier
moves no data, so ``n_bytes`` is ignored (its messages are empty: only the
envelope).  Accuracy classes hold on the crossbar (one rank per node) under
the ``hockney`` profile.
"""

from __future__ import annotations

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from ._base import NetworkParams, Prediction, ceil_log2, check_arguments, exact, message_s, one_way

__all__ = ["dissemination", "recursive_doubling", "tree", "double_ring"]


def dissemination(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                  commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Dissemination barrier: ceil(lg p) rounds of one empty message each way.

    ``T = ceil(lg p) (alpha + envelope beta)`` (Hensgen, Finkel & Manber 1988).

    Accuracy: exact.  Every round is one ``MPI_Sendrecv`` per rank with
    distinct partners: one message per link and direction.
    """
    check_arguments(p, n_bytes, elem_bytes)
    if p == 1:
        return exact(0.0)
    return exact(ceil_log2(p) * message_s(one_way(net), 0))


def recursive_doubling(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8,
                       root: int = 0, commutative: bool = True,
                       params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Open MPI's recursive-doubling barrier: lg m exchanges among the first m ranks.

    With m the largest power of two <= p: ``T = lg p (alpha + envelope
    beta)`` when p = m, else ``(lg m + 2) (alpha + envelope beta)``: the
    ranks above m enter through r - m first and are released by it last
    (Open MPI 4.1 ompi_coll_base_barrier_intra_recursivedoubling).

    Accuracy: exact.  Each exchange is one message each way between two
    ranks (distinct pairs); rank 0 always has a partner above m, so it waits
    for the fold before its first exchange and every exchange round ends one
    message later on its path than the last.
    """
    check_arguments(p, n_bytes, elem_bytes)
    if p == 1:
        return exact(0.0)
    rounds = p.bit_length() - 1
    if p & (p - 1):
        rounds += 2
    return exact(rounds * message_s(one_way(net), 0))


def tree(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
         commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Open MPI's tree barrier: binomial gather of empty messages to rank 0, then release.

    ``T = 2 ceil(lg p) (alpha + envelope beta)`` (Open MPI 4.1
    ompi_coll_base_barrier_intra_tree).  Rank 0 receives from 1, 2, 4, ...
    one after the other; the subtree of rank 2^k has at most 2^k ranks and is
    done by the time rank 0 posts that receive, k messages in.  The release
    mirrors it: rank 0 sends ceil(lg p) messages one after the other, the
    last to rank 1, and every other rank's sends end no later.

    Accuracy: exact (every message alone on its links; blocking, rendezvous
    sends under the ``hockney`` profile).
    """
    check_arguments(p, n_bytes, elem_bytes)
    if p == 1:
        return exact(0.0)
    return exact(2 * ceil_log2(p) * message_s(one_way(net), 0))


def double_ring(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Open MPI's double-ring barrier: an empty token twice round the ring.

    ``T = 2 p (alpha + envelope beta)``: 2p messages, each sent when the
    previous one arrives (Open MPI 4.1
    ompi_coll_base_barrier_intra_doublering).

    Accuracy: exact.
    """
    check_arguments(p, n_bytes, elem_bytes)
    if p == 1:
        return exact(0.0)
    return exact(2 * p * message_s(one_way(net), 0))

"""Cost models of the gather algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``); ``n_bytes``
is one rank's block (collectives.def), the root's result p blocks.  Accuracy
classes hold on the crossbar (one rank per node) under the ``hockney``
profile.
"""

from __future__ import annotations

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from ._base import (NetworkParams, Prediction, ceil_log2, check_arguments, exact, message_s, one_way,
                    shared_link_s)

__all__ = ["linear", "binomial"]


def linear(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
           commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Linear gather: every rank sends its block to the root at once.

    ``T = alpha + (p - 1) (n + envelope) beta``: the p - 1 messages start
    together and share the root's link.

    Accuracy: exact on a full-duplex crossbar (equal route latencies, one
    shared link).
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact(shared_link_s(one_way(net), n_bytes, p - 1))


def binomial(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
             commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Binomial gather, nearest child first (Open MPI's and MPICH's).

    ``T = sum_k (alpha + min(2^k, p - 2^k) n beta) = ceil(lg p) alpha +
    (p - 1) n beta`` (the cost in MPICH 4.0's MPIR_Gather_intra_binomial
    header, n there all p blocks), plus the
    envelope of each message: the root's receives, of 1, 2, 4, ... blocks
    and last the p - 2^(ceil(lg p) - 1) blocks of the truncated subtree.

    Accuracy: exact.  Sends and receives are blocking; the child v + 2^k
    of a rank has gathered its 2^k blocks at the very time the rank has
    gathered its first 2^k (both subtrees are the same tree), and a
    truncated subtree earlier, so no receive waits and the root's are the
    critical path, whatever the root.
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    uni = one_way(net)
    return exact(sum(message_s(uni, min(1 << k, p - (1 << k)) * n_bytes)
                     for k in range(ceil_log2(p))))

"""Cost models of the scatter algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``); ``n_bytes``
is one block, what each rank receives (collectives.def).  Accuracy classes
hold on the crossbar (one rank per node) under the ``hockney`` profile.
"""

from __future__ import annotations

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from . import gather
from ._native import selector
from ._base import (NetworkParams, Prediction, check_arguments, exact, one_way,
                    staggered_shared_link_s)

__all__ = ["linear", "binomial", "openmpi_default", "mpich_default"]


def linear(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
           commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Linear scatter: the root sends every rank its block at once.

    ``T = alpha + (p - 1) (n + envelope) beta``, the linear broadcast's cost
    (:func:`collsim.analysis.models.bcast.linear`) with a different block to
    each rank.

    Accuracy: exact on a full-duplex crossbar (equal route latencies, one
    shared link).
    """
    count = check_arguments(p, n_bytes, elem_bytes, root=root)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact(staggered_shared_link_s(one_way(net), n_bytes, p - 1))


def binomial(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
             commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Binomial scatter, farthest child first (Open MPI's and MPICH's).

    ``T = sum_k (alpha + min(2^k, p - 2^k) n beta) = ceil(lg p) alpha +
    (p - 1) n beta`` (the cost in MPICH 4.0's MPIR_Scatter_intra_binomial
    header, n there all p blocks), plus the
    envelope of each message: the root's sends, first the
    p - 2^(ceil(lg p) - 1) blocks of the farthest (possibly truncated)
    subtree, then ..., 4, 2, 1 blocks: the binomial gather's messages
    (:func:`collsim.analysis.models.gather.binomial`) in reverse order,
    hence its sum.

    Accuracy: exact.  Sends and receives are blocking; the child sent 2^k
    blocks hands them on to its own subtree in the time the root takes to
    send its remaining 2^k - 1 blocks (the same tree), and a truncated
    subtree sooner, so the root's sends are the critical path, whatever the
    root.
    """
    return gather.binomial(p, n_bytes, net, elem_bytes=elem_bytes, root=root, params=params)


openmpi_default = selector("scatter", "openmpi_default")
mpich_default = selector("scatter", "mpich_default")

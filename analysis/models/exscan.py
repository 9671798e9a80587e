"""Cost models of the exscan algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``); ``n_bytes``
is the vector.  Accuracy classes hold on the crossbar (one rank per node)
under the ``hockney`` profile.
"""

from __future__ import annotations

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from ._native import selector
from ._base import NetworkParams, Prediction, check_arguments, exact, message_s, one_way, reduce_s
from ._replay import Clocks

__all__ = ["linear", "recursive_doubling", "openmpi_default", "mpich_default"]


def linear(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
           commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Linear (chain) exclusive scan.

    ``T = (p - 1) (alpha + n beta) + (p - 2) n gamma``: rank r receives the
    prefix of 0..r-1 (its result) and, but for the last rank, combines and
    passes it on.

    Accuracy: exact.  The chain is one message at a time.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact((p - 1) * message_s(one_way(net), n_bytes) + (p - 2) * reduce_s(net, n_bytes))


def recursive_doubling(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8,
                       root: int = 0, commutative: bool = True,
                       params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """MPICH's recursive-doubling exclusive scan (MPIR_Exscan_intra_recursive_doubling).

    The exchanges of :func:`collsim.analysis.models.scan.recursive_doubling`;
    the higher rank of a pair combines twice, except the first time it is
    the higher (its result is then a copy of the received vector: once), the
    lower once.  p = 2^k: ``T = lg p (alpha + n beta + 2 n gamma) - n gamma``
    (the highest rank sets the pace); other p: the model replays
    ``exscan_recursive_doubling.c`` on per-rank clocks.

    Accuracy: exact.  Every message is an exchange of one pair; the replay
    is the simulation's critical path.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    clocks = Clocks(p, net, elem_bytes)
    higher_before = [False] * p
    mask = 1
    while mask < p:
        for v in range(p):
            w = v | mask
            if v & mask == 0 and w < p:
                clocks.exchange(v, w, count, count)
                clocks.reduce(v, count)
                clocks.reduce(w, (2 if higher_before[w] else 1) * count)
                higher_before[w] = True
        mask <<= 1
    return exact(clocks.finish())


openmpi_default = selector("exscan", "openmpi_default")
mpich_default = selector("exscan", "mpich_default")

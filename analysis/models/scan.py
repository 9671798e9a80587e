"""Cost models of the scan algorithms, one function per registry entry.

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
    """Linear (chain) scan: each rank receives its left neighbour's prefix and passes its own on.

    ``T = (p - 1) (alpha + n beta + n gamma)``: the last rank receives after
    p - 1 messages and p - 2 combines, then combines once more.

    Accuracy: exact.  The chain is one message at a time.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact((p - 1) * (message_s(one_way(net), n_bytes) + reduce_s(net, n_bytes)))


def recursive_doubling(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8,
                       root: int = 0, commutative: bool = True,
                       params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """MPICH's recursive-doubling scan (MPIR_Scan_intra_recursive_doubling).

    In step mask = 1, 2, ... every rank v with a partner v xor mask < p
    exchanges the whole vector with it; the higher of the two combines twice
    (its result and its partial), the lower once.  p = 2^k:
    ``T = lg p (alpha + n beta + 2 n gamma)`` (every pair waits for its
    higher rank); other p: the model replays ``scan_recursive_doubling.c``
    on per-rank clocks (ranks without a partner skip a step).  Open MPI's
    bound ``ceil(lg p) (2 alpha + 2 n beta + 2 n gamma)`` counts both
    directions of the exchange one after the other.

    Accuracy: exact.  Every message is an exchange of one pair; the replay
    is the simulation's critical path.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    clocks = Clocks(p, net, elem_bytes)
    mask = 1
    while mask < p:
        for v in range(p):
            w = v | mask
            if v & mask == 0 and w < p:
                clocks.exchange(v, w, count, count)
                clocks.reduce(v, count)
                clocks.reduce(w, 2 * count)
        mask <<= 1
    return exact(clocks.finish())


openmpi_default = selector("scan", "openmpi_default")
mpich_default = selector("scan", "mpich_default")

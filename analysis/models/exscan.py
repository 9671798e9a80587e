"""Cost models of the exscan algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``); ``n_bytes``
is the vector.  Accuracy classes hold on the crossbar (one rank per node)
under the ``hockney`` profile.
"""

from __future__ import annotations

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from ._native import selector
from ._base import NetworkParams, Prediction, check_arguments, exact, message_s, one_way, reduce_s

__all__ = ["linear", "openmpi_default", "mpich_default"]


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


openmpi_default = selector("exscan", "openmpi_default")
mpich_default = selector("exscan", "mpich_default")

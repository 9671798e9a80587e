"""Cost models of the gather algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``); ``n_bytes``
is one rank's block (collectives.def), the root's result p blocks.  Accuracy
classes hold on the crossbar (one rank per node) under the ``hockney``
profile.
"""

from __future__ import annotations

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from ._base import NetworkParams, Prediction, check_arguments, exact, one_way, shared_link_s

__all__ = ["linear"]


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


# The libraries' default choices (algorithms/common/native.c): the model of the
# algorithm a run recorded (collsim.analysis.models._native).  Kept in one block
# at the end of the module.
from ._native import selector  # noqa: E402

__all__ += ["openmpi_default", "mpich_default"]
openmpi_default = selector("gather", "openmpi_default")
mpich_default = selector("gather", "mpich_default")

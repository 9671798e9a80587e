"""Cost models of the allgather algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``); ``n_bytes``
is one rank's block (collectives.def), the result p blocks.  Accuracy classes
hold on the crossbar (one rank per node) under the ``hockney`` profile.
"""

from __future__ import annotations

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from ._base import NetworkParams, Prediction, check_arguments, exact, message_s, one_way

__all__ = ["ring"]


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


# The libraries' default choices (algorithms/common/native.c): the model of the
# algorithm a run recorded (collsim.analysis.models._native).  Kept in one block
# at the end of the module.
from ._native import selector  # noqa: E402

__all__ += ["openmpi_default", "mpich_default"]
openmpi_default = selector("allgather", "openmpi_default")
mpich_default = selector("allgather", "mpich_default")

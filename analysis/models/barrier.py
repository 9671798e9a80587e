"""Cost models of the barrier algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``); a barrier
moves no data, so ``n_bytes`` is ignored (its messages are empty: only the
envelope).  Accuracy classes hold on the crossbar (one rank per node) under
the ``hockney`` profile.
"""

from __future__ import annotations

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from ._base import NetworkParams, Prediction, ceil_log2, check_arguments, exact, message_s, one_way

__all__ = ["dissemination"]


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


# The libraries' default choices (algorithms/common/native.c): the model of the
# algorithm a run recorded (collsim.analysis.models._native).  Kept in one block
# at the end of the module.
from ._native import selector  # noqa: E402

__all__ += ["openmpi_default", "mpich_default"]
openmpi_default = selector("barrier", "openmpi_default")
mpich_default = selector("barrier", "mpich_default")

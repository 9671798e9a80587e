"""Cost models of the alltoall algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``); ``n_bytes``
is one block, what one rank sends to one other (collectives.def).  Accuracy
classes hold on the crossbar (one rank per node) under the ``hockney``
profile.
"""

from __future__ import annotations

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from ._base import (NetworkParams, Prediction, check_arguments, exact, one_way,
                    staggered_shared_link_s)

__all__ = ["linear"]


def linear(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
           commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """All-at-once alltoall: every rank's p - 1 sends and receives posted together.

    ``T = alpha + (p - 1) (n + envelope) beta``: each rank's link carries p - 1
    blocks each way, shared equally (Thakur et al. 2005, sec. 3.6, the
    isend-irecv algorithm).  With a send overhead the k-th sends of all ranks
    start together, k o_s after the call, so every link sees the stagger of
    the linear broadcast's root
    (:func:`~collsim.analysis.models._base.staggered_shared_link_s`).

    Accuracy: exact on a full-duplex crossbar: by symmetry every link holds
    the same number of flows at every instant, so all flows get the same
    share and all ranks end together.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact(staggered_shared_link_s(one_way(net), n_bytes, p - 1))


# The libraries' default choices (algorithms/common/native.c): the model of the
# algorithm a run recorded (collsim.analysis.models._native).  Kept in one block
# at the end of the module.
from ._native import selector  # noqa: E402

__all__ += ["openmpi_default", "mpich_default"]
openmpi_default = selector("alltoall", "openmpi_default")
mpich_default = selector("alltoall", "mpich_default")

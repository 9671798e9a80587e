"""Cost models of the scatter algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``); ``n_bytes``
is one block, what each rank receives (collectives.def).  Accuracy classes
hold on the crossbar (one rank per node) under the ``hockney`` profile.
"""

from __future__ import annotations

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from ._base import (NetworkParams, Prediction, check_arguments, exact, one_way,
                    staggered_shared_link_s)

__all__ = ["linear"]


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


# The libraries' default choices (algorithms/common/native.c): the model of the
# algorithm a run recorded (collsim.analysis.models._native).  Kept in one block
# at the end of the module.
from ._native import selector  # noqa: E402

__all__ += ["openmpi_default", "mpich_default"]
openmpi_default = selector("scatter", "openmpi_default")
mpich_default = selector("scatter", "mpich_default")

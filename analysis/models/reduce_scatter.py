"""Cost models of the reduce_scatter algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``); ``n_bytes``
is one block, what each rank receives (``MPI_Reduce_scatter_block``'s
recvcount; collectives.def): each rank's input is p blocks.  Accuracy classes
hold on the crossbar (one rank per node) under the ``hockney`` profile.
"""

from __future__ import annotations

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from ._native import selector
from ._base import NetworkParams, Prediction, check_arguments, exact, total
from ._lookup import model_for

__all__ = ["reduce_then_scatter", "openmpi_default", "mpich_default"]


def reduce_then_scatter(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8,
                        root: int = 0, commutative: bool = True,
                        params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Binomial reduce of the p blocks to rank 0, then linear scatter from rank 0.

    ``T = T_reduce,binomial(p n) + T_scatter,linear(n)``: the scatter starts
    when rank 0, the reduce's root, has the whole result, which is when the
    reduce ends.

    Accuracy: that of its parts (exact).
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    common = dict(elem_bytes=elem_bytes, root=0, commutative=commutative, params=DEFAULT_PARAMS)
    return total(model_for("reduce", "binomial")(p, p * n_bytes, net, **common),
                 model_for("scatter", "linear")(p, n_bytes, net, **common))


openmpi_default = selector("reduce_scatter", "openmpi_default")
mpich_default = selector("reduce_scatter", "mpich_default")

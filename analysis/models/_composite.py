"""What the composite algorithms' models share (algorithms/common/hier.c, prerounding.c).

The cost of making sub-communicators under SMPI, the inner and outer
algorithm names of the two-level algorithms, the parameters they pass on,
and the first step of both pre-rounded algorithms (an allreduce of bounds).
"""

from __future__ import annotations

from collsim.params import AlgorithmParams

from ._base import (NetworkParams, Prediction, ceil_log2, floor_log2, message_s, reduce_s,
                    shared_link_s)
from ._lookup import part_model

__all__ = ["PREROUND_LEVELS", "comm_split_s", "mpich_allreduce_choice", "mpich_bcast_choice",
           "mpich_reduce_choice", "node_comms_s", "preround_bound_s", "sub_params",
           "subcomm_creation_s"]

PREROUND_LEVELS = 2  # algorithms/common/prerounding.h


def subcomm_creation_s(net: NetworkParams, q: int) -> float:
    """Simulated cost of making a communicator of q ranks (MPI_Comm_create_group).

    SMPI 3.32 broadcasts the new context id inside the group: ``ceil(lg q)``
    messages of 4 bytes (measured on the crossbar for q = 2..32); 0 for q < 2,
    where no communicator is made.
    """
    return ceil_log2(q) * message_s(net, 4) if q > 1 else 0.0


def comm_split_s(net: NetworkParams, p: int, leaders: int) -> float:
    """Simulated cost of SMPI 3.32's MPI_Comm_split of p ranks of which ``leaders`` get a color.

    SMPI gathers (color, key) to rank 0 (p - 1 concurrent 8-byte messages
    sharing rank 0's link), then rank 0 sends the new group to every other
    member of each color (``leaders - 1`` concurrent messages), and the new
    communicator's context id is broadcast in it (:func:`subcomm_creation_s`);
    measured equal on the crossbar for p = 2..64, one color.
    """
    if p < 2:
        return 0.0
    gather = shared_link_s(net, 8, p - 1)
    scatter = 0.0
    if leaders > 1:
        scatter = shared_link_s(net, 8, leaders - 1)
    return gather + scatter + subcomm_creation_s(net, leaders)


def node_comms_s(net: NetworkParams, params: AlgorithmParams, *, create: int = 0,
                 split: tuple[int, int] | None = None) -> float:
    """What the node-aware algorithms' sub-communicators cost in a timed call.

    ``create``: a communicator of that many ranks by MPI_Comm_create_group
    (:func:`subcomm_creation_s`); ``split``: (p, leaders) of an MPI_Comm_split
    (:func:`comm_split_s`).  0 with ``params.cached_comms``: the communicators
    are made once per communicator, in an untimed first call
    (algorithms/common/hier.c), as MPICH makes them with the communicator.
    """
    if params.cached_comms:
        return 0.0
    return subcomm_creation_s(net, create) + (comm_split_s(net, *split) if split else 0.0)


def sub_params(params: AlgorithmParams) -> AlgorithmParams:
    """The parameters a two-level algorithm passes on: segment size or block count."""
    return AlgorithmParams(segment_bytes=params.segment_bytes, block_count=params.block_count)


def preround_bound_s(p: int, count: int, net: NetworkParams,
                     algorithm: str) -> tuple[Prediction, float]:
    """The first step of both prerounded algorithms: an allreduce (MPI_MAX) of
    count doubles with ``algorithm``.

    Parameters
    ----------
    p : int
        Process count.
    count : int
        Elements per rank (one double of bound each).
    net : NetworkParams
        The network.
    algorithm : str
        The allreduce algorithm (the prerounded algorithm's ``outer``).

    Returns
    -------
    (Prediction, float)
        Its time, and how far apart (s) the ranks may leave it: (p - 1)(2 beta +
        gamma) for ``ring`` when p does not divide count, else 0.
    """
    bound = part_model("allreduce", algorithm, "outer")(p, 8 * count, net, elem_bytes=8)
    skew_s = ((p - 1) * (2 * 8 * net.beta_s_per_byte + reduce_s(net, 8))
              if algorithm == "ring" and count % p else 0.0)
    return bound, skew_s


# -- MPICH's flat choices inside node_aware ----------------------------------
# The same rules as algorithms/common/nodes.h (collsim_mpich_reduce, _allreduce,
# _bcast): MPICH 3.0's MPIR_Reduce_intra, MPIR_Allreduce_intra and
# MPIR_Bcast_intra with their default thresholds (seed 000's MPICH of July 2013).
# They depend on p and the size, so C cannot publish them as data; the
# node_aware tests hold the two against each other through the simulated times.


def mpich_reduce_choice(p: int, n_bytes: int, elem_bytes: int) -> str:
    """MPICH's non-topology-aware reduce: reduce-scatter + gather (``rabenseifner``)
    above 2048 bytes when the count is at least the largest power of two <= p, else
    ``binomial``.

    >>> mpich_reduce_choice(6, 4096, 8), mpich_reduce_choice(1024, 4096, 8)
    ('rabenseifner', 'binomial')
    """
    pof2 = 1 << floor_log2(p)
    return "rabenseifner" if n_bytes > 2048 and n_bytes // elem_bytes >= pof2 else "binomial"


def mpich_allreduce_choice(p: int, n_bytes: int, elem_bytes: int) -> str:
    """MPICH's non-topology-aware allreduce: recursive doubling up to 2048 bytes or
    when the count is below the largest power of two <= p, else reduce-scatter +
    allgather (``rabenseifner``).

    >>> mpich_allreduce_choice(8, 2048, 8), mpich_allreduce_choice(8, 2056, 8)
    ('recursive_doubling', 'rabenseifner')
    """
    pof2 = 1 << floor_log2(p)
    return "recursive_doubling" if n_bytes <= 2048 or n_bytes // elem_bytes < pof2 else "rabenseifner"


def mpich_bcast_choice(p: int, n_bytes: int) -> str:
    """MPICH's non-topology-aware broadcast: binomial below 12288 bytes or on fewer
    than 8 ranks, else scatter + recursive-doubling allgather below 524288 bytes on a
    power of two, else scatter + ring allgather.

    >>> [mpich_bcast_choice(8, n) for n in (8192, 262144, 1048576)]
    ['binomial', 'scatter_recursive_doubling_allgather', 'scatter_allgather']
    >>> mpich_bcast_choice(4, 262144), mpich_bcast_choice(12, 262144)
    ('binomial', 'scatter_allgather')
    """
    if n_bytes < 12288 or p < 8:
        return "binomial"
    if n_bytes < 524288 and p & (p - 1) == 0:
        return "scatter_recursive_doubling_allgather"
    return "scatter_allgather"

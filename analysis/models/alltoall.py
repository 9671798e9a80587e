"""Cost models of the alltoall algorithms, one function per registry entry.

Same signature as every model (see ``collsim.analysis.models``); ``n_bytes``
is one block, what one rank sends to one other (collectives.def).  Accuracy
classes hold on the crossbar (one rank per node) under the ``hockney``
profile.
"""

from __future__ import annotations

from collsim.params import DEFAULT_PARAMS, AlgorithmParams

from ._base import (NetworkParams, Prediction, ceil_log2, check_arguments, exact, message_s,
                    one_way, staggered_shared_link_s)

# the models, one per registry entry; bruck_blocks and scattered_batches are their
# arithmetic, shared with the network patterns
__all__ = ["linear", "pairwise", "pairwise_xor", "bruck", "scattered"]


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


def pairwise(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
             commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Pairwise exchange by shifts: p - 1 steps of one block each way.

    ``T = (p - 1) (alpha + (n + envelope) beta)`` (Thakur, Rabenseifner &
    Gropp 2005, sec. 3.6; Open MPI's ompi_coll_base_alltoall_intra_pairwise).

    Accuracy: exact.  Every step is one ``MPI_Sendrecv`` per rank to rank + k
    and from rank - k: each link carries one message each way, and all ranks
    start and end each step together.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    return exact((p - 1) * message_s(one_way(net), n_bytes))


def pairwise_xor(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
                 commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """MPICH's pairwise exchange: partners rank XOR k for powers of two, else shifts.

    ``T = (p - 1) (alpha + (n + envelope) beta)``, as :func:`pairwise`
    (MPICH 4.0 MPIR_Alltoall_intra_pairwise's header: (p - 1) alpha + n beta
    with n all of a rank's data).  The partners differ from pairwise's only
    in which links a step loads: the same time on a crossbar, not on a tree.

    Accuracy: exact (one message per link and direction in every step).
    """
    return pairwise(p, n_bytes, net, elem_bytes=elem_bytes)


def bruck_blocks(p: int, distance: int) -> int:
    """The blocks of Bruck's step ``distance`` (a power of two): i in 1 .. p - 1 with i & distance.

    Of 0 .. p - 1, every full period of 2 distance holds ``distance`` such
    indices, and the last, partial one those past its first ``distance``.

    >>> [bruck_blocks(5, d) for d in (1, 2, 4)]
    [2, 2, 1]
    >>> [bruck_blocks(8, d) for d in (1, 2, 4)]
    [4, 4, 4]
    """
    period = 2 * distance
    return (p // period) * distance + max(0, p % period - distance)


def bruck(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
          commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """Bruck's alltoall: ceil(lg p) steps, step k the blocks whose index has bit k set.

    ``T = sum_k (alpha + (c_k n + envelope) beta)`` over k < ceil(lg p), with
    c_k = :func:`bruck_blocks` (p, 2^k) packed blocks in the step's one
    message; for a power of two ``lg p alpha + (p/2) lg p n beta`` (Bruck et
    al., IEEE TPDS 1997; Thakur, Rabenseifner & Gropp 2005, sec. 3.6).  The
    rotations are local copies (no simulated time).

    Accuracy: exact.  Every step is one ``MPI_Sendrecv`` per rank to rank +
    2^k and from rank - 2^k, every rank sending the same c_k blocks: one
    message per link and direction, all ranks in step.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    net = one_way(net)
    return exact(sum(message_s(net, bruck_blocks(p, 1 << k) * n_bytes)
                     for k in range(ceil_log2(p))))


#: Offsets per batch of :func:`scattered`: MPICH's MPIR_CVAR_ALLTOALL_THROTTLE default
#: (``COLLSIM_ALLTOALL_THROTTLE`` in alltoall_scattered.c).
SCATTERED_THROTTLE = 32


def scattered_batches(p: int) -> list[range]:
    """The offsets of each batch of :func:`scattered`: 1 .. 31, 32 .. 63, ... (0, the
    rank itself, is the local copy).

    >>> [len(batch) for batch in scattered_batches(70)]
    [31, 32, 6]
    """
    batches = (range(max(first, 1), min(first + SCATTERED_THROTTLE, p))
               for first in range(0, p, SCATTERED_THROTTLE))
    return [batch for batch in batches if len(batch)]


def scattered(p: int, n_bytes: int, net: NetworkParams, *, elem_bytes: int = 8, root: int = 0,
              commutative: bool = True, params: AlgorithmParams = DEFAULT_PARAMS) -> Prediction:
    """MPICH's scattered alltoall: all-at-once in batches of 32 partners.

    ``T = sum_b (alpha + m_b (n + envelope) beta)`` over the batches of
    :func:`scattered_batches` (m_b = 31, 32, ..., the last what is left):
    ``ceil(p / 32) alpha + (p - 1) (n + envelope) beta`` (MPICH 4.0
    MPIR_Alltoall_intra_scattered with MPIR_CVAR_ALLTOALL_THROTTLE = 32).
    Each batch is :func:`linear`'s exchange on m_b partners; with a send
    overhead its sends are staggered as linear's.

    Accuracy: exact on a full-duplex crossbar: in every batch each rank's
    link carries m_b blocks each way, shared equally, and every rank ends the
    batch at the same instant.
    """
    count = check_arguments(p, n_bytes, elem_bytes)
    if p == 1 or count == 0:
        return exact(0.0)
    net = one_way(net)
    return exact(sum(staggered_shared_link_s(net, n_bytes, len(batch))
                     for batch in scattered_batches(p)))

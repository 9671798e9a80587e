/*
 * reduce_fixed_order.c: bitwise-reproducible, topology-aware reduce.
 *
 * Partial results are combined along the dyadic tree over ranks (fixed by
 * rank alone) while messages go first to each node's leader, then between
 * leaders along a binomial tree (common/fixed_order.c): the same bits on
 * every mapping and node shape, at the price of messages that carry several
 * partial results when a node's ranks are not consecutive.
 *
 * Restrictions: none (the combination order respects rank order, so
 * non-commutative ops are kept in order).
 * Parameters: node_size (0: the real node, MPI_Comm_split_type SHARED);
 *             contributors (N inputs per rank, leaves of the summation
 *             tree: common/fixed_order.c).
 * Reference: the separation of communication and summation trees of
 *            ReproRed (Stelz et al., 2026); seed 000 for the node-aware shape.
 * Cost (one rank per node, p ranks): ceil(lg p) rounds of a dissemination
 *            allgather of one byte per rank, then ceil(lg p) (alpha + 12 beta
 *            + alpha + n beta + n gamma) [+ alpha + n beta when root != 0]
 */
#include "common/fixed_order.h"

int collsim_reduce_fixed_order(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                               MPI_Op op, int root, MPI_Comm comm, const collsim_params *params)
{
    return collsim_fixed_order_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, params);
}

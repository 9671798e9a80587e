/*
 * allreduce_fixed_order.c: bitwise-reproducible, topology-aware allreduce:
 * the fixed-order reduce to rank 0 (reduce_fixed_order.c) followed by a
 * binomial broadcast.  The result is computed once, so every rank has the
 * same bits, and they do not depend on the mapping or the node shape.
 *
 * Restrictions: none (rank order is kept).
 * Parameters: node_size (0: the real node); contributors (N inputs per rank,
 *             leaves of the summation tree: common/fixed_order.c).
 * Cost: that of reduce fixed_order to rank 0 + ceil(lg p) (alpha + n beta)
 */
#include "common/fixed_order.h"
#include "common/internal.h"

int collsim_allreduce_fixed_order(const void *sendbuf, void *recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                  const collsim_params *params)
{
    int rc = collsim_fixed_order_reduce(sendbuf, recvbuf, count, datatype, op, 0, comm, params);
    if (rc != MPI_SUCCESS)
        return rc;
    return collsim_bcast_binomial(recvbuf, count, datatype, 0, comm, params);
}

/*
 * allreduce_linear.c: allreduce as a linear reduce to rank 0 followed by a
 * linear broadcast from rank 0 (Open MPI's allreduce "basic_linear", which its
 * rabenseifner runs for counts below the largest power of two <= p).
 *
 * Rank 0 receives every other rank's vector one at a time and combines in rank
 * order (reduce_linear.c), then sends the result to every rank at once
 * (bcast_linear.c: the p - 1 sends share rank 0's link).
 *
 * Restrictions: none (rank order kept).
 * Reference: Open MPI v4.1.4, ompi/mca/coll/base/coll_base_allreduce.c,
 *            ompi_coll_base_allreduce_intra_basic_linear.
 * Cost:      (p - 1)(alpha + n beta + n gamma) + alpha + (p - 1) n beta
 */
#include "common/internal.h"

int collsim_allreduce_linear(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                             MPI_Op op, MPI_Comm comm, const collsim_params *params)
{
    int rc = collsim_reduce_linear(sendbuf, recvbuf, count, datatype, op, 0, comm, params);
    if (rc != MPI_SUCCESS)
        return rc;
    return collsim_bcast_linear(recvbuf, count, datatype, 0, comm, params);
}

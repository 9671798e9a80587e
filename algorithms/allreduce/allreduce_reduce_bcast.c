/*
 * allreduce_reduce_bcast.c: allreduce as a binomial reduce to rank 0 followed
 * by a binomial broadcast from rank 0 (the classical composition; seed 001
 * sec. 2.2 names its bottleneck at the root).
 *
 * The reduce is rooted at rank 0, where the binomial tree combines in rank
 * order, so non-commutative ops are kept in order without an extra message.
 *
 * Restrictions: none.
 * Reference: seed 001 sec. 2.2; reduce_binomial.c, bcast_binomial.c.
 * Cost:      ceil(lg p) (alpha + n beta + n gamma) + ceil(lg p) (alpha + n beta)
 */
#include "common/internal.h"

int collsim_allreduce_reduce_bcast(const void *sendbuf, void *recvbuf, int count,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                   const collsim_params *params)
{
    int rc = collsim_reduce_binomial(sendbuf, recvbuf, count, datatype, op, 0, comm, params);
    if (rc != MPI_SUCCESS)
        return rc;
    return collsim_bcast_binomial(recvbuf, count, datatype, 0, comm, params);
}

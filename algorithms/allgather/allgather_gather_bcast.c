/*
 * allgather_gather_bcast.c: allgather as a binomial gather of the p blocks
 * to rank 0 (gather_binomial.c) followed by a binomial broadcast of all p
 * of them from rank 0 (bcast_binomial.c).
 *
 * The composition of Open MPI's basic_linear allgather, which runs the
 * communicator's gather to rank 0 and then its bcast of the p blocks; here
 * both are collsim's binomial trees.  Rank 0 is the last to finish the
 * gather, every other rank already waits in the broadcast, so the two
 * phases add up.
 *
 * Restrictions: none.
 * Reference: Open MPI 4.1 coll/base ompi_coll_base_allgather_intra_basic_linear
 *            (gather + bcast); collsim_gather_binomial, collsim_bcast_binomial.
 * Cost:      ceil(lg p) alpha + (p - 1) n beta            (gather)
 *          + ceil(lg p) (alpha + p n beta)                 (bcast of p blocks)
 *            (n: one block)
 */
#include "common/internal.h"

#include <limits.h>

int collsim_allgather_gather_bcast(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                   void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                   MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, size;

    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    if ((long long)size * recvcount > INT_MAX)
        return MPI_ERR_COUNT;
    COLLSIM_CHECK(collsim_gather_binomial(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                          recvtype, 0, comm, params));
    COLLSIM_CHECK(collsim_bcast_binomial(recvbuf, size * recvcount, recvtype, 0, comm, params));

cleanup:
    return rc;
}

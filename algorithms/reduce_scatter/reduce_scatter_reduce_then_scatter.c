/*
 * reduce_scatter_reduce_then_scatter.c: reduce_scatter as a binomial reduce
 * of all p blocks to rank 0 followed by a linear scatter from rank 0 (Open
 * MPI's "non-overlapping" reduce_scatter_block, coll/base: a reduce then a
 * scatter).
 *
 * The reduce is rooted at rank 0, where the binomial tree combines in rank
 * order, so non-commutative ops are kept in order.
 *
 * Restrictions: none.
 * Reference: Open MPI ompi_coll_base_reduce_scatter_block_basic_linear
 *            (reduce to 0, then scatter); reduce_binomial.c, scatter_linear.c.
 * Cost:      ceil(lg p) (alpha + p n beta + p n gamma) + alpha + (p - 1) n beta
 */
#include "common/internal.h"
#include "common/opening.h"

int collsim_reduce_scatter_reduce_then_scatter(const void *sendbuf, void *recvbuf, int recvcount,
                                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                               const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint extent;
    void *total = NULL;

    COLLSIM_CHECK(collsim_open_blocks(comm, datatype, recvcount, &rank, &size, &extent));
    if (recvcount == 0)
        return MPI_SUCCESS;
    const int count = recvcount * size;
    /* every rank needs a receive buffer for the reduce; only rank 0's is read */
    total = collsim_buffer_alloc((size_t)count * (size_t)extent, params);
    if (total == NULL)
        return MPI_ERR_NO_MEM;
    COLLSIM_CHECK(collsim_reduce_binomial(sendbuf, total, count, datatype, op, 0, comm, params));
    COLLSIM_CHECK(collsim_scatter_linear(total, recvcount, datatype, recvbuf, recvcount, datatype,
                                         0, comm, params));

cleanup:
    collsim_buffer_free(total, params);
    return rc;
}

/*
 * exscan_linear.c: linear (chain) exclusive scan.
 *
 * Rank 0 sends its input to rank 1 and receives nothing (its recvbuf is
 * undefined, MPI-3.1 sec. 5.11.2).  Rank r > 0 receives the prefix of ranks
 * 0 .. r-1 from rank r - 1 into recvbuf (its result) and, unless it is the
 * last, sends prefix op x_r (rank order, any op) on to rank r + 1.
 *
 *      0 -> 1 -> 2 -> ... -> p-1       (p - 1 steps)
 *
 * Restrictions: none (rank order kept: non-commutative ops are exact).
 * Reference: Open MPI ompi_coll_basic_exscan_intra (coll/basic, Open MPI
 *            4.1's only exscan).
 * Cost:      (p - 1) (alpha + n beta) + (p - 2) n gamma
 */
#include "common/internal.h"
#include "common/opening.h"

int collsim_exscan_linear(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint extent;
    void *next = NULL;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    if (count == 0 || size == 1)
        return MPI_SUCCESS;
    if (rank == 0)
        return MPI_Send(sendbuf, count, datatype, 1, COLLSIM_TAG_EXSCAN, comm);
    COLLSIM_CHECK(MPI_Recv(recvbuf, count, datatype, rank - 1, COLLSIM_TAG_EXSCAN, comm,
                           MPI_STATUS_IGNORE));
    if (rank < size - 1) {
        next = collsim_buffer_alloc((size_t)count * (size_t)extent, params);
        if (next == NULL)
            return MPI_ERR_NO_MEM;
        collsim_copy(next, sendbuf, count, extent);
        /* next = prefix op x_rank */
        COLLSIM_CHECK(collsim_reduce_local(recvbuf, next, count, datatype, op, params));
        COLLSIM_CHECK(MPI_Send(next, count, datatype, rank + 1, COLLSIM_TAG_EXSCAN, comm));
    }

cleanup:
    collsim_buffer_free(next, params);
    return rc;
}

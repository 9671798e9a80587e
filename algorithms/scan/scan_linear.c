/*
 * scan_linear.c: linear (chain) scan.
 *
 * Rank 0's result is its input.  Rank r > 0 receives the prefix of ranks
 * 0 .. r-1 from rank r - 1, combines it with its own input as the left
 * operand (prefix op x_r: rank order, any op), and sends its result on to
 * rank r + 1.  The prefixes travel the chain one after the other.
 *
 *      0 -> 1 -> 2 -> ... -> p-1       (p - 1 steps, each a message and a combine)
 *
 * Restrictions: none (rank order kept: non-commutative ops are exact).
 * Reference: Open MPI ompi_coll_basic_scan_intra (coll/basic, the only scan
 *            Open MPI 4.1 has); MPICH's MPIR_Scan_intra_... for
 *            non-commutative ops takes recursive doubling instead.
 * Cost:      (p - 1) (alpha + n beta + n gamma)
 */
#include "common/internal.h"
#include "common/opening.h"

int collsim_scan_linear(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint extent;
    void *prefix = NULL;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    collsim_copy(recvbuf, sendbuf, count, extent);
    if (count == 0)
        return MPI_SUCCESS;
    if (rank > 0) {
        prefix = collsim_buffer_alloc((size_t)count * (size_t)extent, params);
        if (prefix == NULL)
            return MPI_ERR_NO_MEM;
        COLLSIM_CHECK(MPI_Recv(prefix, count, datatype, rank - 1, COLLSIM_TAG_SCAN, comm,
                               MPI_STATUS_IGNORE));
        /* recvbuf = prefix op x_rank */
        COLLSIM_CHECK(collsim_reduce_local(prefix, recvbuf, count, datatype, op, params));
    }
    if (rank < size - 1)
        COLLSIM_CHECK(MPI_Send(recvbuf, count, datatype, rank + 1, COLLSIM_TAG_SCAN, comm));

cleanup:
    collsim_buffer_free(prefix, params);
    return rc;
}

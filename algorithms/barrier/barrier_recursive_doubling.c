/*
 * barrier_recursive_doubling.c: recursive-doubling barrier, Open MPI's.
 *
 * Let m be the largest power of two <= p.  When p is not one, each rank
 * r >= m first sends an empty message to r - m (and posts the receive of
 * its release); ranks r < p - m wait for it.  Then the ranks below m
 * exchange empty messages with r XOR 1, r XOR 2, ..., r XOR m/2, in both
 * directions (a receive posted, a blocking send, the wait).  Last, each rank
 * r < p - m releases r + m with a synchronous send.  Nobody leaves before
 * every rank has entered: a rank below m has heard from all m - 1 others
 * below m after lg m exchanges, and they from the ranks above m first.
 *
 *     p = 6 (m = 4):  4 -> 0, 5 -> 1 | 0 <-> 1, 2 <-> 3 | 0 <-> 2, 1 <-> 3 | 0 -> 4, 1 -> 5
 *
 * Restrictions: none.
 * Reference: Open MPI 4.1 ompi_coll_base_barrier_intra_recursivedoubling
 *            (coll_base_barrier.c: the same fold, exchanges and release,
 *            through ompi_coll_base_sendrecv_zero); Hensgen, Finkel &
 *            Manber, IJPP 17(1), 1988 (the butterfly barrier).
 * Cost:      lg p alpha when p is a power of two, else
 *            (floor(lg p) + 2) alpha (the fold and the release)
 */
#include "common/internal.h"

/* Open MPI's ompi_coll_base_sendrecv_zero: an empty message each way with
 * peer, the receive posted before the blocking send. */
static int exchange_empty(int peer, MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    MPI_Request request = MPI_REQUEST_NULL;
    COLLSIM_CHECK(MPI_Irecv(NULL, 0, MPI_BYTE, peer, COLLSIM_TAG_BARRIER, comm, &request));
    COLLSIM_CHECK(MPI_Send(NULL, 0, MPI_BYTE, peer, COLLSIM_TAG_BARRIER, comm));
    COLLSIM_CHECK(MPI_Wait(&request, MPI_STATUS_IGNORE));

cleanup:
    if (request != MPI_REQUEST_NULL) {
        MPI_Cancel(&request);
        MPI_Wait(&request, MPI_STATUS_IGNORE);
    }
    return rc;
}

int collsim_barrier_recursive_doubling(MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    (void)params;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    const int m = collsim_pow2_floor(size);
    if (rank >= m) {
        /* enter through r - m; its release is the reply */
        COLLSIM_CHECK(exchange_empty(rank - m, comm));
        return MPI_SUCCESS;
    }
    if (rank < size - m)
        COLLSIM_CHECK(MPI_Recv(NULL, 0, MPI_BYTE, rank + m, COLLSIM_TAG_BARRIER, comm,
                               MPI_STATUS_IGNORE));
    for (int mask = 1; mask < m; mask *= 2)
        COLLSIM_CHECK(exchange_empty(rank ^ mask, comm));
    if (rank < size - m)
        COLLSIM_CHECK(MPI_Ssend(NULL, 0, MPI_BYTE, rank + m, COLLSIM_TAG_BARRIER, comm));

cleanup:
    return rc;
}

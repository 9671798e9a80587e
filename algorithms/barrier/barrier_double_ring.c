/*
 * barrier_double_ring.c: two trips of an empty token round the ring, Open MPI's doublering.
 *
 * Rank 0 sends a token to rank 1; each rank r > 0 waits for it from r - 1
 * and passes it to r + 1 (rank p - 1 to rank 0): when it is back at rank 0,
 * every rank has entered.  The second trip, the same way round with
 * synchronous sends, lets them leave.  2p messages, one after the other.
 *
 * Restrictions: none.
 * Reference: Open MPI 4.1 ompi_coll_base_barrier_intra_doublering
 *            (coll_base_barrier.c: standard sends on the first trip,
 *            synchronous sends on the second).
 * Cost:      2 p alpha (p > 1)
 */
#include "common/internal.h"

/* One trip of the token: receive from the left (rank 0: last), send right. */
static int trip(int rank, int left, int right, int synchronous, MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    if (rank > 0)
        COLLSIM_CHECK(MPI_Recv(NULL, 0, MPI_BYTE, left, COLLSIM_TAG_BARRIER, comm,
                               MPI_STATUS_IGNORE));
    if (synchronous)
        COLLSIM_CHECK(MPI_Ssend(NULL, 0, MPI_BYTE, right, COLLSIM_TAG_BARRIER, comm));
    else
        COLLSIM_CHECK(MPI_Send(NULL, 0, MPI_BYTE, right, COLLSIM_TAG_BARRIER, comm));
    if (rank == 0)
        COLLSIM_CHECK(MPI_Recv(NULL, 0, MPI_BYTE, left, COLLSIM_TAG_BARRIER, comm,
                               MPI_STATUS_IGNORE));

cleanup:
    return rc;
}

int collsim_barrier_double_ring(MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    (void)params;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    if (size == 1)
        return MPI_SUCCESS;
    const int left = (rank - 1 + size) % size, right = (rank + 1) % size;
    COLLSIM_CHECK(trip(rank, left, right, 0, comm));
    COLLSIM_CHECK(trip(rank, left, right, 1, comm));

cleanup:
    return rc;
}

/*
 * barrier_dissemination.c: dissemination barrier.
 *
 * In round k = 0 .. ceil(lg p) - 1 every rank sends an empty message to
 * rank + 2^k and receives one from rank - 2^k (mod p).  After round k a rank
 * has heard, directly or not, from the 2^(k+1) - 1 ranks before it, so after
 * ceil(lg p) rounds from all: any p, no extra step.
 *
 * Restrictions: none.
 * Reference: Hensgen, Finkel & Manber, "Two algorithms for barrier
 *            synchronization", IJPP 17(1), 1988; MPICH
 *            MPIR_Barrier_intra_dissemination (its default); Open MPI
 *            ompi_coll_base_barrier_intra_bruck (the same exchange).
 * Cost:      ceil(lg p) alpha
 */
#include "common/internal.h"

int collsim_barrier_dissemination(MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    (void)params;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    for (int distance = 1; distance < size; distance *= 2) {
        const int to = (rank + distance) % size, from = (rank - distance + size) % size;
        COLLSIM_CHECK(MPI_Sendrecv(NULL, 0, MPI_BYTE, to, COLLSIM_TAG_BARRIER, NULL, 0, MPI_BYTE,
                                   from, COLLSIM_TAG_BARRIER, comm, MPI_STATUS_IGNORE));
    }

cleanup:
    return rc;
}

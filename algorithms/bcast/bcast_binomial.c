/*
 * bcast_binomial.c: binomial-tree broadcast.
 *
 * Ranks are numbered relative to the root, v = (rank - root) mod p.  A rank
 * receives from its parent (v minus its lowest set bit), then sends to its
 * children v + mask for mask = its lowest set bit / 2, ..., 1: farthest child
 * first, so the largest subtree starts earliest.
 *
 *     p = 8:   0 -> 4, 0 -> 2, 0 -> 1
 *              4 -> 6, 4 -> 5;  2 -> 3;  6 -> 7
 *
 * Restrictions: none.
 * Reference: Thakur, Rabenseifner, Gropp, IJHPCA 2005 (MPICH binomial bcast).
 * Cost:      ceil(lg p) (alpha + n beta)
 */
#include "common/internal.h"

int collsim_bcast_binomial(void *buffer, int count, MPI_Datatype datatype, int root,
                           MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    (void)params;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    if (count == 0)
        return MPI_SUCCESS;

    const int vrank = (rank - root + size) % size;
    int mask = 1;
    while (mask < size) {
        if (vrank & mask) {
            int parent = (rank - mask + size) % size;
            COLLSIM_CHECK(MPI_Recv(buffer, count, datatype, parent, COLLSIM_TAG_BCAST, comm,
                                   MPI_STATUS_IGNORE));
            break;
        }
        mask <<= 1;
    }
    for (mask >>= 1; mask > 0; mask >>= 1) {
        if (vrank + mask < size) {
            int child = (rank + mask) % size;
            COLLSIM_CHECK(MPI_Send(buffer, count, datatype, child, COLLSIM_TAG_BCAST, comm));
        }
    }

cleanup:
    return rc;
}

/*
 * barrier_tree.c: binomial gather to rank 0, then binomial release, Open MPI's tree.
 *
 * Up: for jump = 1, 2, 4, ... < p (rounded up to a power of two), a rank
 * whose bits below jump are all zero receives an empty message from
 * rank + jump (if it exists) when bit jump is clear in its rank, or sends
 * one to rank - jump when it is set, and is then done going up.  Down, the
 * same tree in reverse: from the largest jump to 1, a rank receives from
 * rank - jump, then sends to rank + jump for every smaller jump.  Rank 0
 * hears from everyone (directly or not) before it sends the first release.
 *
 *     p = 8:  up    1->0 3->2 5->4 7->6 | 2->0 6->4 | 4->0
 *             down  0->4 | 0->2 4->6 | 0->1 2->3 4->5 6->7
 *
 * Restrictions: none.
 * Reference: Open MPI 4.1 ompi_coll_base_barrier_intra_tree
 *            (coll_base_barrier.c: the same partners and order, blocking
 *            sends and receives).
 * Cost:      2 ceil(lg p) alpha (rank 0 receives ceil(lg p) messages, one
 *            after the other, then sends as many)
 */
#include "common/internal.h"

int collsim_barrier_tree(MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    (void)params;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    int depth = 1;
    while (depth < size)
        depth *= 2;
    for (int jump = 1; jump < depth; jump *= 2) {
        const int partner = rank ^ jump;
        if ((partner & (jump - 1)) != 0 || partner >= size)
            continue;
        if (partner > rank)
            COLLSIM_CHECK(MPI_Recv(NULL, 0, MPI_BYTE, partner, COLLSIM_TAG_BARRIER, comm,
                                   MPI_STATUS_IGNORE));
        else
            COLLSIM_CHECK(MPI_Send(NULL, 0, MPI_BYTE, partner, COLLSIM_TAG_BARRIER, comm));
    }
    for (int jump = depth / 2; jump > 0; jump /= 2) {
        const int partner = rank ^ jump;
        if ((partner & (jump - 1)) != 0 || partner >= size)
            continue;
        if (partner > rank)
            COLLSIM_CHECK(MPI_Send(NULL, 0, MPI_BYTE, partner, COLLSIM_TAG_BARRIER, comm));
        else
            COLLSIM_CHECK(MPI_Recv(NULL, 0, MPI_BYTE, partner, COLLSIM_TAG_BARRIER, comm,
                                   MPI_STATUS_IGNORE));
    }

cleanup:
    return rc;
}

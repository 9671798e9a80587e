/*
 * bcast_linear.c: flat (linear) broadcast, Open MPI's "basic linear" shape.
 *
 * The root posts a nonblocking send to every other rank at once and waits for
 * all of them; every other rank receives once.  The p - 1 transfers run
 * concurrently and share the root's link, so the serialization shows in the
 * bandwidth term, not in the latency term as in the sequential formula of
 * seeds 002/004 ((p - 1)(alpha + n beta)).
 *
 *          root
 *       /  |  |  \          all p - 1 messages in flight together
 *      0   1  .. p-1
 *
 * Restrictions: none.
 * Reference: Open MPI coll/basic bcast_lin; seed 002 (linear bcast).
 * Cost:      alpha + (p - 1) n beta   (one shared link at the root)
 */
#include "common/internal.h"

int collsim_bcast_linear(void *buffer, int count, MPI_Datatype datatype, int root,
                         MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, nreq = 0;
    MPI_Request *requests = NULL;
    (void)params;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    if (count == 0)
        return MPI_SUCCESS;

    if (rank != root)
        return MPI_Recv(buffer, count, datatype, root, COLLSIM_TAG_BCAST, comm,
                        MPI_STATUS_IGNORE);

    requests = malloc(sizeof(MPI_Request) * (size_t)size);
    if (requests == NULL)
        return MPI_ERR_NO_MEM;
    for (int dst = 0; dst < size; dst++) {
        if (dst == root)
            continue;
        COLLSIM_CHECK(MPI_Isend(buffer, count, datatype, dst, COLLSIM_TAG_BCAST, comm,
                                &requests[nreq]));
        nreq++;
    }
    COLLSIM_CHECK(MPI_Waitall(nreq, requests, MPI_STATUSES_IGNORE));

cleanup:
    free(requests);
    return rc;
}

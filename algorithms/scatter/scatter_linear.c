/*
 * scatter_linear.c: flat (linear) scatter, Open MPI's basic_linear.
 *
 * The root sends block i to rank i, all p - 1 messages at once, and copies
 * its own block; every other rank receives once.  The messages share the
 * root's link.
 *
 *          root
 *       /  |  |  \          all p - 1 messages in flight together
 *      0   1  .. p-1
 *
 * Restrictions: none.
 * Reference: Open MPI coll/base ompi_coll_base_scatter_intra_basic_linear.
 * Cost:      alpha + (p - 1) n beta   (one shared link at the root)
 */
#include "common/blockcopy.h"
#include "common/internal.h"

int collsim_scatter_linear(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                           MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, nreq = 0;
    MPI_Request *requests = NULL;
    (void)params;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    if (rank != root)
        return recvcount == 0 ? MPI_SUCCESS
                              : MPI_Recv(recvbuf, recvcount, recvtype, root, COLLSIM_TAG_SCATTER,
                                         comm, MPI_STATUS_IGNORE);

    const MPI_Aint block = collsim_block_extent(sendcount, sendtype);
    COLLSIM_CHECK(collsim_block_copy((const char *)sendbuf + (MPI_Aint)root * block, sendcount,
                                     sendtype, recvbuf, recvcount, recvtype));
    if (sendcount == 0)
        return MPI_SUCCESS;
    requests = malloc(sizeof(MPI_Request) * (size_t)size);
    if (requests == NULL)
        return MPI_ERR_NO_MEM;
    for (int dst = 0; dst < size; dst++) {
        if (dst == root)
            continue;
        COLLSIM_CHECK(MPI_Isend((const char *)sendbuf + (MPI_Aint)dst * block, sendcount, sendtype,
                                dst, COLLSIM_TAG_SCATTER, comm, &requests[nreq]));
        nreq++;
    }
    COLLSIM_CHECK(MPI_Waitall(nreq, requests, MPI_STATUSES_IGNORE));

cleanup:
    free(requests);
    return rc;
}

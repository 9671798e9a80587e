/*
 * gather_linear.c: flat (linear) gather, Open MPI's basic_linear.
 *
 * Every rank sends its block to the root at once; the root posts a receive
 * for each rank into its place in recvbuf and copies its own block.  The
 * p - 1 messages share the root's link.
 *
 *      0   1  .. p-1
 *       \  |  |  /          all p - 1 messages in flight together
 *          root
 *
 * Restrictions: none.
 * Reference: Open MPI coll/base ompi_coll_base_gather_intra_basic_linear;
 *            MPICH MPIR_Gather_intra_... (linear in the inter-communicator case).
 * Cost:      alpha + (p - 1) n beta   (one shared link at the root)
 */
#include "common/blockcopy.h"
#include "common/internal.h"

int collsim_gather_linear(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                          MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, nreq = 0;
    MPI_Request *requests = NULL;
    (void)params;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    if (rank != root)
        return sendcount == 0 ? MPI_SUCCESS
                              : MPI_Send(sendbuf, sendcount, sendtype, root, COLLSIM_TAG_GATHER,
                                         comm);

    const MPI_Aint block = collsim_block_extent(recvcount, recvtype);
    COLLSIM_CHECK(collsim_block_copy(sendbuf, sendcount, sendtype,
                                     (char *)recvbuf + (MPI_Aint)root * block, recvcount,
                                     recvtype));
    if (recvcount == 0)
        return MPI_SUCCESS;
    requests = malloc(sizeof(MPI_Request) * (size_t)size);
    if (requests == NULL)
        return MPI_ERR_NO_MEM;
    for (int src = 0; src < size; src++) {
        if (src == root)
            continue;
        COLLSIM_CHECK(MPI_Irecv((char *)recvbuf + (MPI_Aint)src * block, recvcount, recvtype, src,
                                COLLSIM_TAG_GATHER, comm, &requests[nreq]));
        nreq++;
    }
    COLLSIM_CHECK(MPI_Waitall(nreq, requests, MPI_STATUSES_IGNORE));

cleanup:
    free(requests);
    return rc;
}

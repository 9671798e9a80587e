/*
 * alltoall_linear.c: all-at-once alltoall, Open MPI's basic_linear.
 *
 * Each rank copies its own block, posts a receive from every other rank and
 * a send to every other rank, and waits for all of them: p (p - 1) messages
 * in flight together, p - 1 through each rank's link in each direction.
 *
 * Restrictions: none.
 * Reference: Open MPI ompi_coll_base_alltoall_intra_basic_linear (posts the
 *            receives first, then the sends, rank + 1 onward); Thakur,
 *            Rabenseifner & Gropp, IJHPCA 2005, sec. 3.6 (the
 *            "isend-irecv" algorithm of MPICH for medium messages).
 * Cost:      alpha + (p - 1) n beta   (each rank's link carries p - 1 blocks)
 */
#include "common/blockcopy.h"
#include "common/internal.h"

int collsim_alltoall_linear(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            const collsim_params *params)
{
    int rc = MPI_SUCCESS, nreq = 0;
    collsim_exchange x;
    MPI_Request *requests = NULL;
    (void)params;

    COLLSIM_CHECK(collsim_exchange_open(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                        recvtype, comm, &x));
    const int rank = x.rank, size = x.size;
    if (recvcount == 0)
        return MPI_SUCCESS;
    requests = malloc(sizeof(MPI_Request) * 2 * (size_t)size);
    if (requests == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 1; i < size; i++) {
        COLLSIM_CHECK(collsim_exchange_irecv(&x, (rank + i) % size, &requests[nreq++]));
    }
    for (int i = 1; i < size; i++) {
        COLLSIM_CHECK(collsim_exchange_isend(&x, (rank + i) % size, &requests[nreq++]));
    }
    COLLSIM_CHECK(MPI_Waitall(nreq, requests, MPI_STATUSES_IGNORE));

cleanup:
    free(requests);
    return rc;
}

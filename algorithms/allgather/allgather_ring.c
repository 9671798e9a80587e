/*
 * allgather_ring.c: ring allgather.
 *
 * Each rank copies its block into place; then in step s = 0 .. p-2 it sends
 * to rank + 1 the block it received in the step before (its own first) and
 * receives from rank - 1 the block of rank - s - 1.  Every link of the ring
 * carries one block per step, so the bandwidth term is optimal.
 *
 *      0 -> 1 -> 2 -> ... -> p-1 -> 0     (p - 1 steps, one block each)
 *
 * Restrictions: none.
 * Reference: Thakur, Rabenseifner & Gropp, "Optimization of Collective
 *            Communication Operations in MPICH", IJHPCA 19(1), 2005, sec. 3.1;
 *            Open MPI ompi_coll_base_allgather_intra_ring; MPICH
 *            MPIR_Allgather_intra_ring.
 * Cost:      (p - 1) (alpha + n beta)
 */
#include "common/blockcopy.h"
#include "common/internal.h"

int collsim_allgather_ring(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    (void)params;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    const MPI_Aint block = collsim_block_extent(recvcount, recvtype);
    COLLSIM_CHECK(collsim_block_copy(sendbuf, sendcount, sendtype,
                                     (char *)recvbuf + (MPI_Aint)rank * block, recvcount,
                                     recvtype));
    if (recvcount == 0)
        return MPI_SUCCESS;
    const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    for (int s = 0; s < size - 1; s++) {
        const int send_block = (rank - s + size) % size;
        const int recv_block = (rank - s - 1 + size) % size;
        COLLSIM_CHECK(MPI_Sendrecv((char *)recvbuf + (MPI_Aint)send_block * block, recvcount,
                                   recvtype, right, COLLSIM_TAG_ALLGATHER,
                                   (char *)recvbuf + (MPI_Aint)recv_block * block, recvcount,
                                   recvtype, left, COLLSIM_TAG_ALLGATHER, comm,
                                   MPI_STATUS_IGNORE));
    }

cleanup:
    return rc;
}

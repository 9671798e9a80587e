/*
 * alltoall_pairwise.c: pairwise exchange by shifts, Open MPI's pairwise.
 *
 * Each rank copies its own block, then in step k = 1 .. p - 1 sends its
 * block for rank + k and receives the block of rank - k (mod p) in one
 * MPI_Sendrecv: p - 1 steps of one block each way, one message per link and
 * direction in every step, any p.
 *
 *     p = 4, rank 0:   step 1: -> 1, <- 3   step 2: -> 2, <- 2   step 3: -> 3, <- 1
 *
 * Restrictions: none.
 * Reference: Open MPI 4.1 ompi_coll_base_alltoall_intra_pairwise
 *            (coll_base_alltoall.c: the same shifts; its step p is the copy
 *            to itself, here done first, without a message); Thakur,
 *            Rabenseifner & Gropp, IJHPCA 2005, sec. 3.6 (the pairwise
 *            exchange for long messages; MPICH's own, with XOR partners for
 *            powers of two, is pairwise_xor); SimGrid names this schedule
 *            alltoall "ring".
 * Cost:      (p - 1) (alpha + n beta)
 */
#include "common/blockcopy.h"
#include "common/internal.h"

int collsim_alltoall_pairwise(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                              const collsim_params *params)
{
    int rc = MPI_SUCCESS;
    collsim_exchange x;
    (void)params;

    COLLSIM_CHECK(collsim_exchange_open(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                        recvtype, comm, &x));
    const int rank = x.rank, size = x.size;
    if (recvcount == 0)
        return MPI_SUCCESS;
    for (int step = 1; step < size; step++) {
        COLLSIM_CHECK(
            collsim_exchange_sendrecv(&x, (rank + step) % size, (rank - step + size) % size));
    }

cleanup:
    return rc;
}

/*
 * alltoall_pairwise_xor.c: pairwise exchange, MPICH's pairwise.
 *
 * Each rank copies its own block, then in step k = 1 .. p - 1 exchanges one
 * block with a partner in one MPI_Sendrecv.  When p is a power of two the
 * partner is rank XOR k (both directions of a step join the same two
 * ranks); otherwise the step sends to rank + k and receives from rank - k
 * (mod p), as pairwise does.  Same cost as pairwise on a crossbar; the
 * partners, and so the links a step loads on a tree or dragonfly, differ.
 *
 *     p = 4, rank 1:   step 1: <-> 0   step 2: <-> 3   step 3: <-> 2
 *
 * Restrictions: none.
 * Reference: MPICH 4.0 MPIR_Alltoall_intra_pairwise
 *            (src/mpi/coll/alltoall/alltoall_intra_pairwise.c); Thakur,
 *            Rabenseifner & Gropp, IJHPCA 2005, sec. 3.6; SimGrid names the
 *            XOR schedule alltoall "pair".
 * Cost:      (p - 1) (alpha + n beta)
 */
#include "common/blockcopy.h"
#include "common/internal.h"

int collsim_alltoall_pairwise_xor(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                  void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                  MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS;
    collsim_exchange x;
    (void)params;

    COLLSIM_CHECK(collsim_exchange_open(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                        recvtype, comm, &x));
    const int rank = x.rank, size = x.size;
    if (recvcount == 0)
        return MPI_SUCCESS;
    const int power_of_two = (size & (size - 1)) == 0;
    for (int step = 1; step < size; step++) {
        const int to = power_of_two ? rank ^ step : (rank + step) % size;
        const int from = power_of_two ? rank ^ step : (rank - step + size) % size;
        COLLSIM_CHECK(collsim_exchange_sendrecv(&x, to, from));
    }

cleanup:
    return rc;
}

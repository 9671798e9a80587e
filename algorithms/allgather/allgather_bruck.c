/*
 * allgather_bruck.c: Bruck's allgather (the concatenation algorithm).
 *
 * Each rank works in a scratch buffer of p blocks holding, at place j, the
 * block of rank (rank + j) mod p; its own block goes to place 0.  At step k
 * (distance d = 2^k, k = 0 .. ceil(lg p) - 1) it sends its first
 * min(d, p - d) blocks to rank - d and receives as many from rank + d
 * (MPI_Sendrecv) into places d ..: after the step it holds 2d blocks (or
 * all p).  A final local rotation puts place j at block (rank + j) mod p of
 * recvbuf.
 *
 *     p = 5, rank 0:  step 0: from 1: [1]       holds 0 1
 *                     step 1: from 2: [2 3]     holds 0 1 2 3
 *                     step 2: from 4: [4]       holds 0 1 2 3 4  (p - 4 = 1 block)
 *
 * Restrictions: none.  Scratch: p blocks.
 * Reference: Bruck, Ho, Kipnis, Upfal & Weathersby, "Efficient algorithms
 *            for all-to-all communications in multiport message-passing
 *            systems", IEEE TPDS 8(11), 1997 (the index/concatenation
 *            algorithm, one port); Open MPI 4.1
 *            ompi_coll_base_allgather_intra_bruck and MPICH 4.0
 *            MPIR_Allgather_intra_brucks: the same messages (MPICH's scratch
 *            buffer and rotation, followed here).
 * Cost:      ceil(lg p) alpha + (p - 1) n beta   (n: one block; any p)
 */
#include "common/blockcopy.h"
#include "common/internal.h"

#include <limits.h>

int collsim_allgather_bruck(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                            const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    char *scratch = NULL;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    const MPI_Aint block = collsim_block_extent(recvcount, recvtype);
    if (recvcount == 0 || size == 1)
        return collsim_block_copy(sendbuf, sendcount, sendtype,
                                  (char *)recvbuf + (MPI_Aint)rank * block, recvcount, recvtype);
    if ((long long)size * recvcount > INT_MAX)
        return MPI_ERR_COUNT;
    scratch = collsim_buffer_alloc((size_t)size * (size_t)block, params);
    if (scratch == NULL)
        return MPI_ERR_NO_MEM;
    COLLSIM_CHECK(collsim_block_copy(sendbuf, sendcount, sendtype, scratch, recvcount, recvtype));
    for (int distance = 1; distance < size; distance <<= 1) {
        const int blocks = distance < size - distance ? distance : size - distance;
        COLLSIM_CHECK(MPI_Sendrecv(scratch, blocks * recvcount, recvtype,
                                   (rank - distance + size) % size, COLLSIM_TAG_ALLGATHER,
                                   scratch + (MPI_Aint)distance * block, blocks * recvcount,
                                   recvtype, (rank + distance) % size, COLLSIM_TAG_ALLGATHER,
                                   comm, MPI_STATUS_IGNORE));
    }
    /* places 0 .. p - rank - 1 are ranks rank .. p - 1, the rest ranks 0 .. rank - 1 */
    const int tail = size - rank;
    COLLSIM_CHECK(collsim_block_copy(scratch, tail * recvcount, recvtype,
                                     (char *)recvbuf + (MPI_Aint)rank * block, tail * recvcount,
                                     recvtype));
    COLLSIM_CHECK(collsim_block_copy(scratch + (MPI_Aint)tail * block, rank * recvcount, recvtype,
                                     recvbuf, rank * recvcount, recvtype));

cleanup:
    collsim_buffer_free(scratch, params);
    return rc;
}

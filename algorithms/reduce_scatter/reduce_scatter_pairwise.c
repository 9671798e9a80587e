/*
 * reduce_scatter_pairwise.c: reduce-scatter by pairwise exchange.
 *
 * In step s = 1 .. p-1 rank r sends its block r + s to rank r + s and
 * receives from rank r - s that rank's block r, which it combines into its
 * accumulator (indices mod p), as MPI_Alltoall's pairwise exchange moves
 * blocks.  After p - 1 steps rank r holds block r summed over all ranks.
 *
 *     p = 4, step s = 1:  0 -> 1  1 -> 2  2 -> 3  3 -> 0   (block of the receiver)
 *            step s = 2:  0 -> 2  1 -> 3  2 -> 0  3 -> 1
 *            step s = 3:  0 -> 3  1 -> 0  2 -> 1  3 -> 2
 *
 * Rank r combines block r in the order r, r-1, r-2, ..., not in rank order,
 * hence the restriction (MPICH asserts a commutative op too).
 *
 * Restrictions: commutative op.
 * Reference: MPICH 4.1 MPIR_Reduce_scatter_block_intra_pairwise; Thakur,
 *            Rabenseifner & Gropp, IJHPCA 19(1), 2005 (Reduce-Scatter); common/blocks.c
 *            collsim_pairwise_reduce_scatter (shared with reduce_ring.c).
 * Cost:      (p - 1) (alpha + n beta + n gamma)
 */
#include "common/blocks.h"
#include "common/internal.h"
#include "common/opening.h"

int collsim_reduce_scatter_pairwise(const void *sendbuf, void *recvbuf, int recvcount,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                    const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint extent;
    void *tmp = NULL;

    COLLSIM_CHECK(collsim_open_blocks(comm, datatype, recvcount, &rank, &size, &extent));
    if (recvcount == 0)
        return MPI_SUCCESS;
    tmp = collsim_buffer_alloc((size_t)recvcount * (size_t)extent, params);
    if (tmp == NULL)
        return MPI_ERR_NO_MEM;
    collsim_copy(recvbuf, collsim_elem((void *)sendbuf, extent, rank * recvcount), recvcount,
                 extent);
    COLLSIM_CHECK(collsim_pairwise_reduce_scatter(sendbuf, recvbuf, tmp, recvcount * size,
                                                  datatype, op, comm, COLLSIM_TAG_REDUCE_SCATTER,
                                                  params));

cleanup:
    collsim_buffer_free(tmp, params);
    return rc;
}

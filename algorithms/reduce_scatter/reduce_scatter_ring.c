/*
 * reduce_scatter_ring.c: ring reduce-scatter (the first phase of the ring
 * allreduce, ending with each rank's own block).
 *
 * Each rank's p blocks (count elements each) travel the ring: in step
 * k = 0 .. p-2 rank i sends its partial of block (i - k - 1) mod p to rank
 * i + 1 and receives from rank i - 1 that rank's partial of block
 * (i - k - 2) mod p, which it combines into its copy.  After p - 1 steps rank
 * i holds block i summed over all ranks.
 *
 *     0 -> 1 -> 2 -> ... -> p-1 -> 0      every step, every rank sends one
 *                                         block and receives one block
 *
 * Block i is combined in ring order, starting at rank i + 1, not in rank
 * order, hence the restriction.
 *
 * Restrictions: commutative op.
 * Reference: Open MPI 4.1 ompi_coll_base_reduce_scatter_intra_ring
 *            (coll/base, MPI_Reduce_scatter: the same blocks in the same
 *            steps, its receives posted one step ahead); Patarasuk & Yuan,
 *            JPDC 69(2), 2009; common/blocks.c collsim_ring_reduce_scatter
 *            (shared with allreduce_ring.c).
 * Cost:      (p - 1) (alpha + n beta + n gamma)
 */
#include "common/blocks.h"
#include "common/internal.h"
#include "common/opening.h"

int collsim_reduce_scatter_ring(const void *sendbuf, void *recvbuf, int recvcount,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint extent;
    void *acc = NULL, *tmp = NULL;

    COLLSIM_CHECK(collsim_open_blocks(comm, datatype, recvcount, &rank, &size, &extent));
    if (recvcount == 0)
        return MPI_SUCCESS;
    const int count = recvcount * size;
    acc = collsim_buffer_alloc((size_t)count * (size_t)extent, params);
    tmp = collsim_buffer_alloc((size_t)recvcount * (size_t)extent, params);
    if (acc == NULL || tmp == NULL) {
        rc = MPI_ERR_NO_MEM;
        goto cleanup;
    }
    collsim_copy(acc, sendbuf, count, extent);
    COLLSIM_CHECK(collsim_ring_reduce_scatter(acc, tmp, count, rank, datatype, op, comm,
                                              COLLSIM_TAG_REDUCE_SCATTER, params));
    collsim_copy(recvbuf, collsim_elem(acc, extent, rank * recvcount), recvcount, extent);

cleanup:
    collsim_buffer_free(acc, params);
    collsim_buffer_free(tmp, params);
    return rc;
}

/*
 * reduce_ring.c: reduce-scatter by pairwise exchange, then a direct gather
 * to the root (seed 001 sec. 2.7, "ring" for reduce).
 *
 * The vector is cut into p blocks (block i: collsim_block_count(count, p, i)
 * elements); rank r computes block r.  In step s = 1 .. p-1 rank r sends its
 * input's block r + s to rank r + s and receives from rank r - s that rank's
 * input for block r, which it combines into its accumulator (all indices mod
 * p).  After p - 1 steps every rank holds its block of the result and sends it
 * straight to the root, which receives the blocks one after the other in rank
 * order.
 *
 *     p = 4, step s = 1:  0 -> 1 (block 1)  1 -> 2 (block 2)  2 -> 3  3 -> 0
 *            step s = 2:  0 -> 2 (block 2)  1 -> 3 (block 3)  2 -> 0  3 -> 1
 *            gather:      root <- r (block r), r = 0 .. p-1
 *
 * Operand order: rank r combines its block in the order r, r-1, r-2, ...,
 * which is not rank order, hence commutative ops only.
 *
 * Restrictions: commutative op.
 * Reference: R. Rabenseifner, ICCS 2004 (seed 001), sec. 2.2 ("ring
 *            algorithms") and 2.7; the pairwise exchange of Thakur, Gropp.
 * Cost:      (p - 1)(alpha + n/p beta + n/p gamma) + (p - 1)(alpha + n/p beta)
 *            (seed 001: (p-1)(alpha + alpha_uni) + n(beta + beta_uni) + n gamma
 *            - (n(beta + beta_uni) + n gamma)/p)
 */
#include "common/blocks.h"
#include "common/internal.h"
#include "common/opening.h"
#include "common/scratch.h"

int collsim_reduce_ring(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                        MPI_Op op, int root, MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint extent;
    void *acc = NULL, *tmp = NULL;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    if (count == 0)
        return MPI_SUCCESS;

    const int mine = collsim_block_count(count, size, rank);
    const int my_offset = collsim_block_offset(count, size, rank);
    COLLSIM_CHECK(collsim_buffer_pair(mine > 0 ? mine : 1, extent, params, &acc, &tmp));
    collsim_copy(acc, collsim_elem((void *)sendbuf, extent, my_offset), mine, extent);

    COLLSIM_CHECK(collsim_pairwise_reduce_scatter(sendbuf, acc, tmp, count, datatype, op, comm,
                                                  COLLSIM_TAG_REDUCE, params));

    if (rank != root) {
        COLLSIM_CHECK(MPI_Send(acc, mine, datatype, root, COLLSIM_TAG_REDUCE, comm));
    } else {
        for (int src = 0; src < size; src++) {
            void *block = collsim_elem(recvbuf, extent, collsim_block_offset(count, size, src));
            if (src == root)
                collsim_copy(block, acc, mine, extent);
            else
                COLLSIM_CHECK(MPI_Recv(block, collsim_block_count(count, size, src), datatype,
                                       src, COLLSIM_TAG_REDUCE, comm, MPI_STATUS_IGNORE));
        }
    }

cleanup:
    collsim_buffer_free(acc, params);
    collsim_buffer_free(tmp, params);
    return rc;
}

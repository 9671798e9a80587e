/*
 * reduce_binary_blocks.c: Rabenseifner's binary blocks reduce for any
 * process count (seed 001 sec. 2.6).
 *
 * The reduce-scatter of allreduce_binary_blocks.c (common/blocks.h): p cut
 * into power-of-two blocks by its binary representation, largest first, each
 * block halving its vector, each smaller block joining the next larger one
 * at the step where both cut the vector alike, so that block 0 (2^k0 ranks)
 * ends with the whole sum scattered over its ranks.  Then a binomial gather
 * inside block 0, the halving pairs in reverse order (smallest pieces
 * first): of each pair the rank that agrees with the root in bit s receives
 * the other's range.
 *
 * Root outside block 0: rank 0 sends its range to the root, and the root
 * plays rank 0's part in the gather (the seed's rule); this costs one
 * message of n / 2^k0.
 *
 *     p = 6 = 4 + 2, root 5: block 1 (ranks 4, 5) halves once; rank 4 sends
 *     its half to rank 2, rank 5 to rank 3, which combine it before block 0's
 *     second halving.  Rank 0 sends its quarter to rank 5; gather: 5 <- 2,
 *     1 <- 3; 5 <- 1.
 *
 * Operand order: as in the allreduce, every range is a run of consecutive
 * ranks combined left to right, and the gather only concatenates, so
 * non-commutative ops are kept in rank order.
 *
 * Restrictions: none.
 * Reference: R. Rabenseifner, "Optimization of collective reduction
 *            operations", ICCS 2004 (seed 001), sec. 2.6.
 * Cost:      p = 2^k: 2 k alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma
 *            (f_alpha = f_beta = 1); two blocks 2^k + 2^m add
 *            alpha + n/2^m (beta + gamma) for the join, and a root outside
 *            block 0 alpha + n/2^k beta; more blocks: the model replays the
 *            schedule.
 */
#include "common/blocks.h"
#include "common/internal.h"
#include "common/opening.h"
#include "common/scratch.h"

int collsim_reduce_binary_blocks(const void *sendbuf, void *recvbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                 const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, lo, hi;
    MPI_Aint extent;
    void *acc = NULL, *tmp = NULL;
    collsim_blocks blocks;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    if (count == 0)
        return MPI_SUCCESS;

    COLLSIM_CHECK(collsim_buffer_pair(count, extent, params, &acc, &tmp));
    collsim_copy(acc, sendbuf, count, extent);

    collsim_blocks_layout(size, rank, &blocks);
    COLLSIM_CHECK(collsim_blocks_reduce_scatter(acc, tmp, count, datatype, op, comm,
                                                COLLSIM_TAG_REDUCE, &blocks, params, &lo, &hi));

    const int k0 = blocks.lg[0];
    const int root_outside = root >= (1 << k0);
    /* the root's number in block 0's gather: root outside plays rank 0 */
    const int root_local = root_outside ? 0 : root;
    int local = -1;

    if (blocks.block == 0 && !(root_outside && rank == 0))
        local = rank;
    if (root_outside && rank == 0)
        COLLSIM_CHECK(MPI_Send(collsim_elem(acc, extent, lo), hi - lo, datatype, root,
                               COLLSIM_TAG_REDUCE, comm));
    if (root_outside && rank == root) {
        collsim_blocks_range(count, 0, k0, &lo, &hi);
        COLLSIM_CHECK(MPI_Recv(collsim_elem(acc, extent, lo), hi - lo, datatype, 0,
                               COLLSIM_TAG_REDUCE, comm, MPI_STATUS_IGNORE));
        local = 0;
    }
    if (local < 0)
        goto cleanup;

    for (int s = k0 - 1; s >= 0; s--) {
        const int mask = 1 << s;
        const int partner_local = local ^ mask;
        const int partner = (root_outside && partner_local == 0) ? root : partner_local;
        const int sends = ((local ^ root_local) & mask) != 0;
        int new_lo, new_hi;
        collsim_blocks_range(count, local, s, &new_lo, &new_hi);
        COLLSIM_CHECK(collsim_doubling_step(
            acc, &lo, &hi, new_lo, new_hi, (local & mask) == 0,
            sends ? COLLSIM_DOUBLING_SEND : COLLSIM_DOUBLING_RECEIVE, partner, datatype, comm,
            COLLSIM_TAG_REDUCE));
        if (sends)
            goto cleanup;
    }
    if (rank == root)
        collsim_copy(recvbuf, acc, count, extent);

cleanup:
    collsim_buffer_free(acc, params);
    collsim_buffer_free(tmp, params);
    return rc;
}

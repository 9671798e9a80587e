/*
 * allreduce_binary_blocks.c: Rabenseifner's binary blocks allreduce for any
 * process count (seed 001 sec. 2.6).
 *
 * p is cut into power-of-two blocks by its binary representation, largest
 * first (p = 13: ranks 0-7, 8-11, 12).  Each block reduce-scatters its
 * vector by recursive halving; a smaller block's result joins the next larger
 * block in the middle of that block's halving, at the step where both cut the
 * vector alike (common/blocks.h), so block 0 ends with the whole sum
 * scattered over its ranks.  The allgather runs the other way: each block
 * doubles its ranges step by step and, right after the step that restores
 * the next smaller block's cut, the rank that received from that block hands
 * it the finished range; that block then doubles on its own:
 *
 *     p = 12 = 8 + 4, vector cut in 8 (block 0) and 4 (block 1) ranges:
 *       block 1 halves twice while block 0 halves twice; block 1's rank i
 *       sends its quarter to block 0's rank i + 4, which combines it and
 *       halves once more; block 0 doubles once, ranks 4..7 hand the finished
 *       quarters back, and both blocks double twice.
 *
 * For a power of two this is exactly the halving and doubling of
 * allreduce_rabenseifner.c without its pre-step; otherwise, instead of
 * folding r = p - 2^floor(lg p) ranks into partners (2 n beta + n/2 gamma
 * extra), each join costs one message and one combination of n / 2^k_{b+1}
 * in each direction.
 *
 * Operand order: every range is a run of consecutive ranks combined left to
 * right (later blocks join on the right), so non-commutative ops are kept in
 * rank order.
 *
 * Restrictions: none.
 * Reference: R. Rabenseifner, "Optimization of collective reduction
 *            operations", ICCS 2004 (seed 001), sec. 2.6; R. Rabenseifner and
 *            J. L. Traeff, "More efficient reduction algorithms for
 *            non-power-of-two number of processors in message-passing
 *            parallel systems", EuroPVM/MPI 2004.
 * Cost:      p = 2^k: 2 k alpha + 2 (1 - 1/p) n beta + (1 - 1/p) n gamma;
 *            two blocks 2^k + 2^m: that plus 2 (alpha + n/2^m beta)
 *            + n/2^m gamma, the join on the critical path both ways; more
 *            blocks: see the model, which replays the schedule.
 */
#include "common/blocks.h"
#include "common/internal.h"
#include "common/opening.h"
#include "common/scratch.h"

int collsim_allreduce_binary_blocks(const void *sendbuf, void *recvbuf, int count,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                    const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, lo, hi;
    MPI_Aint extent;
    void *tmp = NULL;
    collsim_blocks blocks;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    if (count == 0)
        return MPI_SUCCESS;

    COLLSIM_CHECK(collsim_inplace_start(sendbuf, recvbuf, count, extent, params, &tmp));

    collsim_blocks_layout(size, rank, &blocks);
    COLLSIM_CHECK(collsim_blocks_reduce_scatter(recvbuf, tmp, count, datatype, op, comm,
                                                COLLSIM_TAG_ALLREDUCE, &blocks, params, &lo,
                                                &hi));

    const int b = blocks.block, j = blocks.local, k = blocks.lg[b];
    /* the step after which the next smaller block gets its ranges */
    const int join_step = b + 1 < blocks.nblocks ? blocks.lg[b + 1] : -1;
    const int joins = join_step >= 0 &&
                      rank == collsim_blocks_joiner(&blocks, b, j & ((1 << join_step) - 1));

    if (b > 0) {
        /* the finished range comes back from the rank it was sent to */
        COLLSIM_CHECK(MPI_Recv(collsim_elem(recvbuf, extent, lo), hi - lo, datatype,
                               collsim_blocks_joiner(&blocks, b - 1, j), COLLSIM_TAG_ALLREDUCE,
                               comm, MPI_STATUS_IGNORE));
    }
    for (int s = k - 1; s >= 0; s--) {
        const int partner = blocks.first[b] + (j ^ (1 << s));
        int new_lo, new_hi;
        collsim_blocks_range(count, j, s, &new_lo, &new_hi);
        COLLSIM_CHECK(collsim_doubling_step(recvbuf, &lo, &hi, new_lo, new_hi, (j & (1 << s)) == 0,
                                            COLLSIM_DOUBLING_EXCHANGE, partner, datatype, comm,
                                            COLLSIM_TAG_ALLREDUCE));
        if (s == join_step && joins) {
            const int to = blocks.first[b + 1] + (j & ((1 << s) - 1));
            COLLSIM_CHECK(MPI_Send(collsim_elem(recvbuf, extent, lo), hi - lo, datatype, to,
                                   COLLSIM_TAG_ALLREDUCE, comm));
        }
    }

cleanup:
    collsim_buffer_free(tmp, params);
    return rc;
}

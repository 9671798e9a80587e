/*
 * allreduce_rabenseifner.c: Rabenseifner's allreduce for any process count:
 * reduce-scatter by recursive vector halving and distance doubling, then
 * allgather by recursive vector doubling and distance halving (seed 001
 * sec. 2.5).
 *
 * Non-power-of-two p: with p' = 2^floor(lg p) and r = p - p', the ranks
 * 0 .. 2r-1 first pair up (2i, 2i+1): the even rank sends the second half of
 * its vector and receives the first half, both combine their half, and the
 * odd rank returns its combined half, so the even rank holds the pair's sum
 * and the odd rank sits out until the end.  The remaining p' ranks are
 * renumbered 0 .. p'-1 (even rank 2i < 2r becomes i, rank j >= 2r becomes
 * j - r).
 *
 * Reduce-scatter: at distance d = 1, 2, ..., p'/2 a rank exchanges half of
 * its current range with partner (new rank xor d): the rank whose bit d is 0
 * keeps the lower half, the other the upper half, and each combines the half
 * it keeps.  Allgather: the same pairs in reverse order exchange and
 * concatenate their ranges.  Finally each even rank < 2r sends the whole
 * result to its odd partner.
 *
 *     p' = 4, vector ABCD:   d=1: 0,1 split AB|CD   2,3 split AB|CD
 *                            d=2: 0,2 split A|B     1,3 split C|D
 *                            -> 0:A 2:B 1:C 3:D, then the reverse gathers
 *
 * Operand order: the ranges of ranks combined at each step are contiguous
 * and the lower range is always the left operand, so non-commutative ops
 * are kept in rank order.
 *
 * Restrictions: none.
 * Reference: R. Rabenseifner, "Optimization of collective reduction
 *            operations", ICCS 2004 (seed 001), sec. 2.5.
 * Cost:      2 lg p' alpha + 2 (1 - 1/p') n beta + (1 - 1/p') n gamma
 *            + [p != p'] (3 alpha + 2 n beta + n/2 gamma)
 *            (seed 001: the pre-step costs (1 + f_alpha) alpha +
 *            (1 + f_beta)/2 n beta + n/2 gamma, the final send alpha + n beta;
 *            with f_alpha = f_beta = 1; every block size is rounded up to a
 *            whole element)
 */
#include "common/blocks.h"
#include "common/internal.h"
#include "common/opening.h"
#include "common/scratch.h"

/* Real rank of the process with new number newrank. */
static int real_rank(int newrank, int r)
{
    return newrank < r ? 2 * newrank : newrank + r;
}

int collsim_allreduce_rabenseifner(const void *sendbuf, void *recvbuf, int count,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                   const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint extent;
    void *tmp = NULL;
    /* ranges [range_lo[l], range_hi[l]) held before reduce-scatter step l */
    int range_lo[32], range_hi[32];

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    if (count == 0)
        return MPI_SUCCESS;

    COLLSIM_CHECK(collsim_inplace_start(sendbuf, recvbuf, count, extent, params, &tmp));

    const int pof2 = collsim_pow2_floor(size);
    const int r = size - pof2;
    const int half = count / 2;
    int newrank;

    if (rank < 2 * r) {
        if (rank % 2 == 0) {
            /* keep [0, half), hand [half, count) to the odd partner */
            COLLSIM_CHECK(MPI_Sendrecv(collsim_elem(recvbuf, extent, half), count - half,
                                       datatype, rank + 1, COLLSIM_TAG_ALLREDUCE, tmp, half,
                                       datatype, rank + 1, COLLSIM_TAG_ALLREDUCE, comm,
                                       MPI_STATUS_IGNORE));
            COLLSIM_CHECK(collsim_reduce_local(recvbuf, tmp, half, datatype, op, params));
            collsim_copy(recvbuf, tmp, half, extent);
            COLLSIM_CHECK(MPI_Recv(collsim_elem(recvbuf, extent, half), count - half, datatype,
                                   rank + 1, COLLSIM_TAG_ALLREDUCE, comm, MPI_STATUS_IGNORE));
            newrank = rank / 2;
        } else {
            COLLSIM_CHECK(MPI_Sendrecv(recvbuf, half, datatype, rank - 1, COLLSIM_TAG_ALLREDUCE,
                                       tmp, count - half, datatype, rank - 1,
                                       COLLSIM_TAG_ALLREDUCE, comm, MPI_STATUS_IGNORE));
            COLLSIM_CHECK(collsim_reduce_local(tmp, collsim_elem(recvbuf, extent, half),
                                               count - half, datatype, op, params));
            COLLSIM_CHECK(MPI_Send(collsim_elem(recvbuf, extent, half), count - half, datatype,
                                   rank - 1, COLLSIM_TAG_ALLREDUCE, comm));
            newrank = -1;
        }
    } else {
        newrank = rank - r;
    }

    if (newrank >= 0) {
        int lo = 0, hi = count, levels = 0;
        for (int mask = 1; mask < pof2; mask <<= 1, levels++) {
            const int partner = real_rank(newrank ^ mask, r);
            range_lo[levels] = lo;
            range_hi[levels] = hi;
            COLLSIM_CHECK(collsim_halving_step(recvbuf, tmp, &lo, &hi, (newrank & mask) == 0,
                                               partner, datatype, op, comm, COLLSIM_TAG_ALLREDUCE,
                                               params));
        }
        for (int level = levels - 1; level >= 0; level--) {
            const int partner = real_rank(newrank ^ (1 << level), r);
            COLLSIM_CHECK(collsim_doubling_step(recvbuf, &lo, &hi, range_lo[level],
                                                range_hi[level], (newrank & (1 << level)) == 0,
                                                COLLSIM_DOUBLING_EXCHANGE, partner, datatype, comm,
                                                COLLSIM_TAG_ALLREDUCE));
        }
    }

    /* the even rank of a pair took part: it hands the result to the odd one */
    COLLSIM_CHECK(collsim_pow2_unfold(recvbuf, count, datatype, rank, r, 0, comm,
                                      COLLSIM_TAG_ALLREDUCE));

cleanup:
    collsim_buffer_free(tmp, params);
    return rc;
}

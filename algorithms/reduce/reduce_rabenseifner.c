/*
 * reduce_rabenseifner.c: Rabenseifner's reduce for any process count:
 * reduce-scatter by recursive vector halving and distance doubling, then a
 * binomial gather of the pieces to the root (seed 001 sec. 2.5).
 *
 * Non-power-of-two p: with p' = 2^floor(lg p) and r = p - p', the ranks
 * 0 .. 2r-1 pair up (2i, 2i+1).  The even rank combines the first half of the
 * vector, the odd rank the second half (each sends the other half to its
 * partner), and one of the two, the pair's keeper, receives the other's half
 * and goes on; the other sits out.  The keeper is the even rank, except in the
 * pair that holds the root when the root is odd: then the root keeps, so the
 * root always takes part and no final send to it is needed.  The p' remaining
 * ranks are numbered 0 .. p'-1 (keeper of pair i is i, rank j >= 2r is j - r),
 * which keeps their rank order.
 *
 * Reduce-scatter: at distance d = 1, 2, ..., p'/2 a rank exchanges half of
 * its current range with new rank xor d and combines the half it keeps (as in
 * allreduce_rabenseifner.c).  Gather: the same pairs in reverse order (the
 * smallest pieces first); of each pair the rank that agrees with the root's
 * new number in bit d receives the other's range and the other is done:
 *
 *     p' = 4, root 0:  halving  d=1: 0|1 2|3   d=2: 0|2 1|3   -> 0:A 2:B 1:C 3:D
 *                      gather   d=2: 0<-2 (B)  1<-3 (D)
 *                               d=1: 0<-1 (CD)                 -> 0:ABCD
 *
 * Operand order: the ranges combined at every step are contiguous in rank
 * order and the lower range is always the left operand, so non-commutative
 * ops are kept in rank order.
 *
 * Restrictions: none.
 * Reference: R. Rabenseifner, "Optimization of collective reduction
 *            operations", ICCS 2004 (seed 001), sec. 2.5 ("reduce-scatter +
 *            gather").
 * Cost:      2 lg p' alpha + 2 (1 - 1/p') n beta + (1 - 1/p') n gamma
 *            + [p != p'] (2 alpha + n beta + n/2 gamma)
 *            (every block rounded to whole elements; see the model)
 */
#include "common/blocks.h"
#include "common/internal.h"
#include "common/opening.h"
#include "common/scratch.h"

/* Real rank of the process with new number newrank; keeper[i] is the rank of
 * pair i that goes on. */
static int real_rank(int newrank, int r, int root)
{
    if (newrank >= r)
        return newrank + r;
    return (root == 2 * newrank + 1) ? root : 2 * newrank;
}

int collsim_reduce_rabenseifner(const void *sendbuf, void *recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint extent;
    void *acc = NULL, *tmp = NULL;
    /* ranges [range_lo[l], range_hi[l]) held before reduce-scatter step l */
    int range_lo[32], range_hi[32];

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    if (count == 0)
        return MPI_SUCCESS;

    COLLSIM_CHECK(collsim_buffer_pair(count, extent, params, &acc, &tmp));
    collsim_copy(acc, sendbuf, count, extent);

    const int pof2 = collsim_pow2_floor(size);
    const int r = size - pof2;
    const int half = count / 2;
    int newrank;

    if (rank < 2 * r) {
        const int even = rank % 2 == 0;
        const int partner = even ? rank + 1 : rank - 1;
        const int keeper = (root == (rank | 1)) ? root : (rank & ~1);
        if (even) {
            /* combine [0, half): own part is the left operand */
            COLLSIM_CHECK(MPI_Sendrecv(collsim_elem(acc, extent, half), count - half, datatype,
                                       partner, COLLSIM_TAG_REDUCE, tmp, half, datatype, partner,
                                       COLLSIM_TAG_REDUCE, comm, MPI_STATUS_IGNORE));
            COLLSIM_CHECK(collsim_reduce_local(acc, tmp, half, datatype, op, params));
            collsim_copy(acc, tmp, half, extent);
        } else {
            /* combine [half, count): the partner's part is the left operand */
            COLLSIM_CHECK(MPI_Sendrecv(acc, half, datatype, partner, COLLSIM_TAG_REDUCE, tmp,
                                       count - half, datatype, partner, COLLSIM_TAG_REDUCE, comm,
                                       MPI_STATUS_IGNORE));
            COLLSIM_CHECK(collsim_reduce_local(tmp, collsim_elem(acc, extent, half),
                                               count - half, datatype, op, params));
        }
        const int own_lo = even ? 0 : half, own_n = even ? half : count - half;
        const int other_lo = even ? half : 0, other_n = even ? count - half : half;
        if (rank == keeper) {
            COLLSIM_CHECK(MPI_Recv(collsim_elem(acc, extent, other_lo), other_n, datatype,
                                   partner, COLLSIM_TAG_REDUCE, comm, MPI_STATUS_IGNORE));
            newrank = rank / 2;
        } else {
            COLLSIM_CHECK(MPI_Send(collsim_elem(acc, extent, own_lo), own_n, datatype, partner,
                                   COLLSIM_TAG_REDUCE, comm));
            newrank = -1;
        }
    } else {
        newrank = rank - r;
    }

    if (newrank >= 0) {
        const int root_new = root < 2 * r ? root / 2 : root - r;
        int lo = 0, hi = count, levels = 0;
        for (int mask = 1; mask < pof2; mask <<= 1, levels++) {
            const int partner = real_rank(newrank ^ mask, r, root);
            range_lo[levels] = lo;
            range_hi[levels] = hi;
            COLLSIM_CHECK(collsim_halving_step(acc, tmp, &lo, &hi, (newrank & mask) == 0,
                                               partner, datatype, op, comm, COLLSIM_TAG_REDUCE,
                                               params));
        }
        for (int level = levels - 1; level >= 0; level--) {
            const int mask = 1 << level;
            const int partner = real_rank(newrank ^ mask, r, root);
            /* of each pair the rank that agrees with the root in this bit receives */
            const int sends = ((newrank ^ root_new) & mask) != 0;
            COLLSIM_CHECK(collsim_doubling_step(
                acc, &lo, &hi, range_lo[level], range_hi[level], (newrank & mask) == 0,
                sends ? COLLSIM_DOUBLING_SEND : COLLSIM_DOUBLING_RECEIVE, partner, datatype, comm,
                COLLSIM_TAG_REDUCE));
            if (sends)
                break;
        }
        if (rank == root)
            collsim_copy(recvbuf, acc, count, extent);
    }

cleanup:
    collsim_buffer_free(acc, params);
    collsim_buffer_free(tmp, params);
    return rc;
}

/*
 * allreduce_recursive_doubling.c: recursive-doubling allreduce.
 *
 * With p' = 2^floor(lg p) and r = p - p': first the 2r lowest ranks pair up
 * (2i, 2i+1) and the even rank sends its whole vector to the odd one, which
 * combines; the even ranks then sit out.  The p' remaining ranks (new number
 * i for odd rank 2i+1 < 2r, rank - r above) exchange their whole vector with
 * the partner at distance 1, 2, 4, ... p'/2 and both combine, so after lg p'
 * steps each holds the full result.  Finally each odd rank < 2r sends the
 * result back to its even partner.
 *
 *     p' = 8:   step 1: 0<->1 2<->3 4<->5 6<->7
 *               step 2: 0<->2 1<->3 4<->6 5<->7
 *               step 3: 0<->4 1<->5 2<->6 3<->7
 *
 * Operand order: every partial covers a contiguous range of ranks and the
 * lower range is always the left operand, so non-commutative ops are kept in
 * rank order.
 *
 * Restrictions: none.
 * Reference: seed 001 sec. 2.4; Thakur, Rabenseifner, Gropp, IJHPCA 2005.
 * Cost:      lg p' (alpha + n beta + n gamma)
 *            + [p != p'] (2 alpha + 2 n beta + n gamma)
 *            (seed 001 counts the non-power-of-two overhead as one message;
 *            the pre-step and post-step each take one)
 */
#include "common/blocks.h"
#include "common/internal.h"
#include "common/opening.h"
#include "common/scratch.h"

/* Real rank of the process with new number newrank. */
static int real_rank(int newrank, int r)
{
    return newrank < r ? 2 * newrank + 1 : newrank + r;
}

int collsim_allreduce_recursive_doubling(const void *sendbuf, void *recvbuf, int count,
                                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                         const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint extent;
    void *tmp = NULL;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    if (count == 0)
        return MPI_SUCCESS;

    COLLSIM_CHECK(collsim_inplace_start(sendbuf, recvbuf, count, extent, params, &tmp));

    const int pof2 = collsim_pow2_floor(size);
    const int r = size - pof2;
    int newrank;
    if (rank < 2 * r) {
        if (rank % 2 == 0) {
            COLLSIM_CHECK(MPI_Send(recvbuf, count, datatype, rank + 1, COLLSIM_TAG_ALLREDUCE,
                                   comm));
            newrank = -1;
        } else {
            COLLSIM_CHECK(MPI_Recv(tmp, count, datatype, rank - 1, COLLSIM_TAG_ALLREDUCE, comm,
                                   MPI_STATUS_IGNORE));
            /* the even partner is the lower rank: recvbuf = tmp op recvbuf */
            COLLSIM_CHECK(collsim_reduce_local(tmp, recvbuf, count, datatype, op, params));
            newrank = rank / 2;
        }
    } else {
        newrank = rank - r;
    }

    if (newrank >= 0) {
        for (int mask = 1; mask < pof2; mask <<= 1) {
            const int partner_new = newrank ^ mask;
            const int partner = real_rank(partner_new, r);
            COLLSIM_CHECK(MPI_Sendrecv(recvbuf, count, datatype, partner, COLLSIM_TAG_ALLREDUCE,
                                       tmp, count, datatype, partner, COLLSIM_TAG_ALLREDUCE,
                                       comm, MPI_STATUS_IGNORE));
            if (partner_new < newrank) {
                COLLSIM_CHECK(collsim_reduce_local(tmp, recvbuf, count, datatype, op, params));
            } else {
                COLLSIM_CHECK(collsim_reduce_local(recvbuf, tmp, count, datatype, op, params));
                collsim_copy(recvbuf, tmp, count, extent);
            }
        }
    }

    /* the odd rank of a pair took part: it hands the result to the even one */
    COLLSIM_CHECK(collsim_pow2_unfold(recvbuf, count, datatype, rank, r, 1, comm,
                                      COLLSIM_TAG_ALLREDUCE));

cleanup:
    collsim_buffer_free(tmp, params);
    return rc;
}

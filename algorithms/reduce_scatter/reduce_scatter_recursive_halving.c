/*
 * reduce_scatter_recursive_halving.c: MPICH's recursive-halving
 * reduce-scatter, any p by a fold to the largest power of two.
 *
 * With p' = 2^floor(lg p) and r = p - p': each even rank 2i < 2r sends its
 * whole vector (p blocks) to rank 2i + 1, which combines it (left operand)
 * and works for both; the even rank waits for the end.  The p' remaining
 * ranks are renumbered 0 .. p'-1 (odd rank 2i + 1 < 2r is i, rank j >= 2r is
 * j - r); new rank v stands for the blocks of its real ranks: blocks 2v and
 * 2v + 1 when v < r (2 n elements), block v + r otherwise (n elements).
 *
 * Recursive halving over the new ranks' p' groups of blocks: at distance
 * d = p'/2, p'/4, ..., 1 rank v exchanges with v xor d; the lower one keeps
 * the lower half of its current groups and sends the upper half, the
 * higher one the reverse, and each combines what it receives into the half
 * it keeps.  After lg p' steps new rank v holds its group; an odd rank
 * 2i + 1 < 2r then sends block 2i to rank 2i.
 *
 *     p = 6 (p' = 4, r = 2), blocks 0..5:  fold 0 -> 1, 2 -> 3
 *       new ranks 0 (=1) {0,1}  1 (=3) {2,3}  2 (=4) {4}  3 (=5) {5}
 *       d = 2: 1 <-> 4 split {0,1,2,3} | {4,5};  3 <-> 5 the same
 *       d = 1: 1 <-> 3 split {0,1} | {2,3};  4 <-> 5 split {4} | {5}
 *       then 1 -> 0 block 0, 3 -> 2 block 2
 *
 * The received partial is always the left operand, whichever ranks it
 * covers, as in MPICH: commutative ops only.
 *
 * Restrictions: commutative op.
 * Reference: MPICH 4.1 MPIR_Reduce_scatter_block_intra_recursive_halving;
 *            Thakur, Rabenseifner & Gropp, IJHPCA 19(1), 2005
 *            (Reduce-Scatter).  Open MPI 4.1's
 *            ompi_coll_base_reduce_scatter_block_intra_recursivehalving sends
 *            the same messages (as an Irecv and a Send).
 * Cost:      p = 2^k: lg p alpha + (p - 1) n (beta + gamma).  Otherwise the
 *            fold and the return add 2 alpha + (p + 1) n beta + p n gamma, and
 *            the halving on p' ranks, whose groups hold n or 2 n elements, costs
 *            at most lg p' alpha + 2 (p' - 1) n (beta + gamma) (the model
 *            replays it).
 */
#include "common/internal.h"
#include "common/opening.h"
#include "common/scratch.h"

/* Real rank of new rank v after the fold (the odd rank of a pair stays). */
static int real_rank(int v, int r)
{
    return v < r ? 2 * v + 1 : v + r;
}

/* First block of new rank v's group, and the blocks of groups [first, last). */
static int group_block(int v, int r)
{
    return v < r ? 2 * v : v + r;
}

static int groups_blocks(int first, int last, int r)
{
    return group_block(last, r) - group_block(first, r);
}

/* The recursive halving of the p' = pof2 new ranks over acc (p blocks of n). */
static int halving(void *acc, void *tmp, int n, int newrank, int pof2, int r,
                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Aint extent,
                   const collsim_params *params)
{
    int rc = MPI_SUCCESS;
    int send_idx = 0, recv_idx = 0, last_idx = pof2;

    for (int mask = pof2 >> 1; mask > 0; mask >>= 1) {
        const int newdst = newrank ^ mask;
        if (newrank < newdst) {
            send_idx = recv_idx + mask;
        } else {
            recv_idx = send_idx + mask;
        }
        /* the lower one keeps [recv_idx, send_idx), the higher [recv_idx, last_idx) */
        const int send_end = newrank < newdst ? last_idx : recv_idx;
        const int recv_end = newrank < newdst ? send_idx : last_idx;
        const int send_at = group_block(send_idx, r) * n, recv_at = group_block(recv_idx, r) * n;
        const int recv_cnt = groups_blocks(recv_idx, recv_end, r) * n;
        COLLSIM_CHECK(MPI_Sendrecv(collsim_elem(acc, extent, send_at),
                                   groups_blocks(send_idx, send_end, r) * n, datatype,
                                   real_rank(newdst, r), COLLSIM_TAG_REDUCE_SCATTER,
                                   collsim_elem(tmp, extent, recv_at), recv_cnt, datatype,
                                   real_rank(newdst, r), COLLSIM_TAG_REDUCE_SCATTER, comm,
                                   MPI_STATUS_IGNORE));
        /* acc = received op acc, as MPICH combines (commutative) */
        COLLSIM_CHECK(collsim_reduce_local(collsim_elem(tmp, extent, recv_at),
                                           collsim_elem(acc, extent, recv_at), recv_cnt,
                                           datatype, op, params));
        send_idx = recv_idx;
        last_idx = recv_idx + mask;
    }

cleanup:
    return rc;
}

int collsim_reduce_scatter_recursive_halving(const void *sendbuf, void *recvbuf, int recvcount,
                                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                             const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint extent;
    void *acc = NULL, *tmp = NULL;

    COLLSIM_CHECK(collsim_open_blocks(comm, datatype, recvcount, &rank, &size, &extent));
    if (recvcount == 0)
        return MPI_SUCCESS;
    const int n = recvcount, count = recvcount * size;
    const int pof2 = collsim_pow2_floor(size), r = size - pof2;
    COLLSIM_CHECK(collsim_buffer_pair(count, extent, params, &acc, &tmp));
    collsim_copy(acc, sendbuf, count, extent);

    int newrank = rank - r;
    if (rank < 2 * r) {
        if (rank % 2 == 0) {
            COLLSIM_CHECK(MPI_Send(acc, count, datatype, rank + 1, COLLSIM_TAG_REDUCE_SCATTER,
                                   comm));
            newrank = -1;
        } else {
            COLLSIM_CHECK(MPI_Recv(tmp, count, datatype, rank - 1, COLLSIM_TAG_REDUCE_SCATTER,
                                   comm, MPI_STATUS_IGNORE));
            /* the even rank's vector is the left operand: rank order */
            COLLSIM_CHECK(collsim_reduce_local(tmp, acc, count, datatype, op, params));
            newrank = rank / 2;
        }
    }
    if (newrank >= 0) {
        COLLSIM_CHECK(halving(acc, tmp, n, newrank, pof2, r, datatype, op, comm, extent, params));
        collsim_copy(recvbuf, collsim_elem(acc, extent, rank * n), n, extent);
    }
    if (rank < 2 * r) {
        if (rank % 2)
            COLLSIM_CHECK(MPI_Send(collsim_elem(acc, extent, (rank - 1) * n), n, datatype,
                                   rank - 1, COLLSIM_TAG_REDUCE_SCATTER, comm));
        else
            COLLSIM_CHECK(MPI_Recv(recvbuf, n, datatype, rank + 1, COLLSIM_TAG_REDUCE_SCATTER,
                                   comm, MPI_STATUS_IGNORE));
    }

cleanup:
    collsim_buffer_free(acc, params);
    collsim_buffer_free(tmp, params);
    return rc;
}

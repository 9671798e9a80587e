/*
 * reduce_scatter_butterfly.c: Träff's butterfly reduce-scatter for any p and
 * any op, as Open MPI's coll/base has it.
 *
 * p = 2^k: the p blocks are first permuted by the mirror (bit-reversal)
 * permutation of their index.  In round mask = 1, 2, ..., p/2 rank v
 * exchanges with v xor mask: the one with bit mask clear keeps the lower
 * half of its current range and sends the upper half, the other the
 * reverse, and each combines what it receives into the half it keeps, the
 * lower rank's partial always the left operand.  After lg p rounds rank v
 * holds position mirror(v) of the permuted vector: block v.
 *
 *     p = 4, blocks permuted 0 2 1 3:
 *       mask 1: 0 <-> 1, 2 <-> 3 split [0 2 | 1 3]   (0, 2 keep 0 2; 1, 3 keep 1 3)
 *       mask 2: 0 <-> 2 split [0 | 2], 1 <-> 3 split [1 | 3]
 *
 * Other p: with p' = 2^floor(lg p) and r = p - p', each even rank 2i < 2r
 * sends its whole vector to rank 2i + 1, which combines it as the left
 * operand; the p' remaining ranks are renumbered (odd rank 2i + 1 < 2r is i,
 * rank j >= 2r is j - r), new rank v standing for the group of blocks 2v,
 * 2v + 1 (v < r) or v + r.  The rounds above run over the p' groups, not
 * permuted, so new rank v ends with group mirror(v); it then sends each
 * block of that group to its rank: a group of two first sends block 2
 * mirror(v) to the even rank, then v exchanges with the holder of its own
 * group (mirror is an involution: that rank needs v's group).
 *
 * Every partial covers a run of consecutive ranks and the lower run is the
 * left operand, so non-commutative ops are combined in rank order.  At
 * p = 2^k the messages are those of MPICH's
 * MPIR_Reduce_scatter_block_intra_noncommutative (its power-of-two-only
 * Träff butterfly).
 *
 * Restrictions: none.
 * Reference: J. L. Träff, "An improved algorithm for (non-commutative)
 *            reduce-scatter with an application", EuroPVM/MPI 2005; Open MPI
 *            4.1 ompi_coll_base_reduce_scatter_block_intra_butterfly and
 *            _butterfly_pof2 (coll/base).
 * Cost:      p = 2^k: lg p alpha + (p - 1) n (beta + gamma).  Otherwise the
 *            fold alpha + p n (beta + gamma), the rounds on p' ranks (groups
 *            of n or 2 n: at most lg p' alpha + 2 (p' - 1) n (beta + gamma)),
 *            then up to 2 (alpha + n beta) (the model replays it).
 */
#include "common/internal.h"
#include "common/opening.h"
#include "common/scratch.h"

/* Real rank of new rank v after the fold (r = 0: no fold). */
static int real_rank(int v, int r)
{
    return v < r ? 2 * v + 1 : v + r;
}

/* First block of new rank v's group. */
static int group_block(int v, int r)
{
    return v < r ? 2 * v : v + r;
}

/* v with its low `bits` bits reversed. */
static int mirror(int v, int bits)
{
    int m = 0;
    for (int b = 0; b < bits; b++)
        m |= ((v >> b) & 1) << (bits - 1 - b);
    return m;
}

/* The butterfly rounds of the pof2 new ranks over groups of blocks of n
 * elements in *psend; returns in *first the first group held at the end
 * (the result in *psend; the two buffers swap as the lower rank combines). */
static int rounds(void **psend, void **precv, int n, int vrank, int pof2, int r,
                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Aint extent,
                  const collsim_params *params, int *first)
{
    int rc = MPI_SUCCESS;
    int nblocks = pof2, send_index = 0, recv_index = 0;

    for (int mask = 1; mask < pof2; mask <<= 1) {
        const int vpeer = vrank ^ mask;
        nblocks /= 2;
        if ((vrank & mask) == 0)
            send_index += nblocks;
        else
            recv_index += nblocks;
        const int send_at = group_block(send_index, r) * n;
        const int recv_at = group_block(recv_index, r) * n;
        const int send_count = group_block(send_index + nblocks, r) * n - send_at;
        const int recv_count = group_block(recv_index + nblocks, r) * n - recv_at;
        COLLSIM_CHECK(MPI_Sendrecv(collsim_elem(*psend, extent, send_at), send_count, datatype,
                                   real_rank(vpeer, r), COLLSIM_TAG_REDUCE_SCATTER,
                                   collsim_elem(*precv, extent, recv_at), recv_count, datatype,
                                   real_rank(vpeer, r), COLLSIM_TAG_REDUCE_SCATTER, comm,
                                   MPI_STATUS_IGNORE));
        if (vrank < vpeer) {
            /* precv = psend op precv: my lower ranks on the left */
            COLLSIM_CHECK(collsim_reduce_local(collsim_elem(*psend, extent, recv_at),
                                               collsim_elem(*precv, extent, recv_at), recv_count,
                                               datatype, op, params));
            void *swap = *psend;
            *psend = *precv;
            *precv = swap;
        } else {
            COLLSIM_CHECK(collsim_reduce_local(collsim_elem(*precv, extent, recv_at),
                                               collsim_elem(*psend, extent, recv_at), recv_count,
                                               datatype, op, params));
        }
        send_index = recv_index;
    }
    *first = send_index;

cleanup:
    return rc;
}

/* Other p: the fold, the rounds, and each group's blocks sent to their ranks. */
static int any_size(void *psend, void *precv, void *recvbuf, int n, int rank, int size,
                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, MPI_Aint extent,
                    const collsim_params *params)
{
    int rc = MPI_SUCCESS, first;
    const int count = n * size, pof2 = collsim_pow2_floor(size), r = size - pof2;
    int bits = 0;
    while ((1 << bits) < pof2)
        bits++;

    if (rank < 2 * r && rank % 2 == 0) {
        COLLSIM_CHECK(MPI_Send(psend, count, datatype, rank + 1, COLLSIM_TAG_REDUCE_SCATTER,
                               comm));
        /* my block lies in group rank / 2, held at the end by new rank mirror(rank / 2) */
        return MPI_Recv(recvbuf, n, datatype, real_rank(mirror(rank / 2, bits), r),
                        COLLSIM_TAG_REDUCE_SCATTER, comm, MPI_STATUS_IGNORE);
    }
    if (rank < 2 * r) {
        COLLSIM_CHECK(MPI_Recv(precv, count, datatype, rank - 1, COLLSIM_TAG_REDUCE_SCATTER, comm,
                               MPI_STATUS_IGNORE));
        /* the even rank's vector is the left operand */
        COLLSIM_CHECK(collsim_reduce_local(precv, psend, count, datatype, op, params));
    }
    const int vrank = rank < 2 * r ? rank / 2 : rank - r;
    COLLSIM_CHECK(rounds(&psend, &precv, n, vrank, pof2, r, datatype, op, comm, extent, params,
                         &first));
    /* I hold group first = mirror(vrank), which belongs to new rank vpeer */
    const int vpeer = mirror(vrank, bits), peer = real_rank(vpeer, r);
    int at = group_block(first, r) * n;
    if (vpeer < r) {
        COLLSIM_CHECK(MPI_Send(collsim_elem(psend, extent, at), n, datatype, peer - 1,
                               COLLSIM_TAG_REDUCE_SCATTER, comm));
        at += n;
    }
    if (vpeer != vrank)
        COLLSIM_CHECK(MPI_Sendrecv(collsim_elem(psend, extent, at), n, datatype, peer,
                                   COLLSIM_TAG_REDUCE_SCATTER, recvbuf, n, datatype, peer,
                                   COLLSIM_TAG_REDUCE_SCATTER, comm, MPI_STATUS_IGNORE));
    else
        collsim_copy(recvbuf, collsim_elem(psend, extent, at), n, extent);

cleanup:
    return rc;
}

int collsim_reduce_scatter_butterfly(const void *sendbuf, void *recvbuf, int recvcount,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                     const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, first;
    MPI_Aint extent;
    void *psend = NULL, *precv = NULL;

    COLLSIM_CHECK(collsim_open_blocks(comm, datatype, recvcount, &rank, &size, &extent));
    if (recvcount == 0)
        return MPI_SUCCESS;
    const int n = recvcount, count = recvcount * size;
    /* the rounds swap the two buffers; both are freed whichever holds what */
    COLLSIM_CHECK(collsim_buffer_pair(count, extent, params, &psend, &precv));

    if (size & (size - 1)) {
        collsim_copy(psend, sendbuf, count, extent);
        rc = any_size(psend, precv, recvbuf, n, rank, size, datatype, op, comm, extent, params);
    } else {
        int bits = 0;
        while ((1 << bits) < size)
            bits++;
        for (int i = 0; i < size; i++)
            collsim_copy(collsim_elem(psend, extent, mirror(i, bits) * n),
                         collsim_elem((void *)sendbuf, extent, i * n), n, extent);
        COLLSIM_CHECK(rounds(&psend, &precv, n, rank, size, 0, datatype, op, comm, extent, params,
                             &first));
        collsim_copy(recvbuf, collsim_elem(psend, extent, first * n), n, extent);
    }

cleanup:
    collsim_buffer_free(psend, params);
    collsim_buffer_free(precv, params);
    return rc;
}

/*
 * blocks.c: recursive vector halving and doubling, the unfolding of a
 * power-of-two fold, the layout and reduce-scatter of the binary blocks
 * algorithms (see blocks.h for the scheme), and the ring and pairwise
 * reduce-scatters of p blocks.
 */
#include "blocks.h"
#include "internal.h"

int collsim_halving_step(void *acc, void *tmp, int *lo, int *hi, int keep_lower, int partner,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int tag,
                         const collsim_params *params)
{
    int rc = MPI_SUCCESS;
    MPI_Aint lb, extent;
    const int l = *lo, h = *hi, mid = l + (h - l) / 2;

    COLLSIM_CHECK(MPI_Type_get_extent(datatype, &lb, &extent));
    if (keep_lower) {
        /* keep [l, mid): my partial covers the lower ranks, left operand */
        COLLSIM_CHECK(MPI_Sendrecv(collsim_elem(acc, extent, mid), h - mid, datatype, partner,
                                   tag, tmp, mid - l, datatype, partner, tag, comm,
                                   MPI_STATUS_IGNORE));
        COLLSIM_CHECK(collsim_reduce_local(collsim_elem(acc, extent, l), tmp, mid - l, datatype,
                                           op, params));
        collsim_copy(collsim_elem(acc, extent, l), tmp, mid - l, extent);
        *hi = mid;
    } else {
        /* keep [mid, h): the partner's partial is the left operand */
        COLLSIM_CHECK(MPI_Sendrecv(collsim_elem(acc, extent, l), mid - l, datatype, partner, tag,
                                   tmp, h - mid, datatype, partner, tag, comm,
                                   MPI_STATUS_IGNORE));
        COLLSIM_CHECK(collsim_reduce_local(tmp, collsim_elem(acc, extent, mid), h - mid,
                                           datatype, op, params));
        *lo = mid;
    }

cleanup:
    return rc;
}

/* Used by the allgather of allreduce rabenseifner and binary_blocks
 * (exchange) and by the gather of reduce rabenseifner and binary_blocks. */
int collsim_doubling_step(void *acc, int *lo, int *hi, int outer_lo, int outer_hi, int kept_lower,
                          collsim_doubling_role role, int partner, MPI_Datatype datatype,
                          MPI_Comm comm, int tag)
{
    int rc = MPI_SUCCESS;
    MPI_Aint lb, extent;
    /* the partner holds the other half of [outer_lo, outer_hi) */
    const int other_lo = kept_lower ? *hi : outer_lo;
    const int other_hi = kept_lower ? outer_hi : *lo;

    COLLSIM_CHECK(MPI_Type_get_extent(datatype, &lb, &extent));
    if (role == COLLSIM_DOUBLING_SEND)
        return MPI_Send(collsim_elem(acc, extent, *lo), *hi - *lo, datatype, partner, tag, comm);
    if (role == COLLSIM_DOUBLING_EXCHANGE)
        COLLSIM_CHECK(MPI_Sendrecv(collsim_elem(acc, extent, *lo), *hi - *lo, datatype, partner,
                                   tag, collsim_elem(acc, extent, other_lo), other_hi - other_lo,
                                   datatype, partner, tag, comm, MPI_STATUS_IGNORE));
    else
        COLLSIM_CHECK(MPI_Recv(collsim_elem(acc, extent, other_lo), other_hi - other_lo,
                               datatype, partner, tag, comm, MPI_STATUS_IGNORE));
    *lo = outer_lo;
    *hi = outer_hi;

cleanup:
    return rc;
}

/* Used by allreduce recursive_doubling (the odd rank of a pair takes part)
 * and rabenseifner (the even one). */
int collsim_pow2_unfold(void *buf, int count, MPI_Datatype datatype, int rank, int r,
                        int kept_parity, MPI_Comm comm, int tag)
{
    if (rank >= 2 * r)
        return MPI_SUCCESS;
    if (rank % 2 == kept_parity)
        return MPI_Send(buf, count, datatype, rank ^ 1, tag, comm);
    return MPI_Recv(buf, count, datatype, rank ^ 1, tag, comm, MPI_STATUS_IGNORE);
}

void collsim_blocks_layout(int size, int rank, collsim_blocks *blocks)
{
    int first = 0;

    blocks->nblocks = 0;
    blocks->block = -1;
    blocks->local = -1;
    for (int k = COLLSIM_BLOCKS_MAX - 2; k >= 0; k--) {
        if ((size >> k) & 1) {
            const int b = blocks->nblocks++;
            blocks->first[b] = first;
            blocks->lg[b] = k;
            if (rank >= first && rank < first + (1 << k)) {
                blocks->block = b;
                blocks->local = rank - first;
            }
            first += 1 << k;
        }
    }
}

void collsim_blocks_range(int count, int j, int s, int *lo, int *hi)
{
    int l = 0, h = count;

    for (int step = 0; step < s; step++) {
        const int mid = l + (h - l) / 2;
        if (j & (1 << step))
            l = mid;
        else
            h = mid;
    }
    *lo = l;
    *hi = h;
}

int collsim_blocks_joiner(const collsim_blocks *blocks, int b, int i)
{
    const int k = blocks->lg[b], m = blocks->lg[b + 1];
    return blocks->first[b] + i + (((1 << (k - m)) - 1) << m);
}

int collsim_blocks_reduce_scatter(void *acc, void *tmp, int count, MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm, int tag,
                                  const collsim_blocks *blocks, const collsim_params *params,
                                  int *lo_out, int *hi_out)
{
    int rc = MPI_SUCCESS;
    MPI_Aint lb, extent;
    const int b = blocks->block, j = blocks->local, k = blocks->lg[b];
    const int first = blocks->first[b];
    /* the next smaller block joins at this step (-1: no next block) */
    const int join_step = b + 1 < blocks->nblocks ? blocks->lg[b + 1] : -1;
    int lo = 0, hi = count;

    COLLSIM_CHECK(MPI_Type_get_extent(datatype, &lb, &extent));
    for (int s = 0; s < k; s++) {
        if (s == join_step && first + j == collsim_blocks_joiner(blocks, b, j & ((1 << s) - 1))) {
            /* the later blocks' sum of my range is the right operand */
            const int from = blocks->first[b + 1] + (j & ((1 << s) - 1));
            COLLSIM_CHECK(MPI_Recv(tmp, hi - lo, datatype, from, tag, comm, MPI_STATUS_IGNORE));
            COLLSIM_CHECK(collsim_reduce_local(collsim_elem(acc, extent, lo), tmp, hi - lo,
                                               datatype, op, params));
            collsim_copy(collsim_elem(acc, extent, lo), tmp, hi - lo, extent);
        }
        COLLSIM_CHECK(collsim_halving_step(acc, tmp, &lo, &hi, (j & (1 << s)) == 0,
                                           first + (j ^ (1 << s)), datatype, op, comm, tag,
                                           params));
    }
    if (b > 0) {
        /* hand my range to the joining rank of the next larger block */
        COLLSIM_CHECK(MPI_Send(collsim_elem(acc, extent, lo), hi - lo, datatype,
                               collsim_blocks_joiner(blocks, b - 1, j), tag, comm));
    }
    *lo_out = lo;
    *hi_out = hi;

cleanup:
    return rc;
}

/* Used by allreduce_ring.c (its first phase) and reduce_scatter_ring.c. */
int collsim_ring_reduce_scatter(void *buf, void *tmp, int count, int final_block,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int tag,
                                const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint lb, extent;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    COLLSIM_CHECK(MPI_Type_get_extent(datatype, &lb, &extent));
    const int right = (rank + 1) % size;
    const int left = (rank - 1 + size) % size;

    for (int step = 0; step < size - 1; step++) {
        const int send_block = (final_block + 2 * size - 1 - step) % size;
        const int recv_block = (final_block + 2 * size - 2 - step) % size;
        const int recv_count = collsim_block_count(count, size, recv_block);
        void *recv_dst = collsim_elem(buf, extent, collsim_block_offset(count, size, recv_block));
        COLLSIM_CHECK(MPI_Sendrecv(
            collsim_elem(buf, extent, collsim_block_offset(count, size, send_block)),
            collsim_block_count(count, size, send_block), datatype, right, tag, tmp, recv_count,
            datatype, left, tag, comm, MPI_STATUS_IGNORE));
        COLLSIM_CHECK(collsim_reduce_local(tmp, recv_dst, recv_count, datatype, op, params));
    }

cleanup:
    return rc;
}

/* Used by reduce_ring.c (its first phase) and reduce_scatter_pairwise.c. */
int collsim_pairwise_reduce_scatter(const void *sendbuf, void *acc, void *tmp, int count,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int tag,
                                    const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint lb, extent;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    COLLSIM_CHECK(MPI_Type_get_extent(datatype, &lb, &extent));
    const int mine = collsim_block_count(count, size, rank);

    for (int step = 1; step < size; step++) {
        const int dst = (rank + step) % size;
        const int src = (rank - step + size) % size;
        COLLSIM_CHECK(MPI_Sendrecv(
            collsim_elem((void *)sendbuf, extent, collsim_block_offset(count, size, dst)),
            collsim_block_count(count, size, dst), datatype, dst, tag, tmp, mine, datatype, src,
            tag, comm, MPI_STATUS_IGNORE));
        /* acc = tmp op acc (commutative: the order is free) */
        COLLSIM_CHECK(collsim_reduce_local(tmp, acc, mine, datatype, op, params));
    }

cleanup:
    return rc;
}

/*
 * blocks.h: recursive vector halving and doubling (one step each, shared by
 * the rabenseifner and binary_blocks algorithms), the unfolding after a fold
 * to a power of two (recursive_doubling, rabenseifner), and the binary
 * blocks of seed 001 sec. 2.6, shared by reduce_binary_blocks.c and
 * allreduce_binary_blocks.c.
 *
 * p is cut into blocks by its binary representation, largest first:
 * p = 2^k0 + 2^k1 + ... with k0 > k1 > ..., block 0 holding ranks
 * 0 .. 2^k0 - 1, block 1 the next 2^k1 ranks, and so on (p = 13: 8 + 4 + 1).
 *
 * Inside a block of 2^k ranks the vector is cut by recursive halving: at
 * step s (s = 0 .. k-1) a rank exchanges half of its range with local rank
 * xor 2^s, the rank with bit s clear keeping the lower half (the halving of
 * allreduce_rabenseifner.c).  Before step s the local rank j holds a range
 * that depends on s and on the low s bits of j only, so the cut of a block of
 * 2^m ranks is the cut of a larger block after m steps: the blocks nest.
 *
 * Joining the blocks (reduce-scatter): when block b (2^k ranks) is about to
 * take step m = k_{b+1}, the next smaller block b+1 has finished its own m
 * steps, and its local rank i holds the sum over block b+1 (and, by
 * induction, over every later block) of the range local rank
 * j = i + (2^(k-m) - 1) 2^m holds in block b.  That rank j, the one with all
 * bits from m upward set, holds the highest ranks of block b, so it receives
 * i's range, combines it as the right operand and goes on: every range stays
 * a contiguous run of ranks combined left to right, and non-commutative ops
 * keep rank order.  The cost is one message and one combination of n / 2^m,
 * largest when m is small: the ratio of successive block sizes sets the
 * imbalance, as the seed says.
 *
 * The allgather of allreduce mirrors it: block b, doubling its ranges, hands
 * the finished range to block b+1 from the same rank j right after the step
 * that restores the cut of 2^m ranks; block b+1 then doubles on its own.
 *
 * The two reduce-scatters of a vector cut into p blocks (collsim_block_count)
 * that take p - 1 steps: the ring (allreduce_ring.c, reduce_scatter_ring.c)
 * and the pairwise exchange (reduce_ring.c, reduce_scatter_pairwise.c).
 * Users: allreduce_binary_blocks.c, allreduce_rabenseifner.c,
 * allreduce_recursive_doubling.c, allreduce_ring.c, reduce_binary_blocks.c,
 * reduce_rabenseifner.c, reduce_ring.c, reduce_scatter_ring.c,
 * reduce_scatter_pairwise.c, common/blocks.c.
 */
#ifndef COLLSIM_BLOCKS_H
#define COLLSIM_BLOCKS_H

#include "../collsim.h"

#ifdef __cplusplus
extern "C" {
#endif

#define COLLSIM_BLOCKS_MAX 32

/* One step of recursive vector halving: this rank and partner split
 * acc[*lo, *hi) at mid = lo + (hi - lo) / 2; this rank keeps the lower half
 * when keep_lower, sends the other half, receives the partner's copy of the
 * half it keeps into tmp and combines the two, so that [*lo, *hi) becomes the
 * kept half.  The rank keeping the lower half holds the lower ranks' partial,
 * which is always the left operand: rank order is kept.  Returns an MPI
 * error code. */
int collsim_halving_step(void *acc, void *tmp, int *lo, int *hi, int keep_lower, int partner,
                         MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int tag,
                         const collsim_params *params);

/* What a rank does in one step of recursive vector doubling. */
typedef enum collsim_doubling_role {
    COLLSIM_DOUBLING_EXCHANGE, /* allgather: send its half, receive the other */
    COLLSIM_DOUBLING_RECEIVE,  /* gather: receive the other half */
    COLLSIM_DOUBLING_SEND      /* gather: send its half, and be done */
} collsim_doubling_role;

/* One step of recursive vector doubling, the reverse of a halving step:
 * this rank holds acc[*lo, *hi), the half of [outer_lo, outer_hi) it kept
 * (the lower one when kept_lower), and exchanges halves with partner, or
 * only receives or only sends, as role says.  Where it receives, [*lo, *hi)
 * becomes [outer_lo, outer_hi).  Returns an MPI error code. */
int collsim_doubling_step(void *acc, int *lo, int *hi, int outer_lo, int outer_hi, int kept_lower,
                          collsim_doubling_role role, int partner, MPI_Datatype datatype,
                          MPI_Comm comm, int tag);

/* The last step of the allreduces that fold p ranks onto the largest power
 * of two 2^k <= p, r = p - 2^k: of each of the pairs (2i, 2i + 1), i < r, the
 * rank that took part in the power-of-two phase (the one whose rank % 2 is
 * kept_parity) sends the count elements of buf to the other, which receives
 * them into buf.  Other ranks do nothing.  Returns an MPI error code. */
int collsim_pow2_unfold(void *buf, int count, MPI_Datatype datatype, int rank, int r,
                        int kept_parity, MPI_Comm comm, int tag);

typedef struct collsim_blocks {
    int nblocks;
    int first[COLLSIM_BLOCKS_MAX]; /* first rank of block b */
    int lg[COLLSIM_BLOCKS_MAX];    /* block b holds 2^lg[b] ranks */
    int block;                     /* this rank's block */
    int local;                     /* this rank's number inside its block */
} collsim_blocks;

/* The blocks of size ranks, seen from rank. */
void collsim_blocks_layout(int size, int rank, collsim_blocks *blocks);

/* Range [*lo, *hi) of count elements held by local rank j before halving
 * step s (after s halvings). */
void collsim_blocks_range(int count, int j, int s, int *lo, int *hi);

/* The rank of block b (2^k ranks) that joins with block b + 1 (2^m ranks)
 * for block b+1's local rank i: local i + (2^(k-m) - 1) 2^m. */
int collsim_blocks_joiner(const collsim_blocks *blocks, int b, int i);

/* Reduce-scatter over the blocks: acc holds this rank's whole vector on
 * entry; on return acc[*lo, *hi) holds, for this rank's final range, the sum
 * over its block and every later block, and for block 0 the sum over all
 * ranks.  Every rank except those of block 0 has sent its range to block
 * b - 1.  tmp holds count elements.  Returns an MPI error code. */
int collsim_blocks_reduce_scatter(void *acc, void *tmp, int count, MPI_Datatype datatype,
                                  MPI_Op op, MPI_Comm comm, int tag,
                                  const collsim_blocks *blocks, const collsim_params *params,
                                  int *lo, int *hi);

/* The ring reduce-scatter: buf holds this rank's count elements, cut into
 * size blocks (collsim_block_count).  In step k = 0 .. size-2 this rank sends
 * block (final_block + size - 1 - k) mod size of buf to rank + 1 and receives
 * block (final_block + size - 2 - k) mod size from rank - 1 into tmp (the
 * largest block), which it combines into buf as the left operand.  On return
 * buf's block final_block holds the reduction over all ranks, combined in
 * ring order starting after this rank (commutative ops only).  Every rank
 * passes final_block = (rank + f) mod size for the same f: allreduce_ring
 * f = 1, reduce_scatter_ring f = 0.  Returns an MPI error code. */
int collsim_ring_reduce_scatter(void *buf, void *tmp, int count, int final_block,
                                MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int tag,
                                const collsim_params *params);

/* The pairwise-exchange reduce-scatter: sendbuf holds this rank's count
 * elements, cut into size blocks (collsim_block_count).  In step s = 1 ..
 * size-1 this rank sends its block rank + s to rank + s and receives from
 * rank - s that rank's block `rank` into tmp, combined into acc as the left
 * operand (indices mod size).  acc holds this rank's block of sendbuf on
 * entry and its reduction over all ranks, in the order rank, rank - 1, ...
 * (commutative ops only), on return.  Returns an MPI error code. */
int collsim_pairwise_reduce_scatter(const void *sendbuf, void *acc, void *tmp, int count,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm, int tag,
                                    const collsim_params *params);

#ifdef __cplusplus
}
#endif

#endif /* COLLSIM_BLOCKS_H */

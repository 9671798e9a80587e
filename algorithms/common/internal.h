/*
 * internal.h: what every algorithm file uses (tags, the error check, block
 * arithmetic, element addressing); not part of the public API.  The helpers
 * of one family of algorithms have their own header, which a file includes
 * when it needs it: opening.h (rank, size, extent), scratch.h (scratch
 * buffers), scatter.h (the scatter + allgather broadcasts), hier.h
 * (two-level algorithms, sub-communicators, sub-algorithms' parameters),
 * nodes.h (a rank's node), tree.h, segment.h, pipeline.h, generic_tree.h,
 * blocks.h, prerounding.h, fixed_order.h, native.h.
 * Users: every algorithm file (algorithms/<collective>/...) and the common
 * files that send messages.
 */
#ifndef COLLSIM_INTERNAL_H
#define COLLSIM_INTERNAL_H

#include "../collsim.h"

#include <stdlib.h>
#include <string.h>

/* Tags: one per collective.  collbench runs every algorithm on a communicator
 * of its own, but the interposition library (sim/interpose) runs it on the
 * application's, and a composite algorithm runs its parts on its own
 * communicator one after the other: the phases of a call are kept apart by
 * MPI's non-overtaking order between two ranks, and these tags, far from
 * the small ones applications use, keep the algorithm's messages apart from
 * the application's. */
#define COLLSIM_TAG_ALLREDUCE 7101
#define COLLSIM_TAG_REDUCE 7102
#define COLLSIM_TAG_BCAST 7103
#define COLLSIM_TAG_ALLGATHER 7104
#define COLLSIM_TAG_REDUCE_SCATTER 7105
#define COLLSIM_TAG_ALLTOALL 7106
#define COLLSIM_TAG_GATHER 7107
#define COLLSIM_TAG_SCATTER 7108
#define COLLSIM_TAG_BARRIER 7109
#define COLLSIM_TAG_SCAN 7110
#define COLLSIM_TAG_EXSCAN 7111

/* Jumps to the function's cleanup label with rc set when an MPI call fails. */
#define COLLSIM_CHECK(call)            \
    do {                               \
        int collsim_err_ = (call);     \
        if (collsim_err_ != MPI_SUCCESS) { \
            rc = collsim_err_;         \
            goto cleanup;              \
        }                              \
    } while (0)

/* Elements in block i when count elements are cut into nblocks blocks: the
 * first count % nblocks blocks hold one element more than the others. */
static inline int collsim_block_count(int count, int nblocks, int i)
{
    return count / nblocks + (i < count % nblocks ? 1 : 0);
}

/* Index of the first element of block i (same partition). */
static inline int collsim_block_offset(int count, int nblocks, int i)
{
    int rem = count % nblocks;
    return i * (count / nblocks) + (i < rem ? i : rem);
}

/* Largest power of two that is <= n (n >= 1). */
static inline int collsim_pow2_floor(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

/* Address of element index in buf for a datatype of the given extent. */
static inline void *collsim_elem(void *buf, MPI_Aint extent, int index)
{
    return (char *)buf + (MPI_Aint)index * extent;
}

/* Copies count elements (contiguous, builtin datatype). */
static inline void collsim_copy(void *dst, const void *src, int count, MPI_Aint extent)
{
    if (count > 0 && dst != src)
        memcpy(dst, src, (size_t)count * (size_t)extent);
}

#endif /* COLLSIM_INTERNAL_H */

/*
 * segment.h: how a pipelined algorithm cuts a vector of count elements into
 * blocks (segments), as pure functions without MPI.  The Python models build
 * the same plans (collsim.analysis.segments).
 *
 * Three ways, in this order of precedence:
 *   - block_count K > 0: K blocks (at most count), as even as whole elements
 *     allow: the first count % K blocks hold one element more;
 *   - segment_bytes S > 0, a whole number of elements (collsim_check_segment
 *     refuses any other before an algorithm runs, nothing is rounded): blocks
 *     of min(S / element size, count) elements, the last one holding the rest;
 *   - neither: the model-optimal block count of the pipelining lemma (seed 003
 *     sec. 1.2), evenly cut.  An algorithm whose time with K blocks is
 *         T(K) = (fill + steady (K - 1)) (alpha + beta n / K)
 *     (fill: message steps until the first block is done, steady: steps per
 *     further block, n the vector's bytes) is fastest at
 *         K* = sqrt((fill - steady) n beta / (steady alpha)),
 *     or rather the better of the two integers around it, kept in [1, count].
 *     The ratio alpha / beta comes from params->alpha_over_beta_bytes (the
 *     collsim runner passes the platform's); when that is 0 the plan assumes
 *     COLLSIM_NOMINAL_ALPHA_OVER_BETA_BYTES (the default crossbar's: 2 us
 *     route latency at 12.5 GB/s).
 * Users: allreduce_dual_root_pipelined.c, common/pipeline.c,
 * common/pipeline.h, common/segment.c.
 */
#ifndef COLLSIM_SEGMENT_H
#define COLLSIM_SEGMENT_H

#include "../collsim.h"

#ifdef __cplusplus
extern "C" {
#endif

#define COLLSIM_NOMINAL_ALPHA_OVER_BETA_BYTES 25000.0

typedef struct collsim_segment_plan {
    int count;       /* elements in the vector */
    int nblocks;     /* 0 when count is 0 */
    int block_elems; /* > 0: fixed-size blocks, the last one shorter; 0: even cut */
} collsim_segment_plan;

/* The model-optimal block count for count elements of elem_bytes each, for an
 * algorithm with the given fill and steady step counts (see above), on a
 * network with alpha / beta = alpha_over_beta_bytes (<= 0: the nominal ratio). */
int collsim_segment_optimal_blocks(int count, int elem_bytes, double fill_steps,
                                   double steady_steps, double alpha_over_beta_bytes);

/* The plan for params (block_count, segment_bytes, else the optimal count). */
collsim_segment_plan collsim_segment_plan_make(int count, int elem_bytes,
                                               const collsim_params *params,
                                               double fill_steps, double steady_steps);

/* Elements in block i, and the index of its first element. */
int collsim_segment_elems(const collsim_segment_plan *plan, int i);
int collsim_segment_offset(const collsim_segment_plan *plan, int i);

/* Elements in the largest block. */
int collsim_segment_max_elems(const collsim_segment_plan *plan);

#ifdef __cplusplus
}
#endif

#endif /* COLLSIM_SEGMENT_H */

/*
 * segment.c: block plans of the pipelined algorithms (see segment.h).
 */
#include "segment.h"

#include <math.h>

int collsim_segment_optimal_blocks(int count, int elem_bytes, double fill_steps,
                                   double steady_steps, double alpha_over_beta_bytes)
{
    if (count <= 0)
        return 0;
    const double n_bytes = (double)count * (double)elem_bytes;
    const double ratio =
        alpha_over_beta_bytes > 0.0 ? alpha_over_beta_bytes : COLLSIM_NOMINAL_ALPHA_OVER_BETA_BYTES;
    double blocks = 1.0;
    if (fill_steps > steady_steps && steady_steps > 0.0) {
        /* the real optimum, then the better of the integers around it */
        const double best = sqrt((fill_steps - steady_steps) * n_bytes / (steady_steps * ratio));
        const double below = floor(best) < 1.0 ? 1.0 : floor(best), above = below + 1.0;
        const double t_below = (fill_steps + steady_steps * (below - 1.0)) * (ratio + n_bytes / below);
        const double t_above = (fill_steps + steady_steps * (above - 1.0)) * (ratio + n_bytes / above);
        blocks = t_above < t_below ? above : below;
    }
    if (blocks > (double)count)
        blocks = (double)count;
    return (int)blocks;
}

collsim_segment_plan collsim_segment_plan_make(int count, int elem_bytes,
                                               const collsim_params *params,
                                               double fill_steps, double steady_steps)
{
    collsim_segment_plan plan = {count, 0, 0};
    if (count <= 0)
        return plan;
    if (params != NULL && params->block_count > 0) {
        plan.nblocks = params->block_count < count ? params->block_count : count;
    } else if (params != NULL && params->segment_bytes > 0) {
        /* a whole number of elements: collsim_check_segment refuses any other
         * size before an algorithm runs; a segment longer than the vector is
         * the vector in one block */
        size_t elems = params->segment_bytes / (size_t)elem_bytes;
        if (elems > (size_t)count)
            elems = (size_t)count;
        plan.block_elems = (int)elems;
        plan.nblocks = (int)(((size_t)count + elems - 1) / elems);
    } else {
        plan.nblocks = collsim_segment_optimal_blocks(count, elem_bytes, fill_steps, steady_steps,
                                                      params != NULL ? params->alpha_over_beta_bytes
                                                                     : 0.0);
    }
    return plan;
}

int collsim_segment_elems(const collsim_segment_plan *plan, int i)
{
    if (i < 0 || i >= plan->nblocks)
        return 0;
    if (plan->block_elems > 0) {
        const int rest = plan->count - i * plan->block_elems;
        return rest < plan->block_elems ? rest : plan->block_elems;
    }
    return plan->count / plan->nblocks + (i < plan->count % plan->nblocks ? 1 : 0);
}

int collsim_segment_offset(const collsim_segment_plan *plan, int i)
{
    if (plan->block_elems > 0)
        return i * plan->block_elems;
    const int rem = plan->count % plan->nblocks;
    return i * (plan->count / plan->nblocks) + (i < rem ? i : rem);
}

int collsim_segment_max_elems(const collsim_segment_plan *plan)
{
    return collsim_segment_elems(plan, 0);
}

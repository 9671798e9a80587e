/*
 * bcast_pipeline.c: segmented (pipelined) chain broadcast.
 *
 * The chain of bcast_chain.c with the vector cut into B blocks: a rank
 * receives block s from v - 1 while sending block s - 1 to v + 1.
 *
 *     step:     1      2      3      4   ...      (p = 4)
 *     0 -> 1:   b0     b1     b2     b3
 *     1 -> 2:          b0     b1     b2
 *     2 -> 3:                 b0     b1
 *
 * B: --blocks, or --segment-bytes, else sqrt((p - 2) n / (alpha/beta)).
 *
 * Restrictions: none.
 * Reference: seed 002 (Open MPI "pipeline"); seed 004 (4) without gamma.
 * Cost:      (p - 1 + B - 1) (alpha + n/B beta)  (equal blocks)
 */
#include "common/pipeline.h"
#include "common/tree.h"

int collsim_bcast_pipeline(void *buffer, int count, MPI_Datatype datatype, int root,
                           MPI_Comm comm, const collsim_params *params)
{
    return collsim_bcast_along_tree(buffer, count, datatype, root, comm, params,
                                    COLLSIM_TREE_CHAIN, 1);
}

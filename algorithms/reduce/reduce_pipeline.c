/*
 * reduce_pipeline.c: segmented (pipelined) chain reduce.
 *
 * The chain of reduce_chain.c, with the vector cut into B blocks: while a rank
 * sends block s - 1 to v - 1 it receives block s from v + 1, so after the
 * first block has crossed the p - 1 links a block reaches the root every step.
 *
 *     step:     1      2      3      4   ...      (p = 4, B blocks)
 *     3 -> 2:   b0     b1     b2     b3
 *     2 -> 1:          b0     b1     b2
 *     1 -> 0:                 b0     b1
 *
 * B: --blocks, or --segment-bytes, else sqrt((p - 2) n / (alpha/beta)) (the
 * pipelining lemma, common/segment.h).
 *
 * Restrictions: commutative ops.
 * Reference: seed 004 formula (4); seed 002 (Open MPI "pipeline").
 * Cost:      (p - 1 + B - 1) (alpha + n/B beta + n/B gamma)  (equal blocks)
 */
#include "common/pipeline.h"
#include "common/tree.h"

int collsim_reduce_pipeline(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, int root, MPI_Comm comm, const collsim_params *params)
{
    return collsim_reduce_along_tree(sendbuf, recvbuf, count, datatype, op, root, comm, params,
                                     COLLSIM_TREE_CHAIN, 1);
}

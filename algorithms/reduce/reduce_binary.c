/*
 * reduce_binary.c: segmented binary-tree reduce.
 *
 * Heap-ordered binary tree on v = (rank - root) mod p (common/tree.c), the
 * vector cut into B blocks.  Per block a rank receives from its first child
 * while sending the previous block to its parent, then from its second child:
 * two steps per block.
 *
 *            0                 p = 7, v shown
 *          /   \
 *         1     2
 *        / \   / \
 *       3   4 5   6
 *
 * B: --blocks, or --segment-bytes, else sqrt((h - 1) n / (alpha/beta)) with
 * h = floor(lg p) (the pipelining lemma, common/segment.h).
 *
 * Restrictions: commutative ops.
 * Reference: seed 004 formula (5); Open MPI ompi_coll_base_reduce_intra_binary.
 * Cost:      about 2 (h + B - 1) (alpha + n/B beta + n/B gamma)
 */
#include "common/pipeline.h"
#include "common/tree.h"

int collsim_reduce_binary(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, int root, MPI_Comm comm, const collsim_params *params)
{
    return collsim_reduce_along_tree(sendbuf, recvbuf, count, datatype, op, root, comm, params,
                                     COLLSIM_TREE_BINARY, 1);
}

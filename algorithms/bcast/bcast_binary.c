/*
 * bcast_binary.c: segmented binary-tree broadcast.
 *
 * Heap-ordered binary tree on v = (rank - root) mod p, the vector cut into B
 * blocks: a rank receives block s from its parent while sending block s - 1 to
 * its first child, then sends block s - 1 to its second child.
 *
 *            0                 p = 7, v shown
 *          /   \
 *         1     2
 *        / \   / \
 *       3   4 5   6
 *
 * B: --blocks, or --segment-bytes, else sqrt((h - 1) n / (alpha/beta)) with
 * h = floor(lg p).
 *
 * Restrictions: none.
 * Reference: seed 002 (Open MPI "binary tree").
 * Cost:      about 2 (h + B - 1) (alpha + n/B beta)
 */
#include "common/pipeline.h"
#include "common/tree.h"

int collsim_bcast_binary(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                         const collsim_params *params)
{
    return collsim_bcast_along_tree(buffer, count, datatype, root, comm, params,
                                    COLLSIM_TREE_BINARY, 1);
}

/*
 * reduce_in_order_binary.c: segmented in-order binary-tree reduce, for any op.
 *
 * The in-order binary tree over the ranks (common/tree.c): every subtree is a
 * contiguous range of ranks with the left subtree below and the right subtree
 * above its node, so a node computes left op own op right and the tree's root
 * (rank p / 2) ends with the reduction in rank order, as MPI requires of a
 * non-commutative op.  Blocks are pipelined as in reduce_binary.c.  When the
 * root is not p / 2, that rank sends the result to the root in one message.
 *
 *            3                 p = 7
 *          /   \
 *         1     5
 *        / \   / \
 *       0   2 4   6
 *
 * Restrictions: none.
 * Reference: seed 004 ("in-order binary", Open MPI's choice for
 *            non-commutative ops); Open MPI ompi_coll_base_reduce_intra_in_order_binary.
 * Cost:      about 2 (h + B - 1) (alpha + n/B beta + n/B gamma)
 *            + [root != p/2] (alpha + n beta)
 */
#include "common/pipeline.h"
#include "common/tree.h"

int collsim_reduce_in_order_binary(const void *sendbuf, void *recvbuf, int count,
                                   MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                   const collsim_params *params)
{
    return collsim_reduce_along_tree(sendbuf, recvbuf, count, datatype, op, root, comm, params,
                                     COLLSIM_TREE_IN_ORDER_BINARY, 1);
}

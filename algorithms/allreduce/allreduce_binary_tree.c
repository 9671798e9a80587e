/*
 * allreduce_binary_tree.c: binary-tree reduce followed by binary-tree bcast.
 *
 * The whole vector is reduced up the in-order binary tree to its root p / 2
 * (which keeps rank order, so any op is allowed) and broadcast back down the
 * same tree (common/pipeline.c with one block).
 *
 *            3                 p = 7: up the tree, then down it
 *          /   \
 *         1     5
 *        / \   / \
 *       0   2 4   6
 *
 * Restrictions: none.
 * Reference: seed 001 sec. 2.2 ("binary tree" reduce + bcast).
 * Cost:      about 2 h (alpha + n beta + n gamma) + 2 h (alpha + n beta),
 *            h = floor(lg p) (a node receives its two children in turn)
 */
#include "common/pipeline.h"

int collsim_allreduce_binary_tree(const void *sendbuf, void *recvbuf, int count,
                                  MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                  const collsim_params *params)
{
    return collsim_allreduce_along_in_order_tree(sendbuf, recvbuf, count, datatype, op, comm,
                                                 params, 0);
}

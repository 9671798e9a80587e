/*
 * allreduce_pipelined_tree.c: pipelined binary-tree reduce followed by a
 * pipelined binary-tree bcast with the same blocks (seed 003's
 * "UserAllreduce1").
 *
 * The in-order binary tree of allreduce_binary_tree.c (any op), the vector cut
 * into B blocks.  Up the tree a node receives block s from its first child
 * while sending block s - 1 to its parent, then block s from its second child;
 * down the tree it receives block s from its parent while sending block s - 1
 * to its first child, then sends it to its second child: two steps per block
 * each way, four in all (links are used in one direction per step).
 *
 * B: --blocks, or --segment-bytes, else the pipelining lemma with fill 4h and
 * 4 steps per block: sqrt((h - 1) n / (alpha/beta)), h = floor(lg p).
 *
 * Restrictions: none.
 * Reference: seed 003 sec. 1.2 and 2 (reduce + bcast with binary trees).
 * Cost:      about (4 h + 4 (B - 1)) (alpha + n/B beta) + 2 (h + B - 1) n/B gamma;
 *            with the best B: 4 n beta + O(sqrt(h n alpha beta)) + O(h alpha)
 */
#include "common/pipeline.h"

int collsim_allreduce_pipelined_tree(const void *sendbuf, void *recvbuf, int count,
                                     MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                     const collsim_params *params)
{
    return collsim_allreduce_along_in_order_tree(sendbuf, recvbuf, count, datatype, op, comm,
                                                 params, 1);
}

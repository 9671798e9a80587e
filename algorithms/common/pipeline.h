/*
 * pipeline.h: the one engine of the pipelined tree algorithms (reduce and
 * bcast along any tree of tree.h, block by block along a segment plan).  The
 * reduce and bcast wrappers (pipeline, binary, in_order_binary) and the
 * tree allreduces only choose a tree and a plan.
 * Users: allreduce_binary_tree.c, allreduce_pipelined_tree.c, bcast_binary.c,
 * bcast_pipeline.c, reduce_binary.c, reduce_in_order_binary.c,
 * reduce_pipeline.c, common/pipeline.c.
 */
#ifndef COLLSIM_PIPELINE_H
#define COLLSIM_PIPELINE_H

#include "segment.h"
#include "tree.h"

#ifdef __cplusplus
extern "C" {
#endif

/* Reduces the blocks of plan up the tree: acc (plan->count elements, may be
 * sendbuf's copy target) starts as this rank's input copied from sendbuf and
 * ends as the reduction over the rank's subtree; a rank with a parent sends
 * it there block by block.  A child whose rank is below this rank is the left
 * operand, one above it the right operand (rank order in the in-order binary
 * tree; commutative ops do not care). */
int collsim_tree_reduce_pipelined(const void *sendbuf, void *acc, MPI_Datatype datatype,
                                  MPI_Op op, int rank, const collsim_tree_node *node,
                                  const collsim_segment_plan *plan, MPI_Comm comm, int tag,
                                  const collsim_params *params);

/* Broadcasts the blocks of plan down the tree: a rank with a parent receives
 * them into buffer, a rank with children forwards them. */
int collsim_tree_bcast_pipelined(void *buffer, MPI_Datatype datatype,
                                 const collsim_tree_node *node, const collsim_segment_plan *plan,
                                 MPI_Comm comm, int tag);

/* A plan of one block (the unsegmented algorithms). */
collsim_segment_plan collsim_segment_plan_single(int count);

/* Reduce to root along a tree of the given kind (BINARY, CHAIN or
 * IN_ORDER_BINARY), in one block or (segmented) along the plan of params with
 * the tree's fill and steady step counts.  The in-order tree's root is
 * collsim_tree_in_order_root(size); when that is not root it sends the result
 * to root in one message at the end. */
int collsim_reduce_along_tree(const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                              const collsim_params *params, collsim_tree_kind kind, int segmented);

/* Bcast from root along a tree of the given kind (BINARY or CHAIN), in one
 * block or segmented along the plan of params. */
int collsim_bcast_along_tree(void *buffer, int count, MPI_Datatype datatype, int root,
                             MPI_Comm comm, const collsim_params *params, collsim_tree_kind kind,
                             int segmented);

/* Allreduce as a reduce up the in-order binary tree followed by a bcast down
 * the same tree, both in one block or both along the same plan (fill 4h,
 * steady 4: two steps per block up, two down). */
int collsim_allreduce_along_in_order_tree(const void *sendbuf, void *recvbuf, int count,
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                          const collsim_params *params, int segmented);

/* Steps per block at a node of the tree (its children count: 1 for a chain,
 * 2 for the binary trees), used in the pipelining lemma. */
int collsim_tree_steady_steps(collsim_tree_kind kind);

#ifdef __cplusplus
}
#endif

#endif /* COLLSIM_PIPELINE_H */

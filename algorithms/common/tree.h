/*
 * tree.h: the communication trees of the tree algorithms, as pure functions of
 * (kind, rank, size, root) without MPI.  collbench --dump-tree prints them and
 * collsim.analysis.trees builds the same trees in Python; tests compare both.
 *
 * Each builder gives a rank's parent (-1 at a root) and its children in the
 * order the algorithms talk to them.  The pictures are in tree.c.
 * Users: allreduce_dual_root_pipelined.c, bcast_binary.c, bcast_pipeline.c,
 * reduce_binary.c, reduce_in_order_binary.c, reduce_pipeline.c,
 * common/generic_tree.h, common/pipeline.c, common/pipeline.h, common/tree.c,
 * sim/collbench/main.c, sim/collbench/options.c.
 */
#ifndef COLLSIM_TREE_H
#define COLLSIM_TREE_H

#ifdef __cplusplus
extern "C" {
#endif

/* A binomial tree of 2^31 ranks has 31 children at its root; a chain tree's
 * root has its fan-out (at most this, Open MPI's MAXTREEFANOUT); no other
 * tree has more than two. */
#define COLLSIM_TREE_MAX_CHILDREN 32

typedef enum collsim_tree_kind {
    COLLSIM_TREE_BINOMIAL,        /* rooted at root, farthest child first */
    COLLSIM_TREE_BINARY,          /* heap order relative to root */
    COLLSIM_TREE_IN_ORDER_BINARY, /* in-order over ranks 0..size-1; root ignored */
    COLLSIM_TREE_CHAIN,           /* root -> root+1 -> ... (mod size); fan-out 1 */
    COLLSIM_TREE_DUAL_POSTORDER,  /* two post-order binary trees (seed 003); root ignored */
    COLLSIM_TREE_KIND_COUNT
} collsim_tree_kind;

typedef struct collsim_tree_node {
    int parent;        /* -1 at a root of the tree (two roots in DUAL_POSTORDER) */
    int nchildren;
    int children[COLLSIM_TREE_MAX_CHILDREN];
    int depth;         /* edges between the rank and its tree's root */
    int height;        /* edges on the longest path from any root down to a leaf */
} collsim_tree_node;

/* Fills *node for rank in a tree of the given kind over size ranks.  Returns
 * 0, or -1 when an argument is out of range (size < 1, rank or root outside
 * [0, size), unknown kind). */
int collsim_tree_build(collsim_tree_kind kind, int rank, int size, int root,
                       collsim_tree_node *node);

/* Fills *node for rank in Open MPI's chain tree with the given fan-out
 * (ompi_coll_base_topo_build_chain): the root heads min(fanout, size - 1)
 * chains of consecutive ranks; fan-out 1 is the CHAIN of collsim_tree_build.
 * Returns 0, or -1 when an argument is out of range (as collsim_tree_build,
 * or fanout outside [1, COLLSIM_TREE_MAX_CHILDREN]). */
int collsim_tree_build_chain(int rank, int size, int root, int fanout, collsim_tree_node *node);

/* The kind's whole-word name ("in_order_binary"), or NULL. */
const char *collsim_tree_kind_name(collsim_tree_kind kind);

/* The kind of a name, or -1. */
int collsim_tree_kind_from_name(const char *name);

/* The root of the in-order binary tree over size ranks. */
int collsim_tree_in_order_root(int size);

/* The number of ranks in the first (lower-ranked) of the two post-order trees;
 * the second holds the others. */
int collsim_tree_dual_first_size(int size);

#ifdef __cplusplus
}
#endif

#endif /* COLLSIM_TREE_H */

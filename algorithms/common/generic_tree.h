/*
 * generic_tree.h: Open MPI's generic tree broadcast and reduce, unsegmented
 * (ompi_coll_base_bcast_intra_generic, ompi_coll_base_reduce_generic in
 * ompi/mca/coll/base, v4.1.4, with one segment as its fixed rules run them),
 * over a tree given by relative ranks v = (rank - root) mod p.  Used by the
 * concurrent_* bcasts, the overlapped_* reduces and both chains (the chain
 * tree of tree.h with a fan-out).
 * Users: bcast_chain.c, bcast_concurrent_binary.c,
 * bcast_concurrent_binomial.c, bcast_concurrent_knomial.c, reduce_chain.c,
 * reduce_overlapped_binary.c, reduce_overlapped_binomial.c,
 * common/generic_tree.c.
 */
#ifndef COLLSIM_GENERIC_TREE_H
#define COLLSIM_GENERIC_TREE_H

#include "../collsim.h"
#include "tree.h"

/* The most children a tree of these algorithms gives a rank. */
#define COLLSIM_GENERIC_TREE_MAX_CHILDREN 96

/* Open MPI's binary tree (ompi_coll_base_topo_build_tree(2)) seen from the
 * relative rank v of size ranks, in level order: v on level L =
 * floor(lg(v + 1)) has the children v + 2^L and v + 2^(L+1) below size (written
 * to children[0..1]; returned: how many) and, for v > 0, the parent whose
 * children it is (*parent; 0 for v = 0).  Used by bcast_concurrent_binary.c
 * and reduce_overlapped_binary.c. */
int collsim_generic_binary_tree(int v, int size, int *parent, int children[2]);

/* The calling rank's place (relative ranks, root 0) in Open MPI's chain tree
 * of params' fan-out (collsim_tree_build_chain) on comm rooted at root:
 * MPI_SUCCESS, or MPI_ERR_ARG for a fan-out out of range.  Used by
 * bcast_chain.c and reduce_chain.c. */
int collsim_generic_chain_node(MPI_Comm comm, int root, const collsim_params *params,
                               collsim_tree_node *node);

/* Broadcast: receive from parent (v != 0), then send to all children at once
 * (one MPI_Isend each, then MPI_Waitall). */
int collsim_generic_tree_bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                               MPI_Comm comm, int parent, const int *children, int nchildren);

/* Reduce (commutative op): receive child 0 into the accumulator and post
 * child 1; wait for child 0 and combine the own vector; then for each next
 * child post it, wait for the previous one and combine it; send the
 * accumulator to the parent (v != 0).  Two receives in flight. */
int collsim_generic_tree_reduce(const void *sendbuf, void *recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                int parent, const int *children, int nchildren,
                                const collsim_params *params);

#endif

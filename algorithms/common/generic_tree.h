/*
 * generic_tree.h: Open MPI's generic tree broadcast and reduce, unsegmented
 * (ompi_coll_base_bcast_intra_generic, ompi_coll_base_reduce_generic in
 * ompi/mca/coll/base, v4.1.4, with one segment as its fixed rules run them),
 * over a tree given by relative ranks v = (rank - root) mod p.
 */
#ifndef COLLSIM_GENERIC_TREE_H
#define COLLSIM_GENERIC_TREE_H

#include "../collsim.h"

/* The most children a tree of these algorithms gives a rank. */
#define COLLSIM_GENERIC_TREE_MAX_CHILDREN 96

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

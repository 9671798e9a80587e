/*
 * opening.h: the opening of an algorithm: this rank, the size of the
 * communicator and the width of an element (common/opening.c).
 * Users: most reduce, allreduce and bcast algorithms (allreduce_ring.c,
 * allreduce_node_aware.c, allreduce_binary_blocks.c,
 * allreduce_recursive_doubling.c, allreduce_dual_root_pipelined.c,
 * allreduce_rabenseifner.c, reduce_node_aware.c, reduce_binomial.c,
 * reduce_binary_blocks.c, reduce_linear.c, reduce_ring.c,
 * reduce_rabenseifner.c), the reduce_scatter algorithms (collsim_open_blocks)
 * and the engines of common/pipeline.c and common/scatter.c.
 */
#ifndef COLLSIM_OPENING_H
#define COLLSIM_OPENING_H

#include "../collsim.h"

/* This rank and the size of comm, and the extent of datatype.  Used by most
 * reduce, allreduce and bcast algorithms and by the engines of
 * common/pipeline.c and common/scatter.c.  Returns an MPI error code. */
int collsim_open(MPI_Comm comm, MPI_Datatype datatype, int *rank, int *size, MPI_Aint *extent);

/* collsim_open for the reduce_scatter algorithms, whose vector is the p blocks
 * of recvcount elements each: MPI_ERR_COUNT where recvcount * size is over
 * INT_MAX (the vector's count would not fit an int). */
int collsim_open_blocks(MPI_Comm comm, MPI_Datatype datatype, int recvcount, int *rank,
                        int *size, MPI_Aint *extent);

#endif /* COLLSIM_OPENING_H */

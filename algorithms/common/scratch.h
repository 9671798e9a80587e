/*
 * scratch.h: the scratch buffers of the algorithms that combine into a
 * buffer of their own (common/scratch.c): an accumulator and a receive
 * buffer, the in-place start of an allreduce, and the combining of a
 * received partial that swaps the two instead of copying.
 * Users: reduce_binomial.c, reduce_linear.c, reduce_ring.c, common/prefix.c,
 * reduce_rabenseifner.c, reduce_binary_blocks.c, reduce_node_aware.c,
 * allreduce_recursive_doubling.c, allreduce_rabenseifner.c,
 * allreduce_binary_blocks.c, common/prerounded.c.
 */
#ifndef COLLSIM_SCRATCH_H
#define COLLSIM_SCRATCH_H

#include "../collsim.h"

/* Two scratch buffers of count elements each (the accumulator and the
 * receive buffer of the reduces binomial, linear, ring, rabenseifner,
 * binary_blocks and node_aware, and the parts and sums of
 * common/prerounded.c; at least one byte each).  MPI_SUCCESS, or
 * MPI_ERR_NO_MEM when either is missing: the caller's cleanup frees both
 * with collsim_buffer_free (which takes NULL). */
int collsim_buffer_pair(int count, MPI_Aint extent, const collsim_params *params, void **first,
                        void **second);

/* The start of the allreduces that combine in place in recvbuf
 * (recursive_doubling, rabenseifner, binary_blocks): recvbuf = sendbuf, and
 * *tmp a scratch buffer of count elements.  MPI_SUCCESS, or MPI_ERR_NO_MEM
 * (the caller's cleanup frees *tmp, NULL then). */
int collsim_inplace_start(const void *sendbuf, void *recvbuf, int count, MPI_Aint extent,
                          const collsim_params *params, void **tmp);

/* *acc = *acc op *received, the accumulated partial the left operand,
 * without a copy: the result is written into *received and the two buffers
 * swap.  Used by reduce_binomial and reduce_linear.  Returns an MPI error
 * code. */
int collsim_accumulate(void **acc, void **received, int count, MPI_Datatype datatype, MPI_Op op,
                       const collsim_params *params);

#endif /* COLLSIM_SCRATCH_H */

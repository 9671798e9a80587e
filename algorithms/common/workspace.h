/*
 * workspace.h: the opening shared by the algorithms that work on a vector
 * (what this rank is, how wide an element is) and their pair of scratch
 * buffers.  Used by the reduce, allreduce and bcast algorithms and by the
 * tree engines of common/pipeline.c.
 */
#ifndef COLLSIM_WORKSPACE_H
#define COLLSIM_WORKSPACE_H

#include "../collsim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* This rank and the size of comm, and the extent of datatype.  Returns an
 * MPI error code. */
int collsim_open(MPI_Comm comm, MPI_Datatype datatype, int *rank, int *size, MPI_Aint *extent);

/* Two scratch buffers of count elements each (the accumulator and the
 * receive buffer of the reduces; at least one byte each).  MPI_SUCCESS, or
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

/* Frees *comm unless it is MPI_COMM_NULL (a sub-communicator that was not
 * made).  Used in the cleanup of the hierarchical algorithms. */
void collsim_comm_release(MPI_Comm *comm);

#ifdef __cplusplus
}
#endif

#endif /* COLLSIM_WORKSPACE_H */

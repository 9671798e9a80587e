/*
 * workspace.h: small steps that many algorithms share: the opening (what
 * this rank is, how wide an element is), scratch buffers, the combining of a
 * received partial, the parameters of sub-algorithms and the release of
 * sub-communicators.  Each function names its users.
 */
#ifndef COLLSIM_WORKSPACE_H
#define COLLSIM_WORKSPACE_H

#include "../collsim.h"

#ifdef __cplusplus
extern "C" {
#endif

/* This rank and the size of comm, and the extent of datatype.  Used by most
 * reduce, allreduce and bcast algorithms and by the engines of
 * common/pipeline.c and common/scatter.c.  Returns an MPI error code. */
int collsim_open(MPI_Comm comm, MPI_Datatype datatype, int *rank, int *size, MPI_Aint *extent);

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

/* The parameters of a sub-algorithm that takes none of its own: gamma and
 * timing_only, every other field zero.  Used by the node-aware algorithms
 * for the algorithms MPICH picks inside them. */
void collsim_plain_params(const collsim_params *params, collsim_params *out);

/* Frees *comm unless it is MPI_COMM_NULL (a sub-communicator that was not
 * made).  Used in the cleanup of the hierarchical algorithms. */
void collsim_comm_release(MPI_Comm *comm);

#ifdef __cplusplus
}
#endif

#endif /* COLLSIM_WORKSPACE_H */

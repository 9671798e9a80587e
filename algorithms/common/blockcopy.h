/*
 * blockcopy.h: the local copy of one block between a send and a receive
 * datatype (common/blockcopy.c), for the collectives whose calls name both
 * (allgather, alltoall, gather, scatter): a rank's own block goes from
 * sendbuf to its place in recvbuf without a message, as Open MPI's
 * ompi_datatype_sndrcv and MPICH's MPIR_Localcopy do.
 * Users: the allgather, alltoall, gather and scatter algorithms.
 */
#ifndef COLLSIM_BLOCKCOPY_H
#define COLLSIM_BLOCKCOPY_H

#include "../collsim.h"

/* Copies sendcount elements of sendtype at src into recvcount elements of
 * recvtype at dst (the type signatures must match, as for a message): a
 * memcpy when both sides are the same contiguous type, else packed and
 * unpacked.  No simulated time.  Returns an MPI error code. */
int collsim_block_copy(const void *src, int sendcount, MPI_Datatype sendtype, void *dst,
                       int recvcount, MPI_Datatype recvtype);

/* The extent of count elements of datatype (the stride of a block). */
MPI_Aint collsim_block_extent(int count, MPI_Datatype datatype);

#endif /* COLLSIM_BLOCKCOPY_H */

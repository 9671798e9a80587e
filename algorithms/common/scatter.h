/*
 * scatter.h: the allgather step of the scatter + allgather broadcasts
 * (common/scatter.c; its chunk span and binomial scatter are declared in
 * internal.h).
 */
#ifndef COLLSIM_SCATTER_H
#define COLLSIM_SCATTER_H

#include "../collsim.h"

/* One allgather step over the chunks of c elements of buffer (count
 * elements): sends chunks [out_first, out_last) to rank dst while receiving
 * chunks [in_first, in_last) from rank src (one MPI_Sendrecv).  Used by
 * bcast_scatter_allgather.c (one chunk around the ring) and
 * bcast_scatter_recursive_doubling_allgather.c (aligned groups of chunks).
 * Returns an MPI error code. */
int collsim_chunk_exchange(void *buffer, int count, int c, MPI_Datatype datatype,
                           MPI_Aint extent, int out_first, int out_last, int dst, int in_first,
                           int in_last, int src, MPI_Comm comm);

#endif /* COLLSIM_SCATTER_H */

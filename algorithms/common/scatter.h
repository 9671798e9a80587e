/*
 * scatter.h: the scatter + allgather broadcasts' shared pieces (common/scatter.c):
 * the binomial scatter and chunk arithmetic, one allgather exchange step, and
 * the engine of bcast_scatter_allgather.c and
 * bcast_scatter_recursive_doubling_allgather.c.
 * Users: those two files and common/scatter.c.
 */
#ifndef COLLSIM_SCATTER_H
#define COLLSIM_SCATTER_H

#include "../collsim.h"

/* The scatter + allgather broadcasts (common/scatter.c): the elements of
 * chunks [first, last) of count elements cut into chunks of c (offset of the
 * first in *offset), and the binomial scatter that leaves chunk
 * (rank - root) mod size on each rank. */
int collsim_chunk_span(int count, int c, int first, int last, int *offset);
int collsim_binomial_scatter(void *buffer, int count, MPI_Datatype datatype, MPI_Aint extent,
                             int root, int rank, int size, MPI_Comm comm);

/* One allgather step over the chunks of c elements of buffer (count
 * elements): sends chunks [out_first, out_last) to rank dst while receiving
 * chunks [in_first, in_last) from rank src (one MPI_Sendrecv).  Used by
 * bcast_scatter_allgather.c (one chunk around the ring) and
 * bcast_scatter_recursive_doubling_allgather.c (aligned groups of chunks).
 * Returns an MPI error code. */
int collsim_chunk_exchange(void *buffer, int count, int c, MPI_Datatype datatype,
                           MPI_Aint extent, int out_first, int out_last, int dst, int in_first,
                           int in_last, int src, MPI_Comm comm);

/* The allgather half of a scatter + allgather broadcast: on entry the rank
 * of relative number v = (rank - root) mod size holds chunk v (chunks of c
 * elements of buffer, count elements); on return every rank holds them all.
 * Returns an MPI error code. */
typedef int collsim_chunk_allgather_fn(void *buffer, int count, int c, MPI_Datatype datatype,
                                       MPI_Aint extent, int v, int root, int rank, int size,
                                       MPI_Comm comm);

/* Broadcast as a binomial scatter of count / size chunks followed by
 * allgather: the engine of bcast_scatter_allgather.c (a ring) and
 * bcast_scatter_recursive_doubling_allgather.c.  Returns an MPI error code. */
int collsim_scatter_allgather_bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                                    MPI_Comm comm, collsim_chunk_allgather_fn *allgather);

#endif /* COLLSIM_SCATTER_H */

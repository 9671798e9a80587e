/*
 * scatter.h: the binomial scatter and chunk arithmetic of the scatter + allgather
 * broadcasts (common/scatter.c).
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

#endif /* COLLSIM_SCATTER_H */

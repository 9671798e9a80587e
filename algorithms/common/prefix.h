/*
 * prefix.h: the recursive-doubling prefix reduction shared by the inclusive
 * and the exclusive scan (common/prefix.c): the same messages and combines,
 * the exclusive one without the rank's own input in its result.
 * Users: scan_recursive_doubling.c, exscan_recursive_doubling.c.
 */
#ifndef COLLSIM_PREFIX_H
#define COLLSIM_PREFIX_H

#include "../collsim.h"

/* MPICH's recursive-doubling scan (inclusive nonzero) or exscan (inclusive
 * 0): in step mask = 1, 2, 4, ... rank v exchanges its partial (the sum over
 * its run of consecutive ranks) with v xor mask when that rank exists; the
 * higher of the two adds the received partial on the left of its result and
 * of its partial, the lower on the right of its partial (on the left for a
 * commutative op).  An exclusive result starts as the first partial a rank
 * receives as the higher (a copy, no combine); rank 0's stays undefined.
 * Messages carry tag.  Returns an MPI error code. */
int collsim_prefix_recursive_doubling(const void *sendbuf, void *recvbuf, int count,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                      const collsim_params *params, int inclusive, int tag);

#endif /* COLLSIM_PREFIX_H */

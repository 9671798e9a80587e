/*
 * scan_recursive_doubling.c: MPICH's recursive-doubling inclusive scan.
 *
 * Each rank keeps two vectors: its result (the prefix so far) and a partial
 * (the sum over its subtree of 1, 2, 4, ... consecutive ranks).  In step
 * mask = 1, 2, 4, ... rank v exchanges partials with v xor mask when that
 * rank exists.  The higher of the two adds the received partial (from the
 * ranks just below its subtree) on the left of both its result and its
 * partial; the lower adds it only to its partial, on the right (on the left
 * for a commutative op, as MPICH does: the order is then free).
 *
 *     p = 4:  mask 1: 0 <-> 1, 2 <-> 3   results 0, 0:1, 2, 2:3
 *             mask 2: 0 <-> 2, 1 <-> 3   results 0, 0:1, 0:2, 0:3
 *
 * Non-commutative ops keep rank order: every partial covers a run of
 * consecutive ranks and the lower run is always the left operand.
 *
 * Restrictions: none.
 * Reference: MPICH 4.1 MPIR_Scan_intra_recursive_doubling; Open MPI 4.1
 *            ompi_coll_base_scan_intra_recursivedoubling (coll/base: the same
 *            messages and combines).
 * Cost:      ceil(lg p) (alpha + n beta) + up to 2 ceil(lg p) n gamma: a rank
 *            combines twice when it is the higher of a pair, once when the
 *            lower (the model replays who waits for whom).
 */
#include "common/internal.h"
#include "common/prefix.h"

int collsim_scan_recursive_doubling(const void *sendbuf, void *recvbuf, int count,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                    const collsim_params *params)
{
    return collsim_prefix_recursive_doubling(sendbuf, recvbuf, count, datatype, op, comm, params,
                                             1, COLLSIM_TAG_SCAN);
}

/*
 * exscan_recursive_doubling.c: MPICH's recursive-doubling exclusive scan.
 *
 * The steps of scan_recursive_doubling.c, without the rank's own input in
 * its result: in step mask = 1, 2, 4, ... rank v exchanges partials (the sum
 * over its subtree of consecutive ranks) with v xor mask when that rank
 * exists.  The higher of the two adds the received partial on the left of
 * its partial and of its result; its first such partial is its result as
 * it comes (a copy, no combine).  The lower adds it to its partial only, on
 * the right (on the left for a commutative op, as MPICH does).  Rank 0 is
 * never the higher: its result stays undefined (MPI-3.1 sec. 5.11.2).
 *
 *     p = 4:  mask 1: 0 <-> 1, 2 <-> 3   results -, 0, -, 2
 *             mask 2: 0 <-> 2, 1 <-> 3   results -, 0, 0:1, 0:2
 *
 * Non-commutative ops keep rank order: every partial covers a run of
 * consecutive ranks and the lower run is always the left operand.
 *
 * Restrictions: none.
 * Reference: MPICH 4.1 MPIR_Exscan_intra_recursive_doubling; Open MPI 4.1
 *            ompi_coll_base_exscan_intra_recursivedoubling (coll/base: the
 *            same messages and combines).
 * Cost:      ceil(lg p) (alpha + n beta) + up to (2 ceil(lg p) - 1) n gamma
 *            (the model replays who waits for whom).
 */
#include "common/internal.h"
#include "common/prefix.h"

int collsim_exscan_recursive_doubling(const void *sendbuf, void *recvbuf, int count,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                      const collsim_params *params)
{
    return collsim_prefix_recursive_doubling(sendbuf, recvbuf, count, datatype, op, comm, params,
                                             0, COLLSIM_TAG_EXSCAN);
}

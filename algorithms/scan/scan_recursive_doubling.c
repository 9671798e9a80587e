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
#include "common/opening.h"
#include "common/scratch.h"

int collsim_scan_recursive_doubling(const void *sendbuf, void *recvbuf, int count,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                    const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, commutative;
    MPI_Aint extent;
    void *partial = NULL, *received = NULL;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    collsim_copy(recvbuf, sendbuf, count, extent);
    if (count == 0 || size == 1)
        return MPI_SUCCESS;
    COLLSIM_CHECK(MPI_Op_commutative(op, &commutative));
    COLLSIM_CHECK(collsim_buffer_pair(count, extent, params, &partial, &received));
    collsim_copy(partial, sendbuf, count, extent);

    for (int mask = 1; mask < size; mask <<= 1) {
        const int dst = rank ^ mask;
        if (dst >= size)
            continue;
        COLLSIM_CHECK(MPI_Sendrecv(partial, count, datatype, dst, COLLSIM_TAG_SCAN, received,
                                   count, datatype, dst, COLLSIM_TAG_SCAN, comm,
                                   MPI_STATUS_IGNORE));
        if (rank > dst) {
            COLLSIM_CHECK(collsim_reduce_local(received, partial, count, datatype, op, params));
            COLLSIM_CHECK(collsim_reduce_local(received, recvbuf, count, datatype, op, params));
        } else if (commutative) {
            COLLSIM_CHECK(collsim_reduce_local(received, partial, count, datatype, op, params));
        } else {
            /* partial = partial op received, without a copy: the buffers swap */
            COLLSIM_CHECK(collsim_reduce_local(partial, received, count, datatype, op, params));
            void *swap = partial;
            partial = received;
            received = swap;
        }
    }

cleanup:
    collsim_buffer_free(partial, params);
    collsim_buffer_free(received, params);
    return rc;
}

/*
 * bcast_scatter_recursive_doubling_allgather.c: broadcast as a binomial
 * scatter followed by a recursive-doubling allgather (MPICH's medium-message
 * broadcast on power-of-two communicators).
 *
 * The vector is cut into p chunks of c = ceil(count / p) elements (the last
 * ones shorter or empty); ranks are numbered relative to the root,
 * v = (rank - root) mod p, and v is to own chunk v.  Scatter: as in
 * bcast_scatter_allgather.c (a binomial tree, largest distance first).
 * Allgather: lg p steps; in the step of distance m, v exchanges with v xor m
 * the chunks of its aligned group of m ranks, [v - v mod m, v - v mod m + m),
 * for those of its partner's (MPI_Sendrecv), doubling what it holds.
 *
 *     p = 4, root 0:  scatter  0 -> 2 (chunks 2,3)   0 -> 1 (1)   2 -> 3 (3)
 *                     m = 1    0 <-> 1, 2 <-> 3 (one chunk each way)
 *                     m = 2    0 <-> 2, 1 <-> 3 (two chunks each way)
 *
 * Restrictions: power-of-two p (MPICH's default selection uses it only
 *               there; its code for other p is not this one).
 * Reference: R. Thakur, R. Rabenseifner, W. Gropp, IJHPCA 19(1), 2005;
 *            MPICH v4.0.2, src/mpi/coll/bcast/
 *            bcast_intra_scatter_recursive_doubling_allgather.c (MPICH cuts
 *            the vector in bytes, collsim in elements).
 * Cost:      lg p alpha + (p-1)/p n beta  (scatter)
 *            + lg p alpha + (p-1)/p n beta  (allgather)
 */
#include "common/internal.h"
#include "common/scatter.h"

/* lg p steps; in the step of distance m, v exchanges the chunks of its
 * aligned group of m ranks for those of its partner v xor m. */
static int recursive_doubling_allgather(void *buffer, int count, int c, MPI_Datatype datatype,
                                        MPI_Aint extent, int v, int root, int rank, int size,
                                        MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    (void)rank;
    for (int m = 1; m < size; m <<= 1) {
        const int partner = v ^ m;
        const int mine = v & ~(m - 1), theirs = partner & ~(m - 1);
        const int peer = (partner + root) % size;
        COLLSIM_CHECK(collsim_chunk_exchange(buffer, count, c, datatype, extent, mine, mine + m,
                                             peer, theirs, theirs + m, peer, comm));
    }

cleanup:
    return rc;
}

int collsim_bcast_scatter_recursive_doubling_allgather(void *buffer, int count,
                                                       MPI_Datatype datatype, int root,
                                                       MPI_Comm comm,
                                                       const collsim_params *params)
{
    (void)params;
    return collsim_scatter_allgather_bcast(buffer, count, datatype, root, comm,
                                           recursive_doubling_allgather);
}

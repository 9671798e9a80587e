/*
 * bcast_scatter_allgather.c: broadcast as a binomial scatter followed by a
 * ring allgather (van de Geijn; MPICH's long-message broadcast; seed 001
 * builds allreduce from the same two halves).
 *
 * The vector is cut into p chunks of c = ceil(count / p) elements (the last
 * ones shorter or empty); ranks are numbered relative to the root,
 * v = (rank - root) mod p, and v is to own chunk v.  Scatter: a binomial tree
 * from the root, largest distance first: a rank holding chunks [v, v + 2m)
 * sends [v + m, v + 2m) to v + m.  Allgather: p - 1 ring steps; in step s
 * rank v sends chunk (v - s + 1) mod p to v + 1 and receives chunk (v - s)
 * mod p from v - 1.
 *
 *     p = 4, root 0:  scatter  0 -> 2 (chunks 2,3)   0 -> 1 (1)   2 -> 3 (3)
 *                     ring     3 steps, one chunk per rank and step
 *
 * Restrictions: none.
 * Reference: M. Barnett, ... R. van de Geijn, "Interprocessor collective
 *            communication library (InterCom)", SHPCC 1994; R. Thakur et al.,
 *            IJHPCA 19(1), 2005 (MPICH bcast for long messages).
 * Cost:      ceil(lg p) alpha + (p-1)/p n beta  (scatter)
 *            + (p - 1)(alpha + n/p beta)        (allgather)
 */
#include "common/internal.h"
#include "common/scatter.h"

/* p - 1 ring steps: in step s, v sends chunk (v - s + 1) mod p to v + 1 and
 * receives chunk (v - s) mod p from v - 1. */
static int ring_allgather(void *buffer, int count, int c, MPI_Datatype datatype, MPI_Aint extent,
                          int v, int root, int rank, int size, MPI_Comm comm)
{
    int rc = MPI_SUCCESS;
    const int right = (rank + 1) % size, left = (rank - 1 + size) % size;
    (void)root;
    for (int step = 1; step < size; step++) {
        const int out = (v - step + 1 + size) % size, in = (v - step + size) % size;
        COLLSIM_CHECK(collsim_chunk_exchange(buffer, count, c, datatype, extent, out, out + 1,
                                             right, in, in + 1, left, comm));
    }

cleanup:
    return rc;
}

int collsim_bcast_scatter_allgather(void *buffer, int count, MPI_Datatype datatype, int root,
                                    MPI_Comm comm, const collsim_params *params)
{
    (void)params;
    return collsim_scatter_allgather_bcast(buffer, count, datatype, root, comm, ring_allgather);
}

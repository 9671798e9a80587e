/*
 * bcast_chain.c: unsegmented chain broadcast.
 *
 *     0 (root) -> 1 -> 2 -> ... -> p-1          v = (rank - root) mod p
 *
 * Each rank receives the whole vector from v - 1 and sends it to v + 1.
 * Runs on the pipelined tree engine with one block (common/pipeline.c).
 *
 * Restrictions: none.
 * Reference: seed 002 (Open MPI "chain" with fan-out 1).
 * Cost:      (p - 1) (alpha + n beta)
 */
#include "common/pipeline.h"

int collsim_bcast_chain(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                        const collsim_params *params)
{
    return collsim_bcast_along_tree(buffer, count, datatype, root, comm, params,
                                    COLLSIM_TREE_CHAIN, 0);
}

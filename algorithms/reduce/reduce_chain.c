/*
 * reduce_chain.c: unsegmented chain (linear array) reduce.
 *
 * The ranks form a chain ending at the root, v = (rank - root) mod p:
 *
 *     p-1 -> p-2 -> ... -> 1 -> 0 (root)
 *
 * Each rank receives the whole vector from v + 1, combines its own, and sends
 * the result to v - 1: every rank sends or receives at most one message at a
 * time (seed 004, "linear tree").  Runs on the pipelined tree engine with one
 * block (common/pipeline.c).
 *
 * Restrictions: commutative ops (the chain from the root wraps around).
 * Reference: seed 004 formula (3); Open MPI ompi_coll_base_reduce_intra_chain.
 * Cost:      (p - 1) (alpha + n beta + n gamma)
 */
#include "common/pipeline.h"

int collsim_reduce_chain(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, int root, MPI_Comm comm, const collsim_params *params)
{
    return collsim_reduce_along_tree(sendbuf, recvbuf, count, datatype, op, root, comm, params,
                                     COLLSIM_TREE_CHAIN, 0);
}

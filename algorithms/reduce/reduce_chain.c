/*
 * reduce_chain.c: unsegmented chain reduce with a fan-out: Open MPI's chain
 * (coll/tuned id 2, ompi_coll_base_reduce_intra_chain with segsize 0).
 *
 * The tree of bcast_chain.c, data flowing up: the root heads f =
 * min(chain_fanout, p - 1) chains of consecutive ranks (Open MPI's
 * ompi_coll_base_topo_build_chain; common/tree.c draws it), on
 * v = (rank - root) mod p.  f = 1 (the default) is the single chain
 *
 *     p-1 -> p-2 -> ... -> 1 -> 0 (root)
 *
 * Each rank receives the partial result of the rest of its chain from its
 * child, combines its own, and sends the result to its parent; the root
 * receives from the f heads, two receives in flight, combining in head order
 * (Open MPI's ompi_coll_base_reduce_generic, common/generic_tree.c).  With
 * f = 1 every rank sends or receives at most one message at a time (seed 004,
 * "linear tree").
 *
 * Restrictions: commutative ops (the chain from the root wraps around).
 * Reference: seed 004 formula (3); seed 002 (forced, Open MPI's fan-out is
 *            the MCA default coll_tuned_reduce_algorithm_chain_fanout = 4);
 *            Open MPI v4.1.4 ompi/mca/coll/base/coll_base_reduce.c.
 * Cost:      f = 1: (p - 1)(alpha + n beta + n gamma); f > 1: about
 *            L (alpha + n beta + n gamma) + (f - 1)(n beta + n gamma) at the
 *            root, L = ceil((p - 1) / f)
 */
#include "common/generic_tree.h"
#include "common/internal.h"

int collsim_reduce_chain(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, int root, MPI_Comm comm, const collsim_params *params)
{
    collsim_tree_node node;
    /* built on relative ranks (root 0), which the generic engine takes */
    int rc = collsim_generic_chain_node(comm, root, params, &node);
    if (rc != MPI_SUCCESS)
        return rc;
    return collsim_generic_tree_reduce(sendbuf, recvbuf, count, datatype, op, root, comm,
                                       node.parent, node.children, node.nchildren, params);
}

/*
 * bcast_chain.c: unsegmented chain broadcast with a fan-out: Open MPI's chain
 * (coll/tuned id 2, ompi_coll_base_bcast_intra_chain with segsize 0).
 *
 * The root heads f = min(chain_fanout, p - 1) chains of consecutive ranks
 * (Open MPI's ompi_coll_base_topo_build_chain; common/tree.c draws it), on
 * v = (rank - root) mod p.  f = 1 (the default) is the single chain
 *
 *     0 (root) -> 1 -> 2 -> ... -> p-1
 *
 * and p = 9, f = 4 the chains 1-2, 3-4, 5-6, 7-8.  The root sends to the f
 * heads at once (one MPI_Isend each, then MPI_Waitall, as Open MPI's
 * ompi_coll_base_bcast_intra_generic does: the f messages share its link);
 * every other rank receives the whole vector from its parent and sends it to
 * its one child (common/generic_tree.c).
 *
 * Restrictions: none.
 * Reference: seed 002 (Open MPI "chain"; forced, its fan-out is the MCA
 *            default coll_tuned_bcast_algorithm_chain_fanout = 4); Open MPI
 *            v4.1.4 ompi/mca/coll/base/coll_base_bcast.c, coll_base_topo.c.
 * Cost:      alpha + f n beta + (L - 1)(alpha + n beta), L = ceil((p - 1) / f);
 *            f = 1: (p - 1)(alpha + n beta)
 */
#include "common/generic_tree.h"
#include "common/internal.h"

int collsim_bcast_chain(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm,
                        const collsim_params *params)
{
    collsim_tree_node node;
    /* built on relative ranks (root 0), which the generic engine takes */
    int rc = collsim_generic_chain_node(comm, root, params, &node);
    if (rc != MPI_SUCCESS)
        return rc;
    return collsim_generic_tree_bcast(buffer, count, datatype, root, comm, node.parent,
                                      node.children, node.nchildren);
}

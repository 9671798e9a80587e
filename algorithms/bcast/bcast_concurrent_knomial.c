/*
 * bcast_concurrent_knomial.c: Open MPI's k-nomial broadcast (coll/tuned id 7,
 * radix coll_tuned_bcast_knomial_radix = 4, unsegmented as its fixed rules run
 * it): a radix-4 tree in which every rank, once it has the vector, sends it to
 * all its children at once.
 *
 * Ranks relative to the root, v = (rank - root) mod p.  Open MPI's tree
 * (ompi_coll_base_topo_build_kmtree): the parent of v is v with its lowest
 * non-zero base-4 digit cleared; its children are v + r 4^l for r = 1..3 and
 * every 4^l below v's lowest non-zero digit (every level for the root), below
 * p.  A rank posts one MPI_Isend per child and waits for all of them
 * (ompi_coll_base_bcast_intra_generic; common/generic_tree.c): the sends
 * share its link.
 *
 *     p = 16, root 0:  0 -> {4, 8, 12, 1, 2, 3} at once;  4 -> {5, 6, 7}; ...
 *
 * Restrictions: none.
 * Reference: Open MPI v4.1.4, ompi/mca/coll/base/coll_base_bcast.c
 *            (ompi_coll_base_bcast_intra_knomial) and coll_base_topo.c.
 * Cost:      along the path to the last rank, per parent with k children
 *            alpha + k n beta (its k sends share its link).
 */
#include "common/generic_tree.h"
#include "common/internal.h"

#define RADIX 4

int collsim_bcast_concurrent_knomial(void *buffer, int count, MPI_Datatype datatype, int root,
                                     MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, nchildren = 0;
    int children[COLLSIM_GENERIC_TREE_MAX_CHILDREN];
    (void)params;
    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    const int v = (rank - root + size) % size;
    int mask = 1, parent = 0; /* mask: the radix power of v's lowest non-zero digit */
    while (mask < size) {
        if (v % (RADIX * mask)) {
            parent = v / (RADIX * mask) * (RADIX * mask);
            break;
        }
        mask *= RADIX;
    }
    for (mask /= RADIX; mask > 0; mask /= RADIX)
        for (int r = 1; r < RADIX; r++)
            if (v + mask * r < size)
                children[nchildren++] = v + mask * r;
    return collsim_generic_tree_bcast(buffer, count, datatype, root, comm, parent, children,
                                      nchildren);
cleanup:
    return rc;
}

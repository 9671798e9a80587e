/*
 * bcast_concurrent_binary.c: Open MPI's binary-tree broadcast (coll/tuned id
 * 5, unsegmented as its fixed rules run it): the binary tree of
 * ompi_coll_base_topo_build_tree(2), every rank sending to both its children
 * at once (common/generic_tree.c; the two sends share its link).
 *
 * Ranks relative to the root, v = (rank - root) mod p, in level order: v is
 * on level L = floor(lg(v + 1)) and its children are v + 2^L and v + 2^(L+1)
 * (below p); its parent is the rank whose children it is.
 *
 *     p = 7, root 0:  0 -> {1, 2};  1 -> {3, 5};  2 -> {4, 6}
 *
 * Restrictions: none.
 * Reference: Open MPI v4.1.4, ompi/mca/coll/base/coll_base_bcast.c
 *            (ompi_coll_base_bcast_intra_bintree) and coll_base_topo.c.
 * Cost:      per level alpha + 2 n beta (a parent's two sends share its link).
 */
#include "common/generic_tree.h"
#include "common/internal.h"

int collsim_bcast_concurrent_binary(void *buffer, int count, MPI_Datatype datatype, int root,
                                    MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, parent, children[2];
    (void)params;
    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    const int nchildren =
        collsim_generic_binary_tree((rank - root + size) % size, size, &parent, children);
    return collsim_generic_tree_bcast(buffer, count, datatype, root, comm, parent, children,
                                      nchildren);
cleanup:
    return rc;
}

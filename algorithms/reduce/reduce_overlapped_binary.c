/*
 * reduce_overlapped_binary.c: Open MPI's binary-tree reduce (coll/tuned id 4,
 * unsegmented as its fixed rules run it): the binary tree of
 * ompi_coll_base_topo_build_tree(2) combined as ompi_coll_base_reduce_generic
 * does, with both children's receives in flight at once (common/generic_tree.c).
 *
 * Ranks relative to the root, v = (rank - root) mod p, in level order: v is
 * on level L = floor(lg(v + 1)) and its children are v + 2^L and v + 2^(L+1)
 * (below p); its parent is the rank whose children it is.
 *
 *     p = 7, root 0:  0 <- {1, 2};  1 <- {3, 5};  2 <- {4, 6}
 *
 * Restrictions: commutative op (Open MPI's fixed rules use it only for them).
 * Reference: Open MPI v4.1.4, ompi/mca/coll/base/coll_base_reduce.c
 *            (ompi_coll_base_reduce_intra_binary, _generic) and coll_base_topo.c.
 * Cost:      per level, both children's vectors share the parent's link when
 *            they arrive together: about lg p (alpha + 2 n beta + 2 n gamma).
 */
#include "common/generic_tree.h"
#include "common/internal.h"

int collsim_reduce_overlapped_binary(const void *sendbuf, void *recvbuf, int count,
                                     MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                     const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, parent, children[2];
    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    const int nchildren =
        collsim_generic_binary_tree((rank - root + size) % size, size, &parent, children);
    return collsim_generic_tree_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, parent,
                                       children, nchildren, params);
cleanup:
    return rc;
}

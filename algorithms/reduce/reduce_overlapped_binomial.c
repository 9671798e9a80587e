/*
 * reduce_overlapped_binomial.c: Open MPI's binomial reduce (coll/tuned id 5,
 * unsegmented as its fixed rules run it): the in-order binomial tree of
 * ompi_coll_base_topo_build_in_order_bmtree, combined as
 * ompi_coll_base_reduce_generic does, with the receive from the next child
 * posted before the last one is waited for and combined (two receives in
 * flight, sharing the rank's link when both children are sending).
 *
 * Ranks relative to the root, v = (rank - root) mod p; the children of v are
 * v + 1, v + 2, v + 4, ... below v's lowest set bit (and p), in that order;
 * its parent is v without its lowest set bit.  The reduce is Open MPI's
 * generic one (common/generic_tree.c): child 0 into the accumulator with
 * child 1 posted, then each next child posted before the previous one is
 * waited for and combined; finally the accumulator to the parent.
 *
 *     p = 8, root 0:  0 <- {1, 2, 4};  2 <- {3};  4 <- {5, 6};  6 <- {7}
 *
 * Restrictions: commutative op (Open MPI's fixed rules use it only for them).
 * Reference: Open MPI v4.1.4, ompi/mca/coll/base/coll_base_reduce.c
 *            (ompi_coll_base_reduce_intra_binomial, _generic) and
 *            coll_base_topo.c.
 * Cost:      ceil(lg p) (alpha + n beta + n gamma) on full subtrees; a
 *            truncated subtree's vector may arrive while its left sibling's
 *            does, and the two share the parent's link.
 */
#include "common/generic_tree.h"
#include "common/internal.h"

int collsim_reduce_overlapped_binomial(const void *sendbuf, void *recvbuf, int count,
                                       MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                       const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, nchildren = 0, parent = 0;
    int children[32];
    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    const int v = (rank - root + size) % size;
    for (int mask = 1; mask < size; mask <<= 1) {
        const int remote = v ^ mask;
        if (remote < v) {
            parent = remote;
            break;
        }
        if (remote < size)
            children[nchildren++] = remote;
    }
    return collsim_generic_tree_reduce(sendbuf, recvbuf, count, datatype, op, root, comm, parent,
                                       children, nchildren, params);
cleanup:
    return rc;
}

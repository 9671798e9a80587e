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
 * its parent is v without its lowest set bit.  A rank with children c_0 ..
 * c_(k-1): receive c_0 into the accumulator and post c_1; wait for c_0, combine
 * its own vector; then for each next child post it, wait for the previous one
 * and combine it; finally send the accumulator to the parent.
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
#include "common/internal.h"

int collsim_reduce_overlapped_binomial(const void *sendbuf, void *recvbuf, int count,
                                       MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                       const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, nchildren = 0, parent = -1;
    int children[32];
    MPI_Aint lb, extent;
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    void *acc = NULL, *inbuf[2] = {NULL, NULL};

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    COLLSIM_CHECK(MPI_Type_get_extent(datatype, &lb, &extent));
    if (count == 0)
        return MPI_SUCCESS;

    const int v = (rank - root + size) % size;
    for (int mask = 1; mask < size; mask <<= 1) {
        const int remote = v ^ mask;
        if (remote < v) {
            parent = (remote + root) % size;
            break;
        }
        if (remote < size)
            children[nchildren++] = (remote + root) % size;
    }
    if (nchildren == 0) {
        if (v == 0) /* p == 1 */
            collsim_copy(recvbuf, sendbuf, count, extent);
        else
            rc = MPI_Send(sendbuf, count, datatype, parent, COLLSIM_TAG_REDUCE, comm);
        return rc;
    }

    const size_t nbytes = (size_t)count * (size_t)extent;
    acc = v == 0 ? recvbuf : malloc(nbytes);
    inbuf[0] = malloc(nbytes);
    inbuf[1] = malloc(nbytes);
    if (acc == NULL || inbuf[0] == NULL || inbuf[1] == NULL) {
        rc = MPI_ERR_NO_MEM;
        goto cleanup;
    }
    COLLSIM_CHECK(MPI_Irecv(acc, count, datatype, children[0], COLLSIM_TAG_REDUCE, comm,
                            &requests[0]));
    for (int i = 1; i <= nchildren; i++) {
        if (i < nchildren)
            COLLSIM_CHECK(MPI_Irecv(inbuf[i % 2], count, datatype, children[i],
                                    COLLSIM_TAG_REDUCE, comm, &requests[i % 2]));
        COLLSIM_CHECK(MPI_Wait(&requests[(i - 1) % 2], MPI_STATUS_IGNORE));
        /* child 0 arrived in the accumulator: combine my own vector into it;
         * later children arrive in an input buffer, combined into it */
        COLLSIM_CHECK(collsim_reduce_local(i == 1 ? sendbuf : inbuf[(i - 1) % 2], acc, count,
                                           datatype, op, params));
    }
    if (v != 0)
        COLLSIM_CHECK(MPI_Send(acc, count, datatype, parent, COLLSIM_TAG_REDUCE, comm));

cleanup:
    if (acc != recvbuf)
        free(acc);
    free(inbuf[0]);
    free(inbuf[1]);
    return rc;
}

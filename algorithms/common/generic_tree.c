/*
 * generic_tree.c: Open MPI's generic tree broadcast and reduce, one segment
 * (generic_tree.h).  Parents and children are relative ranks.
 */
#include "generic_tree.h"

#include "internal.h"

int collsim_generic_chain_node(MPI_Comm comm, int root, const collsim_params *params,
                               collsim_tree_node *node)
{
    int rc = MPI_SUCCESS, rank, size;
    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    if (collsim_tree_build_chain((rank - root + size) % size, size, 0,
                                 collsim_chain_fanout(params), node) != 0)
        return MPI_ERR_ARG;
cleanup:
    return rc;
}

int collsim_generic_binary_tree(int v, int size, int *parent, int children[2])
{
    int nchildren = 0, level_size = 1; /* 2^L for v's level L */
    while (2 * level_size - 1 <= v)
        level_size *= 2;
    for (int i = 1; i <= 2 && v + level_size * i < size; i++)
        children[nchildren++] = v + level_size * i;
    *parent = 0;
    if (v > 0) {
        const int first = level_size - 1; /* the first rank of v's level */
        const int offset = v - first;     /* the parent's level starts at level_size/2 - 1 */
        *parent = level_size / 2 - 1 + offset % (level_size / 2);
    }
    return nchildren;
}

int collsim_generic_tree_bcast(void *buffer, int count, MPI_Datatype datatype, int root,
                               MPI_Comm comm, int parent, const int *children, int nchildren)
{
    int rc = MPI_SUCCESS, rank, size, nreq = 0;
    MPI_Request requests[COLLSIM_GENERIC_TREE_MAX_CHILDREN];

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    if (count == 0 || size == 1)
        return MPI_SUCCESS;
    if (rank != root)
        COLLSIM_CHECK(MPI_Recv(buffer, count, datatype, (parent + root) % size, COLLSIM_TAG_BCAST,
                               comm, MPI_STATUS_IGNORE));
    for (int i = 0; i < nchildren; i++) {
        COLLSIM_CHECK(MPI_Isend(buffer, count, datatype, (children[i] + root) % size,
                                COLLSIM_TAG_BCAST, comm, &requests[nreq]));
        nreq++;
    }
    COLLSIM_CHECK(MPI_Waitall(nreq, requests, MPI_STATUSES_IGNORE));

cleanup:
    return rc;
}

int collsim_generic_tree_reduce(const void *sendbuf, void *recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                int parent, const int *children, int nchildren,
                                const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint lb, extent;
    MPI_Request requests[2] = {MPI_REQUEST_NULL, MPI_REQUEST_NULL};
    void *acc = NULL, *inbuf[2] = {NULL, NULL};

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    COLLSIM_CHECK(MPI_Type_get_extent(datatype, &lb, &extent));
    if (count == 0)
        return MPI_SUCCESS;
    if (nchildren == 0) {
        if (rank == root) /* p == 1 */
            collsim_copy(recvbuf, sendbuf, count, extent);
        else
            rc = MPI_Send(sendbuf, count, datatype, (parent + root) % size, COLLSIM_TAG_REDUCE,
                          comm);
        return rc;
    }

    /* child 0 arrives in the accumulator, child i >= 1 in inbuf[i % 2]: a
     * rank of a chain needs no input buffer, a binary tree's one; shared
     * buffers under timing_only (collsim_buffer_alloc) */
    const size_t nbytes = (size_t)count * (size_t)extent;
    acc = rank == root ? recvbuf : collsim_buffer_alloc(nbytes, params);
    if (nchildren > 1)
        inbuf[1] = collsim_buffer_alloc(nbytes, params);
    if (nchildren > 2)
        inbuf[0] = collsim_buffer_alloc(nbytes, params);
    if (acc == NULL || (nchildren > 1 && inbuf[1] == NULL) ||
        (nchildren > 2 && inbuf[0] == NULL)) {
        rc = MPI_ERR_NO_MEM;
        goto cleanup;
    }
    COLLSIM_CHECK(MPI_Irecv(acc, count, datatype, (children[0] + root) % size, COLLSIM_TAG_REDUCE,
                            comm, &requests[0]));
    for (int i = 1; i <= nchildren; i++) {
        if (i < nchildren)
            COLLSIM_CHECK(MPI_Irecv(inbuf[i % 2], count, datatype, (children[i] + root) % size,
                                    COLLSIM_TAG_REDUCE, comm, &requests[i % 2]));
        COLLSIM_CHECK(MPI_Wait(&requests[(i - 1) % 2], MPI_STATUS_IGNORE));
        /* child 0 arrived in the accumulator: combine my own vector into it;
         * later children arrive in an input buffer, combined into it */
        COLLSIM_CHECK(collsim_reduce_local(i == 1 ? sendbuf : inbuf[(i - 1) % 2], acc, count,
                                           datatype, op, params));
    }
    if (rank != root)
        COLLSIM_CHECK(MPI_Send(acc, count, datatype, (parent + root) % size, COLLSIM_TAG_REDUCE,
                               comm));

cleanup:
    if (acc != recvbuf)
        collsim_buffer_free(acc, params);
    collsim_buffer_free(inbuf[0], params);
    collsim_buffer_free(inbuf[1], params);
    return rc;
}

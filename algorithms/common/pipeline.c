/*
 * pipeline.c: the pipelined tree engine (see pipeline.h).
 *
 * Reduce, at a rank with children c_0..c_{k-1} and blocks 0..B-1:
 *
 *     for s in 0..B-1:
 *         receive block s from c_0  ||  send block s-1 to the parent  (s > 0)
 *         combine
 *         receive block s from c_j, combine                     (j = 1..k-1)
 *     send block B-1 to the parent
 *
 * so a rank sends the previous block up while the next arrives from its first
 * child (full-duplex links carry both at full speed); a leaf just sends block
 * after block.  Bcast is the mirror image:
 *
 *     for s in 0..B:
 *         receive block s from the parent (s < B)  ||  send block s-1 to c_0 (s > 0)
 *         send block s-1 to c_j                                 (j = 1..k-1, s > 0)
 *
 * One flow at a time leaves and enters each rank, so on a contention-free
 * network every message takes alpha + (bytes + envelope) beta and the time is
 * the longest path through these steps; collsim.analysis.schedule evaluates
 * that path for the models.  This is the shape of Open MPI's
 * ompi_coll_base_reduce_generic / bcast_intra_generic (written anew here).
 *
 * Cost (seed 004 (4), (5)): chain (p - 1 + B - 1)(alpha + n/B beta + n/B gamma);
 * binary tree about 2 (h + B - 1)(alpha + n/B beta + n/B gamma).
 */
#include "pipeline.h"
#include "opening.h"
#include "segment.h"
#include "tree.h"

#include "internal.h"

collsim_segment_plan collsim_segment_plan_single(int count)
{
    collsim_segment_plan plan = {count, count > 0 ? 1 : 0, 0};
    return plan;
}

static void *block_at(void *buf, const collsim_segment_plan *plan, int i, MPI_Aint extent)
{
    return collsim_elem(buf, extent, collsim_segment_offset(plan, i));
}

int collsim_tree_reduce_pipelined(const void *sendbuf, void *acc, MPI_Datatype datatype,
                                  MPI_Op op, int rank, const collsim_tree_node *node,
                                  const collsim_segment_plan *plan, MPI_Comm comm, int tag,
                                  const collsim_params *params)
{
    int rc = MPI_SUCCESS;
    MPI_Aint lb, extent;
    void *tmp = NULL;
    const int nblocks = plan->nblocks, parent = node->parent;

    COLLSIM_CHECK(MPI_Type_get_extent(datatype, &lb, &extent));
    collsim_copy(acc, sendbuf, plan->count, extent);
    if (nblocks == 0)
        return MPI_SUCCESS;
    if (node->nchildren > 0) {
        tmp = collsim_buffer_alloc((size_t)collsim_segment_max_elems(plan) * (size_t)extent, params);
        if (tmp == NULL) {
            rc = MPI_ERR_NO_MEM;
            goto cleanup;
        }
    }

    for (int s = 0; s < nblocks; s++) {
        const int n = collsim_segment_elems(plan, s);
        void *block = block_at(acc, plan, s, extent);
        for (int j = 0; j < node->nchildren; j++) {
            const int child = node->children[j];
            MPI_Request req[2];
            int nreq = 0;
            COLLSIM_CHECK(MPI_Irecv(tmp, n, datatype, child, tag, comm, &req[nreq++]));
            if (j == 0 && parent >= 0 && s > 0)
                COLLSIM_CHECK(MPI_Isend(block_at(acc, plan, s - 1, extent),
                                        collsim_segment_elems(plan, s - 1), datatype, parent, tag,
                                        comm, &req[nreq++]));
            COLLSIM_CHECK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
            if (child < rank) {
                COLLSIM_CHECK(collsim_reduce_local(tmp, block, n, datatype, op, params));
            } else {
                COLLSIM_CHECK(collsim_reduce_local(block, tmp, n, datatype, op, params));
                collsim_copy(block, tmp, n, extent);
            }
        }
        if (parent >= 0 && node->nchildren == 0)
            COLLSIM_CHECK(MPI_Send(block, n, datatype, parent, tag, comm));
    }
    if (parent >= 0 && node->nchildren > 0)
        COLLSIM_CHECK(MPI_Send(block_at(acc, plan, nblocks - 1, extent),
                               collsim_segment_elems(plan, nblocks - 1), datatype, parent, tag,
                               comm));

cleanup:
    collsim_buffer_free(tmp, params);
    return rc;
}

int collsim_tree_bcast_pipelined(void *buffer, MPI_Datatype datatype,
                                 const collsim_tree_node *node, const collsim_segment_plan *plan,
                                 MPI_Comm comm, int tag)
{
    int rc = MPI_SUCCESS;
    MPI_Aint lb, extent;
    const int nblocks = plan->nblocks, parent = node->parent;

    COLLSIM_CHECK(MPI_Type_get_extent(datatype, &lb, &extent));
    if (nblocks == 0 || (parent < 0 && node->nchildren == 0))
        return MPI_SUCCESS;
    for (int s = 0; s <= nblocks; s++) {
        MPI_Request req[2];
        int nreq = 0;
        if (parent >= 0 && s < nblocks)
            COLLSIM_CHECK(MPI_Irecv(block_at(buffer, plan, s, extent),
                                    collsim_segment_elems(plan, s), datatype, parent, tag, comm,
                                    &req[nreq++]));
        if (node->nchildren > 0 && s > 0)
            COLLSIM_CHECK(MPI_Isend(block_at(buffer, plan, s - 1, extent),
                                    collsim_segment_elems(plan, s - 1), datatype,
                                    node->children[0], tag, comm, &req[nreq++]));
        COLLSIM_CHECK(MPI_Waitall(nreq, req, MPI_STATUSES_IGNORE));
        for (int j = 1; j < node->nchildren && s > 0; j++)
            COLLSIM_CHECK(MPI_Send(block_at(buffer, plan, s - 1, extent),
                                   collsim_segment_elems(plan, s - 1), datatype, node->children[j],
                                   tag, comm));
    }

cleanup:
    return rc;
}

int collsim_tree_steady_steps(collsim_tree_kind kind)
{
    return kind == COLLSIM_TREE_CHAIN ? 1 : 2;
}

static collsim_segment_plan plan_for(const collsim_tree_node *node, collsim_tree_kind kind,
                                     int count, MPI_Aint extent, const collsim_params *params,
                                     int segmented)
{
    if (!segmented)
        return collsim_segment_plan_single(count);
    const double steady = collsim_tree_steady_steps(kind);
    return collsim_segment_plan_make(count, (int)extent, params, steady * node->height, steady);
}

int collsim_reduce_along_tree(const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                              const collsim_params *params, collsim_tree_kind kind, int segmented)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint extent;
    void *scratch = NULL;
    collsim_tree_node node;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    if (count == 0)
        return MPI_SUCCESS;
    if (collsim_tree_build(kind, rank, size, root, &node) != 0)
        return MPI_ERR_ARG;
    const int tree_root = kind == COLLSIM_TREE_IN_ORDER_BINARY ? collsim_tree_in_order_root(size)
                                                                : root;
    const collsim_segment_plan plan = plan_for(&node, kind, count, extent, params, segmented);
    void *acc = recvbuf;
    if (rank != root) {
        scratch = collsim_buffer_alloc((size_t)count * (size_t)extent, params);
        if (scratch == NULL) {
            rc = MPI_ERR_NO_MEM;
            goto cleanup;
        }
        acc = scratch;
    }
    COLLSIM_CHECK(collsim_tree_reduce_pipelined(sendbuf, acc, datatype, op, rank, &node, &plan,
                                                comm, COLLSIM_TAG_REDUCE, params));
    if (tree_root != root && rank == tree_root)
        COLLSIM_CHECK(MPI_Send(acc, count, datatype, root, COLLSIM_TAG_REDUCE, comm));
    else if (tree_root != root && rank == root)
        COLLSIM_CHECK(MPI_Recv(recvbuf, count, datatype, tree_root, COLLSIM_TAG_REDUCE, comm,
                               MPI_STATUS_IGNORE));

cleanup:
    collsim_buffer_free(scratch, params);
    return rc;
}

int collsim_bcast_along_tree(void *buffer, int count, MPI_Datatype datatype, int root,
                             MPI_Comm comm, const collsim_params *params, collsim_tree_kind kind,
                             int segmented)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint extent;
    collsim_tree_node node;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    if (count == 0)
        return MPI_SUCCESS;
    if (collsim_tree_build(kind, rank, size, root, &node) != 0)
        return MPI_ERR_ARG;
    const collsim_segment_plan plan = plan_for(&node, kind, count, extent, params, segmented);
    COLLSIM_CHECK(collsim_tree_bcast_pipelined(buffer, datatype, &node, &plan, comm,
                                               COLLSIM_TAG_BCAST));
cleanup:
    return rc;
}

int collsim_allreduce_along_in_order_tree(const void *sendbuf, void *recvbuf, int count,
                                          MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                          const collsim_params *params, int segmented)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint extent;
    collsim_tree_node node;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    if (count == 0)
        return MPI_SUCCESS;
    if (collsim_tree_build(COLLSIM_TREE_IN_ORDER_BINARY, rank, size, 0, &node) != 0)
        return MPI_ERR_ARG;
    const collsim_segment_plan plan =
        segmented ? collsim_segment_plan_make(count, (int)extent, params, 4.0 * node.height, 4.0)
                  : collsim_segment_plan_single(count);
    COLLSIM_CHECK(collsim_tree_reduce_pipelined(sendbuf, recvbuf, datatype, op, rank, &node, &plan,
                                                comm, COLLSIM_TAG_ALLREDUCE, params));
    COLLSIM_CHECK(collsim_tree_bcast_pipelined(recvbuf, datatype, &node, &plan, comm,
                                               COLLSIM_TAG_ALLREDUCE));
cleanup:
    return rc;
}

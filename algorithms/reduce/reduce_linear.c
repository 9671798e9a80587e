/*
 * reduce_linear.c: flat (linear) reduce.
 *
 * Every non-root rank sends its vector to the root.  The root receives them
 * one after the other in rank order, with blocking receives, and folds each
 * into the accumulator in rank order: ((x0 op x1) op x2) ... op x(p-1), its
 * own vector taking its place in the sequence.  Receiving in order keeps the
 * result independent of arrival order and makes the op order that of the
 * ranks, so non-commutative ops are supported.
 *
 *          root
 *       /  |  |  \          every arrow one message, served one at a time
 *      0   1  .. p-1
 *
 * Restrictions: none.
 * Reference: seed 004 formulas (1) and (3) (flat tree; Open MPI "linear").
 * Cost:      (p - 1) (alpha + n beta + n gamma)
 */
#include "common/internal.h"
#include "common/opening.h"
#include "common/scratch.h"

int collsim_reduce_linear(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                          MPI_Op op, int root, MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint extent;
    void *acc = NULL, *tmp = NULL;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    if (count == 0)
        return MPI_SUCCESS;

    if (rank != root)
        return MPI_Send(sendbuf, count, datatype, root, COLLSIM_TAG_REDUCE, comm);

    COLLSIM_CHECK(collsim_buffer_pair(count, extent, params, &acc, &tmp));
    if (root == 0)
        collsim_copy(acc, sendbuf, count, extent);
    else
        COLLSIM_CHECK(MPI_Recv(acc, count, datatype, 0, COLLSIM_TAG_REDUCE, comm,
                               MPI_STATUS_IGNORE));

    for (int src = 1; src < size; src++) {
        if (src == root)
            collsim_copy(tmp, sendbuf, count, extent);
        else
            COLLSIM_CHECK(MPI_Recv(tmp, count, datatype, src, COLLSIM_TAG_REDUCE, comm,
                                   MPI_STATUS_IGNORE));
        /* acc = acc op tmp: everything combined so far is the left operand */
        COLLSIM_CHECK(collsim_accumulate(&acc, &tmp, count, datatype, op, params));
    }
    collsim_copy(recvbuf, acc, count, extent);

cleanup:
    collsim_buffer_free(acc, params);
    collsim_buffer_free(tmp, params);
    return rc;
}

/*
 * reduce_scatter_recursive_doubling.c: MPICH's recursive-doubling
 * reduce-scatter, any p and any op.
 *
 * Ranks form subtrees of 1, 2, 4, ... consecutive ranks.  In step
 * mask = 1, 2, 4, ... rank v exchanges with v xor mask: it sends, of its
 * partial (the sum over its subtree of `mask` ranks), every block outside
 * that subtree, and receives the partner subtree's partial of every block
 * outside the partner's subtree: a subtree's own blocks are needed by no
 * rank outside it.  After ceil(lg p) steps rank v holds block v summed over
 * all ranks: few messages (lg p), much data (n (p lg p - p + 1) per rank).
 *
 *     p = 4:  mask 1: 0 <-> 1: 0 sends blocks {1,2,3}, 1 sends {0,2,3}   (2 <-> 3 alike)
 *             mask 2: 0 <-> 2: 0 sends {2,3}, 2 sends {0,1}             (1 <-> 3 alike)
 *
 * Other p: a rank whose partner does not exist (v xor mask >= p) gets the
 * same data as its subtree's ranks that have one: those ranks forward what
 * they received down a recursive halving inside the subtree (MPICH's
 * "nprocs_completed"), before anyone combines.
 *
 * Each message is one indexed datatype of two runs of blocks (before and
 * after the subtree), as in MPICH.  The lower subtree's partial is the left
 * operand (for a commutative op the received partial always is, as in MPICH), so
 * non-commutative ops are combined in rank order.
 *
 * Restrictions: none.
 * Reference: MPICH 4.1 MPIR_Reduce_scatter_block_intra_recursive_doubling;
 *            Thakur, Rabenseifner & Gropp, IJHPCA 19(1), 2005
 *            (Reduce-Scatter); Open MPI 4.1
 *            ompi_coll_base_reduce_scatter_block_intra_recursivedoubling has
 *            the same messages.
 * Cost:      p = 2^k: lg p alpha + (p lg p - p + 1) n (beta + gamma);
 *            other p add the forwarding sends (the model replays it).
 */
#include "common/internal.h"
#include "common/opening.h"
#include "common/scratch.h"

/* Blocks outside the subtree [root, root + mask) of p blocks of n elements:
 * the runs [0, root) and [root + mask, p), clipped to p. */
static int outside_type(int root, int mask, int size, int n, MPI_Datatype datatype,
                        MPI_Datatype *type, int lens[2], int displs[2])
{
    const int lo = root < size ? root : size;
    const int hi = root + mask < size ? root + mask : size;
    lens[0] = lo * n;
    lens[1] = (size - hi) * n;
    displs[0] = 0;
    displs[1] = hi * n;
    int rc = MPI_Type_indexed(2, lens, displs, datatype, type);
    return rc != MPI_SUCCESS ? rc : MPI_Type_commit(type);
}

/* MPICH's forwarding inside a subtree whose partner subtree is incomplete:
 * the ranks of the subtree that had a partner pass on what they received. */
static int forward(void *received, MPI_Datatype recvtype, int rank, int size, int mask,
                   MPI_Comm comm, int *got)
{
    const int my_root = rank & ~(mask - 1);
    const int completed = size - my_root - mask;
    for (int half = mask >> 1; half > 0; half >>= 1) {
        const int dst = rank ^ half, tree_root = rank & ~(2 * half - 1);
        int rc = MPI_SUCCESS;
        if (dst > rank && rank < tree_root + completed && dst >= tree_root + completed) {
            rc = MPI_Send(received, 1, recvtype, dst, COLLSIM_TAG_REDUCE_SCATTER, comm);
        } else if (dst < rank && dst < tree_root + completed &&
                   rank >= tree_root + completed) {
            rc = MPI_Recv(received, 1, recvtype, dst, COLLSIM_TAG_REDUCE_SCATTER, comm,
                          MPI_STATUS_IGNORE);
            *got = 1;
        }
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* One step of distance mask: exchange, forward, combine. */
static int step(void *results, void *received, int rank, int size, int n, int mask,
                int commutative, MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                MPI_Aint extent, const collsim_params *params)
{
    int rc = MPI_SUCCESS, got = 0;
    int send_lens[2], send_displs[2], lens[2], displs[2];
    MPI_Datatype sendtype = MPI_DATATYPE_NULL, recvtype = MPI_DATATYPE_NULL;
    const int dst = rank ^ mask;
    const int my_root = rank & ~(mask - 1), dst_root = dst & ~(mask - 1);

    COLLSIM_CHECK(outside_type(my_root, mask, size, n, datatype, &sendtype, send_lens,
                               send_displs));
    COLLSIM_CHECK(outside_type(dst_root, mask, size, n, datatype, &recvtype, lens, displs));
    if (dst < size) {
        COLLSIM_CHECK(MPI_Sendrecv(results, 1, sendtype, dst, COLLSIM_TAG_REDUCE_SCATTER,
                                   received, 1, recvtype, dst, COLLSIM_TAG_REDUCE_SCATTER, comm,
                                   MPI_STATUS_IGNORE));
        got = 1;
    }
    if (dst_root + mask > size)
        COLLSIM_CHECK(forward(received, recvtype, rank, size, mask, comm, &got));
    for (int run = 0; got && run < 2; run++) {
        void *mine = collsim_elem(results, extent, displs[run]);
        void *theirs = collsim_elem(received, extent, displs[run]);
        if (commutative || dst_root < my_root) {
            COLLSIM_CHECK(collsim_reduce_local(theirs, mine, lens[run], datatype, op, params));
        } else {
            /* the partner's subtree is higher: my partial on the left */
            COLLSIM_CHECK(collsim_reduce_local(mine, theirs, lens[run], datatype, op, params));
            collsim_copy(mine, theirs, lens[run], extent);
        }
    }

cleanup:
    if (sendtype != MPI_DATATYPE_NULL)
        MPI_Type_free(&sendtype);
    if (recvtype != MPI_DATATYPE_NULL)
        MPI_Type_free(&recvtype);
    return rc;
}

int collsim_reduce_scatter_recursive_doubling(const void *sendbuf, void *recvbuf, int recvcount,
                                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                              const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, commutative;
    MPI_Aint extent;
    void *results = NULL, *received = NULL;

    COLLSIM_CHECK(collsim_open_blocks(comm, datatype, recvcount, &rank, &size, &extent));
    if (recvcount == 0)
        return MPI_SUCCESS;
    COLLSIM_CHECK(MPI_Op_commutative(op, &commutative));
    const int count = recvcount * size;
    COLLSIM_CHECK(collsim_buffer_pair(count, extent, params, &results, &received));
    collsim_copy(results, sendbuf, count, extent);
    for (int mask = 1; mask < size; mask <<= 1)
        COLLSIM_CHECK(step(results, received, rank, size, recvcount, mask, commutative, datatype,
                           op, comm, extent, params));
    collsim_copy(recvbuf, collsim_elem(results, extent, rank * recvcount), recvcount, extent);

cleanup:
    collsim_buffer_free(results, params);
    collsim_buffer_free(received, params);
    return rc;
}

/*
 * scatter_binomial.c: binomial-tree scatter, the mirror of gather_binomial.c.
 *
 * Ranks are numbered from the root, v = (rank - root) mod p; rank v's
 * subtree is v .. v + span - 1, span = min(lowest set bit of v, p - v) (the
 * root's: all p).  Rank v receives its subtree's span blocks from its parent
 * v - lowest set bit, keeps the first, and sends each child v + m its
 * min(m, p - v - m) blocks, farthest child first (m = the largest power of
 * two below span, ..., 2, 1), so the largest subtree starts earliest.  A
 * leaf receives straight into recvbuf.  The root sends from sendbuf when it
 * is rank 0; otherwise from a copy rotated into v order (a local copy).
 *
 *     p = 8:  step 1:  0 -> 4                               4 blocks
 *             step 2:  0 -> 2   4 -> 6                      2 blocks
 *             step 3:  0 -> 1   2 -> 3   4 -> 5   6 -> 7    1 block each
 *
 * Every send and receive is blocking.  The root's sends are the critical
 * path: the child sent m blocks finishes its subtree in the time the root
 * takes to send its remaining m - 1 blocks (both trees are alike), and a
 * truncated first subtree (p not a power of two) finishes earlier still.
 *
 * Restrictions: none.
 * Reference: Open MPI 4.1 coll/base ompi_coll_base_scatter_intra_binomial
 *            (in-order binomial tree, children sent farthest first); MPICH
 *            4.0 MPIR_Scatter_intra_binomial: the same messages, and its
 *            header's cost lg p alpha + n (p-1)/p beta (n there: all p
 *            blocks).
 * Cost:      ceil(lg p) alpha + (p - 1) n beta   (n: one block; any p)
 */
#include "common/blockcopy.h"
#include "common/internal.h"

#include <limits.h>

/* The number of ranks in v's subtree of a binomial tree of size ranks. */
static int subtree_span(int v, int size)
{
    if (v == 0)
        return size;
    const int lowbit = v & -v;
    return lowbit < size - v ? lowbit : size - v;
}

/* The root's p blocks in v order: sendbuf itself at rank 0, else a rotated
 * copy in *scratch. */
static int root_blocks(const void *sendbuf, int count, MPI_Datatype type, MPI_Aint block,
                       int root, int size, const collsim_params *params, char **scratch,
                       const char **work)
{
    *work = sendbuf;
    if (root == 0)
        return MPI_SUCCESS;
    *scratch = collsim_buffer_alloc((size_t)size * (size_t)block, params);
    if (*scratch == NULL)
        return MPI_ERR_NO_MEM;
    const int tail = size - root; /* ranks root .. size - 1: v = 0 .. tail - 1 */
    int rc = collsim_block_copy((const char *)sendbuf + (MPI_Aint)root * block, tail * count, type,
                                *scratch, tail * count, type);
    if (rc == MPI_SUCCESS)
        rc = collsim_block_copy(sendbuf, root * count, type, *scratch + (MPI_Aint)tail * block,
                                root * count, type);
    *work = *scratch;
    return rc;
}

int collsim_scatter_binomial(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                             void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                             MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    char *scratch = NULL;
    const char *work;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    const int is_root = rank == root;
    /* sendtype and sendcount count only at the root; elsewhere the blocks
     * travel as recvtype */
    const int count = is_root ? sendcount : recvcount;
    const MPI_Datatype type = is_root ? sendtype : recvtype;
    if (count == 0)
        return MPI_SUCCESS; /* every block is empty: nothing to copy or send */
    const int v = (rank - root + size) % size;
    const int span = subtree_span(v, size);
    if ((long long)size * count > INT_MAX) /* every rank refuses alike */
        return MPI_ERR_COUNT;
    const int parent = (v - (v & -v) + root) % size;
    if (span == 1 && !is_root)
        return MPI_Recv(recvbuf, recvcount, recvtype, parent, COLLSIM_TAG_SCATTER, comm,
                        MPI_STATUS_IGNORE);

    const MPI_Aint block = collsim_block_extent(count, type);
    if (is_root) {
        COLLSIM_CHECK(root_blocks(sendbuf, count, type, block, root, size, params, &scratch,
                                  &work));
    } else {
        scratch = collsim_buffer_alloc((size_t)span * (size_t)block, params);
        if (scratch == NULL)
            return MPI_ERR_NO_MEM;
        COLLSIM_CHECK(MPI_Recv(scratch, span * count, type, parent, COLLSIM_TAG_SCATTER, comm,
                               MPI_STATUS_IGNORE));
        work = scratch;
    }
    COLLSIM_CHECK(collsim_block_copy(work, count, type, recvbuf, recvcount, recvtype));
    for (int mask = span > 1 ? collsim_pow2_floor(span - 1) : 0; mask > 0; mask >>= 1) {
        const int child = v + mask;
        const int blocks = mask < size - child ? mask : size - child;
        COLLSIM_CHECK(MPI_Send(work + (MPI_Aint)mask * block, blocks * count, type,
                               (child + root) % size, COLLSIM_TAG_SCATTER, comm));
    }

cleanup:
    collsim_buffer_free(scratch, params);
    return rc;
}

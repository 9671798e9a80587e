/*
 * gather_binomial.c: binomial-tree gather.
 *
 * Ranks are numbered from the root, v = (rank - root) mod p.  Rank v's
 * subtree is v .. v + span - 1, span = min(lowest set bit of v, p - v) (the
 * root's: all p).  Rank v receives its children's subtrees nearest child
 * first: child v + m for m = 1, 2, 4, ... < span sends its min(m, p - v - m)
 * blocks, which land after the ones already held, so a rank holds its
 * subtree's blocks in v order; then it sends all span of them to its parent
 * v - lowest set bit.  A leaf sends straight from sendbuf.  The root
 * receives into recvbuf when it is rank 0; otherwise into a scratch buffer
 * in v order, rotated into rank order at the end (a local copy).
 *
 *     p = 8:  step 1:  1 -> 0   3 -> 2   5 -> 4   7 -> 6     1 block each
 *             step 2:  2 -> 0   6 -> 4                      2 blocks
 *             step 3:  4 -> 0                               4 blocks
 *
 * Every send and receive is blocking.  The root's receives are the critical
 * path: child v + m has gathered its m blocks at the very time the root has
 * gathered its first m (both trees are alike), and a truncated last subtree
 * (p not a power of two) is done earlier still.
 *
 * Restrictions: none.
 * Reference: Open MPI 4.1 coll/base ompi_coll_base_gather_intra_binomial
 *            (the in-order binomial tree of
 *            ompi_coll_base_topo_build_in_order_bmtree: children nearest
 *            first); MPICH 4.0 MPIR_Gather_intra_binomial: the same
 *            messages, and its header's cost lg p alpha + n (p-1)/p beta
 *            (n there: all p blocks).
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

/* Copies the root's blocks, held in v order in work, into rank order. */
static int rotate_into(void *recvbuf, const char *work, int root, int size, int count,
                       MPI_Datatype type, MPI_Aint block)
{
    const int tail = size - root; /* ranks root .. size - 1: v = 0 .. tail - 1 */
    int rc = collsim_block_copy(work, tail * count, type, (char *)recvbuf + (MPI_Aint)root * block,
                                tail * count, type);
    if (rc != MPI_SUCCESS)
        return rc;
    return collsim_block_copy(work + (MPI_Aint)tail * block, root * count, type, recvbuf,
                              root * count, type);
}

int collsim_gather_binomial(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                            void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                            MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    char *scratch = NULL;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    const int is_root = rank == root;
    /* recvtype and recvcount count only at the root; elsewhere the blocks
     * travel as sendtype */
    const int count = is_root ? recvcount : sendcount;
    const MPI_Datatype type = is_root ? recvtype : sendtype;
    if (count == 0)
        return MPI_SUCCESS; /* every block is empty: nothing to copy or send */
    const int v = (rank - root + size) % size;
    const int span = subtree_span(v, size);
    if ((long long)size * count > INT_MAX) /* every rank refuses alike */
        return MPI_ERR_COUNT;
    const MPI_Aint block = collsim_block_extent(count, type);
    const char *work = sendbuf; /* a leaf sends its block as it is */
    if (span > 1 || is_root) {
        char *into = (char *)recvbuf;
        if (!(is_root && root == 0)) {
            scratch = collsim_buffer_alloc((size_t)span * (size_t)block, params);
            if (scratch == NULL)
                return MPI_ERR_NO_MEM;
            into = scratch;
        }
        COLLSIM_CHECK(collsim_block_copy(sendbuf, sendcount, sendtype, into, count, type));
        for (int mask = 1; mask < span; mask <<= 1) {
            const int child = v + mask;
            const int blocks = mask < size - child ? mask : size - child;
            COLLSIM_CHECK(MPI_Recv(into + (MPI_Aint)mask * block, blocks * count, type,
                                   (child + root) % size, COLLSIM_TAG_GATHER, comm,
                                   MPI_STATUS_IGNORE));
        }
        work = into;
    }
    if (!is_root)
        COLLSIM_CHECK(MPI_Send(work, span * count, type, (v - (v & -v) + root) % size,
                               COLLSIM_TAG_GATHER, comm));
    else if (root != 0)
        COLLSIM_CHECK(rotate_into(recvbuf, work, root, size, count, type, block));

cleanup:
    collsim_buffer_free(scratch, params);
    return rc;
}

/*
 * reduce_binomial.c: binomial-tree reduce.
 *
 * Ranks are numbered relative to the tree's root v = (rank - tree_root) mod p.
 * In round k (mask = 2^k) a rank whose bit k is set sends its partial result
 * to v - mask and is done; the others receive from v + mask, if it exists, and
 * combine.  After ceil(lg p) rounds the tree's root holds the result.
 *
 *     round:  mask=1     mask=2     mask=4          p = 8
 *             0 <- 1     0 <- 2     0 <- 4
 *             2 <- 3     4 <- 6
 *             4 <- 5
 *             6 <- 7
 *
 * Operand order: a partial result covers the contiguous range [v, v + mask)
 * and the receiver's range lies left of the sender's, so the receiver
 * computes own op received.  With the tree rooted at rank 0 that is rank
 * order.  Commutative ops root the tree at the root; non-commutative ops root
 * it at rank 0 and, when the root is not 0, rank 0 sends the result to the
 * root (one extra message, as MPICH does).
 *
 * Restrictions: none.
 * Reference: R. Thakur, R. Rabenseifner, W. Gropp, "Optimization of collective
 *            communication operations in MPICH", IJHPCA 19(1), 2005;
 *            seed 004 formula (6).
 * Cost:      ceil(lg p) (alpha + n beta + n gamma)
 *            + [op not commutative and root != 0] (alpha + n beta)
 */
#include "common/internal.h"
#include "common/opening.h"
#include "common/scratch.h"

int collsim_reduce_binomial(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                            MPI_Op op, int root, MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, commutative;
    MPI_Aint extent;
    void *acc = NULL, *tmp = NULL;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    COLLSIM_CHECK(MPI_Op_commutative(op, &commutative));
    if (count == 0)
        return MPI_SUCCESS;

    const int tree_root = commutative ? root : 0;
    const int vrank = (rank - tree_root + size) % size;
    COLLSIM_CHECK(collsim_buffer_pair(count, extent, params, &acc, &tmp));
    collsim_copy(acc, sendbuf, count, extent);

    for (int mask = 1; mask < size; mask <<= 1) {
        if (vrank & mask) {
            int parent = (vrank - mask + tree_root) % size;
            COLLSIM_CHECK(MPI_Send(acc, count, datatype, parent, COLLSIM_TAG_REDUCE, comm));
            break;
        }
        if (vrank + mask < size) {
            int child = (vrank + mask + tree_root) % size;
            COLLSIM_CHECK(MPI_Recv(tmp, count, datatype, child, COLLSIM_TAG_REDUCE, comm,
                                   MPI_STATUS_IGNORE));
            /* acc = acc op tmp: the own partial is the left operand */
            COLLSIM_CHECK(collsim_accumulate(&acc, &tmp, count, datatype, op, params));
        }
    }

    if (rank == tree_root && tree_root == root) {
        collsim_copy(recvbuf, acc, count, extent);
    } else if (rank == tree_root) {
        COLLSIM_CHECK(MPI_Send(acc, count, datatype, root, COLLSIM_TAG_REDUCE, comm));
    } else if (rank == root) {
        COLLSIM_CHECK(MPI_Recv(recvbuf, count, datatype, tree_root, COLLSIM_TAG_REDUCE, comm,
                               MPI_STATUS_IGNORE));
    }

cleanup:
    collsim_buffer_free(acc, params);
    collsim_buffer_free(tmp, params);
    return rc;
}

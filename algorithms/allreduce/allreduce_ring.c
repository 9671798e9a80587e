/*
 * allreduce_ring.c: ring allreduce (reduce-scatter + allgather on a ring).
 *
 * The vector is cut into p blocks (the first count mod p one element longer).
 * Reduce-scatter: in step k = 0 .. p-2 rank i sends block (i - k) mod p to
 * rank i+1 and receives block (i - k - 1) mod p from rank i-1, which it
 * combines into its own copy; afterwards rank i holds the full result of
 * block (i + 1) mod p.  Allgather: in step k rank i passes block
 * (i + 1 - k) mod p to rank i+1 and receives block (i - k) mod p.
 *
 *     0 -> 1 -> 2 -> ... -> p-1 -> 0      every step, every rank sends one
 *                                         block and receives one block
 *
 * A block is combined in ring order starting after its owner, not in rank
 * order, hence the restriction.
 *
 * Restrictions: commutative op.
 * Reference: seed 001 sec. 2.7 (the allgather part; the reduce-scatter uses
 *            the ring instead of pairwise exchange); Patarasuk & Yuan, JPDC
 *            69(2), 2009; MPICH allreduce_intra_ring.
 * Cost:      2 (p - 1) alpha + 2 (p - 1) n/p beta + (p - 1) n/p gamma,
 *            with n/p the largest block when p does not divide the count
 */
#include "common/blocks.h"
#include "common/internal.h"
#include "common/opening.h"

int collsim_allreduce_ring(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                           MPI_Op op, MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Aint extent;
    void *tmp = NULL;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    if (count == 0)
        return MPI_SUCCESS;

    collsim_copy(recvbuf, sendbuf, count, extent);
    if (size == 1)
        return MPI_SUCCESS;

    tmp = collsim_buffer_alloc((size_t)collsim_block_count(count, size, 0) * (size_t)extent + 1, params);
    if (tmp == NULL)
        return MPI_ERR_NO_MEM;
    const int right = (rank + 1) % size;
    const int left = (rank - 1 + size) % size;

    /* reduce-scatter: rank ends with block rank + 1 */
    COLLSIM_CHECK(collsim_ring_reduce_scatter(recvbuf, tmp, count, right, datatype, op, comm,
                                              COLLSIM_TAG_ALLREDUCE, params));

    for (int step = 0; step < size - 1; step++) {
        const int send_block = (rank + 1 - step + size) % size;
        const int recv_block = (rank - step + size) % size;
        COLLSIM_CHECK(MPI_Sendrecv(
            collsim_elem(recvbuf, extent, collsim_block_offset(count, size, send_block)),
            collsim_block_count(count, size, send_block), datatype, right, COLLSIM_TAG_ALLREDUCE,
            collsim_elem(recvbuf, extent, collsim_block_offset(count, size, recv_block)),
            collsim_block_count(count, size, recv_block), datatype, left, COLLSIM_TAG_ALLREDUCE,
            comm, MPI_STATUS_IGNORE));
    }

cleanup:
    collsim_buffer_free(tmp, params);
    return rc;
}

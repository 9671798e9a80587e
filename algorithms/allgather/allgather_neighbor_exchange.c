/*
 * allgather_neighbor_exchange.c: neighbor-exchange allgather (Chen et al.),
 * Open MPI's neighborexchange.
 *
 * p even.  Ranks pair up with a neighbour, alternately the one on each
 * side: an even rank r exchanges with r + 1 at steps 0, 2, 4, ... and with
 * r - 1 at steps 1, 3, ...; an odd rank the other way round.  Step 0 swaps
 * the ranks' own blocks; every later step passes on the two blocks received
 * in the step before (an even-aligned pair, contiguous in recvbuf), so
 * after p/2 steps (MPI_Sendrecv each) every rank holds all p blocks.
 *
 *     p = 6:  step 0:  0 <-> 1  2 <-> 3  4 <-> 5   1 block each way
 *             step 1:  1 <-> 2  3 <-> 4  5 <-> 0   2 blocks
 *             step 2:  0 <-> 1  2 <-> 3  4 <-> 5   2 blocks
 *
 * Restrictions: p odd runs the ring allgather instead (allgather_ring.c),
 * as Open MPI does: said here, in registry.def and in the model, whose
 * time is then the ring's.
 * Reference: Chen, Lu, Lin & Wang, "Performance evaluation of allgather
 *            algorithms on terascale Linux cluster with fast Ethernet",
 *            HPCAsia 2005; Open MPI 4.1
 *            ompi_coll_base_allgather_intra_neighborexchange.
 * Cost:      p even: (alpha + n beta) + (p/2 - 1) (alpha + 2 n beta)
 *            p odd:  (p - 1) (alpha + n beta), the ring's   (n: one block)
 */
#include "common/blockcopy.h"
#include "common/internal.h"

#include <limits.h>

int collsim_allgather_neighbor_exchange(const void *sendbuf, int sendcount,
                                        MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                        MPI_Datatype recvtype, MPI_Comm comm,
                                        const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    if (size % 2)
        return collsim_allgather_ring(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype,
                                      comm, params);
    const MPI_Aint block = collsim_block_extent(recvcount, recvtype);
    COLLSIM_CHECK(collsim_block_copy(sendbuf, sendcount, sendtype,
                                     (char *)recvbuf + (MPI_Aint)rank * block, recvcount,
                                     recvtype));
    if (recvcount == 0)
        return MPI_SUCCESS;
    if ((long long)2 * recvcount > INT_MAX)
        return MPI_ERR_COUNT;

    const int even = rank % 2 == 0;
    /* neighbour[s % 2]: the partner of step s; pair[s % 2]: the first block of
     * the pair received from it, moving by `stride` each time */
    const int neighbour[2] = {even ? (rank + 1) % size : rank - 1,
                              even ? (rank - 1 + size) % size : (rank + 1) % size};
    const int stride[2] = {even ? 2 : -2, even ? -2 : 2};
    int pair[2] = {even ? rank : rank - 1, even ? rank : rank - 1};

    COLLSIM_CHECK(MPI_Sendrecv((char *)recvbuf + (MPI_Aint)rank * block, recvcount, recvtype,
                               neighbour[0], COLLSIM_TAG_ALLGATHER,
                               (char *)recvbuf + (MPI_Aint)neighbour[0] * block, recvcount,
                               recvtype, neighbour[0], COLLSIM_TAG_ALLGATHER, comm,
                               MPI_STATUS_IGNORE));
    int send_pair = pair[0]; /* after step 0 this rank holds the pair rank & ~1 */
    for (int step = 1; step < size / 2; step++) {
        const int side = step % 2;
        pair[side] = (pair[side] + stride[side] + size) % size;
        COLLSIM_CHECK(MPI_Sendrecv((char *)recvbuf + (MPI_Aint)send_pair * block,
                                   2 * recvcount, recvtype, neighbour[side],
                                   COLLSIM_TAG_ALLGATHER,
                                   (char *)recvbuf + (MPI_Aint)pair[side] * block,
                                   2 * recvcount, recvtype, neighbour[side],
                                   COLLSIM_TAG_ALLGATHER, comm, MPI_STATUS_IGNORE));
        send_pair = pair[side];
    }

cleanup:
    return rc;
}

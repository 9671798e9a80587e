/*
 * alltoall_bruck.c: Bruck's alltoall (index) algorithm, radix 2.
 *
 * Three phases on a scratch buffer of p blocks (in the receive datatype):
 *
 *   1. rotation: scratch block i = the block this rank sends to rank + i;
 *   2. for distance d = 1, 2, 4, ... < p: send the scratch blocks whose index
 *      has bit d set, packed into one message (an indexed datatype), to
 *      rank + d, receive the same blocks from rank - d (into recvbuf, then
 *      copied back over the sent ones);
 *   3. inverse rotation: recvbuf block (rank - i) mod p = scratch block i.
 *
 * A block of index i moves by the bits of i, i ranks in all: after phase 2
 * scratch block i of rank r is rank r - i's block for r.  Step d carries
 * the blocks i in 1 .. p - 1 with i & d, so ceil(lg p) messages instead of
 * p - 1, at the price of about (p/2) lg p blocks through each link.
 *
 *     p = 5, blocks per step:  d = 1: {1, 3}   d = 2: {2, 3}   d = 4: {4}
 *
 * Restrictions: none (any p).
 * Reference: Bruck, Ho, Kipnis, Upfal & Weathersby, "Efficient algorithms
 *            for all-to-all communications in multiport message-passing
 *            systems", IEEE TPDS 8(11), 1997 (the index algorithm, r = 2);
 *            Open MPI 4.1 ompi_coll_base_alltoall_intra_bruck (its
 *            "modified_bruck": the same rotations and steps, received into
 *            rbuf and copied back); MPICH 4.0 MPIR_Alltoall_intra_brucks
 *            (the same blocks per step, its rotations in the other order);
 *            Thakur, Rabenseifner & Gropp, IJHPCA 2005, sec. 3.6.
 * Cost:      sum over k < ceil(lg p) of (alpha + c_k n beta), with
 *            c_k = #{i in 1 .. p - 1 : bit k of i is set} (p/2 for a power
 *            of two): lg p alpha + (p/2) lg p n beta
 */
#include "common/blockcopy.h"
#include "common/internal.h"

/* Step `distance`'s blocks (index i in 1 .. size - 1 with i & distance) as
 * one indexed datatype of `block` elements of `datatype` per block. */
static int step_type(int size, int distance, int block, MPI_Datatype datatype, int *displs,
                     MPI_Datatype *type)
{
    int n = 0;
    for (int i = 1; i < size; i++)
        if (i & distance)
            displs[n++] = i * block;
    int rc = MPI_Type_create_indexed_block(n, block, displs, datatype, type);
    if (rc == MPI_SUCCESS && (rc = MPI_Type_commit(type)) != MPI_SUCCESS)
        MPI_Type_free(type);
    return rc;
}

int collsim_alltoall_bruck(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                           void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                           const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, *displs = NULL;
    char *scratch = NULL;
    MPI_Datatype blocks = MPI_DATATYPE_NULL;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    const MPI_Aint send_block = collsim_block_extent(sendcount, sendtype);
    const MPI_Aint recv_block = collsim_block_extent(recvcount, recvtype);
    if (size == 1 || recvcount == 0)
        return collsim_block_copy(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype);
    scratch = collsim_buffer_alloc((size_t)size * (size_t)recv_block, params);
    displs = malloc(sizeof(int) * (size_t)size);
    if (scratch == NULL || displs == NULL) {
        rc = MPI_ERR_NO_MEM;
        goto cleanup;
    }
    for (int i = 0; i < size; i++)
        COLLSIM_CHECK(collsim_block_copy(
            (const char *)sendbuf + (MPI_Aint)((rank + i) % size) * send_block, sendcount,
            sendtype, scratch + (MPI_Aint)i * recv_block, recvcount, recvtype));
    for (int distance = 1; distance < size; distance *= 2) {
        const int to = (rank + distance) % size, from = (rank - distance + size) % size;
        COLLSIM_CHECK(step_type(size, distance, recvcount, recvtype, displs, &blocks));
        COLLSIM_CHECK(MPI_Sendrecv(scratch, 1, blocks, to, COLLSIM_TAG_ALLTOALL, recvbuf, 1,
                                   blocks, from, COLLSIM_TAG_ALLTOALL, comm, MPI_STATUS_IGNORE));
        COLLSIM_CHECK(collsim_block_copy(recvbuf, 1, blocks, scratch, 1, blocks));
        COLLSIM_CHECK(MPI_Type_free(&blocks));
    }
    for (int i = 0; i < size; i++)
        COLLSIM_CHECK(collsim_block_copy(
            scratch + (MPI_Aint)i * recv_block, recvcount, recvtype,
            (char *)recvbuf + (MPI_Aint)((rank - i + size) % size) * recv_block, recvcount,
            recvtype));

cleanup:
    if (blocks != MPI_DATATYPE_NULL)
        MPI_Type_free(&blocks);
    free(displs);
    collsim_buffer_free(scratch, params);
    return rc;
}

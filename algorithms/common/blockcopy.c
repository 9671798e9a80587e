/*
 * blockcopy.c: a block copied between two datatypes (blockcopy.h).
 */
#include "blockcopy.h"

#include "internal.h"

#include <stdlib.h>
#include <string.h>

MPI_Aint collsim_block_extent(int count, MPI_Datatype datatype)
{
    MPI_Aint lb, extent;
    MPI_Type_get_extent(datatype, &lb, &extent);
    return (MPI_Aint)count * extent;
}

/* Nonzero when datatype's elements are contiguous bytes (size == extent). */
static int contiguous(MPI_Datatype datatype)
{
    MPI_Aint lb, extent;
    int size;
    MPI_Type_get_extent(datatype, &lb, &extent);
    MPI_Type_size(datatype, &size);
    return lb == 0 && (MPI_Aint)size == extent;
}

int collsim_block_copy(const void *src, int sendcount, MPI_Datatype sendtype, void *dst,
                       int recvcount, MPI_Datatype recvtype)
{
    int send_size, recv_size;
    MPI_Type_size(sendtype, &send_size);
    MPI_Type_size(recvtype, &recv_size);
    const long long nbytes = (long long)sendcount * send_size;
    if (nbytes > (long long)recvcount * recv_size)
        return MPI_ERR_TRUNCATE;
    if (nbytes == 0 || src == dst)
        return MPI_SUCCESS;
    if (contiguous(sendtype) && contiguous(recvtype)) {
        memcpy(dst, src, (size_t)nbytes);
        return MPI_SUCCESS;
    }
    int packed_size, position = 0, rc;
    rc = MPI_Pack_size(sendcount, sendtype, MPI_COMM_SELF, &packed_size);
    if (rc != MPI_SUCCESS)
        return rc;
    void *packed = malloc((size_t)packed_size + 1);
    if (packed == NULL)
        return MPI_ERR_NO_MEM;
    rc = MPI_Pack(src, sendcount, sendtype, packed, packed_size, &position, MPI_COMM_SELF);
    if (rc == MPI_SUCCESS) {
        const int packed_bytes = position;
        position = 0;
        rc = MPI_Unpack(packed, packed_bytes, &position, dst, (int)(nbytes / recv_size), recvtype,
                        MPI_COMM_SELF);
    }
    free(packed);
    return rc;
}

int collsim_exchange_open(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                          void *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Comm comm,
                          collsim_exchange *x)
{
    int rc;
    *x = (collsim_exchange){.sendbuf = sendbuf, .recvbuf = recvbuf, .sendcount = sendcount,
                            .recvcount = recvcount, .sendtype = sendtype,
                            .recvtype = recvtype, .comm = comm,
                            .send_block = collsim_block_extent(sendcount, sendtype),
                            .recv_block = collsim_block_extent(recvcount, recvtype)};
    if ((rc = MPI_Comm_rank(comm, &x->rank)) != MPI_SUCCESS ||
        (rc = MPI_Comm_size(comm, &x->size)) != MPI_SUCCESS)
        return rc;
    return collsim_block_copy(x->sendbuf + (MPI_Aint)x->rank * x->send_block, sendcount, sendtype,
                              x->recvbuf + (MPI_Aint)x->rank * x->recv_block, recvcount,
                              recvtype);
}

int collsim_exchange_sendrecv(const collsim_exchange *x, int to, int from)
{
    return MPI_Sendrecv(x->sendbuf + (MPI_Aint)to * x->send_block, x->sendcount, x->sendtype, to,
                        COLLSIM_TAG_ALLTOALL, x->recvbuf + (MPI_Aint)from * x->recv_block,
                        x->recvcount, x->recvtype, from, COLLSIM_TAG_ALLTOALL, x->comm,
                        MPI_STATUS_IGNORE);
}

int collsim_exchange_irecv(const collsim_exchange *x, int from, MPI_Request *request)
{
    return MPI_Irecv(x->recvbuf + (MPI_Aint)from * x->recv_block, x->recvcount, x->recvtype,
                     from, COLLSIM_TAG_ALLTOALL, x->comm, request);
}

int collsim_exchange_isend(const collsim_exchange *x, int to, MPI_Request *request)
{
    return MPI_Isend(x->sendbuf + (MPI_Aint)to * x->send_block, x->sendcount, x->sendtype, to,
                     COLLSIM_TAG_ALLTOALL, x->comm, request);
}

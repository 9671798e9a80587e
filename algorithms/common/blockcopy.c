/*
 * blockcopy.c: a block copied between two datatypes (blockcopy.h).
 */
#include "blockcopy.h"

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

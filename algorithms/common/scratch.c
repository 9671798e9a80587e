/*
 * scratch.c: scratch buffers and the combining into them (see scratch.h).
 */
#include "scratch.h"

#include "internal.h"

int collsim_buffer_pair(int count, MPI_Aint extent, const collsim_params *params, void **first,
                        void **second)
{
    *first = collsim_buffer_alloc((size_t)count * (size_t)extent, params);
    *second = collsim_buffer_alloc((size_t)count * (size_t)extent, params);
    return *first == NULL || *second == NULL ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

int collsim_inplace_start(const void *sendbuf, void *recvbuf, int count, MPI_Aint extent,
                          const collsim_params *params, void **tmp)
{
    collsim_copy(recvbuf, sendbuf, count, extent);
    *tmp = collsim_buffer_alloc((size_t)count * (size_t)extent, params);
    return *tmp == NULL ? MPI_ERR_NO_MEM : MPI_SUCCESS;
}

int collsim_accumulate(void **acc, void **received, int count, MPI_Datatype datatype, MPI_Op op,
                       const collsim_params *params)
{
    int rc = collsim_reduce_local(*acc, *received, count, datatype, op, params);
    void *result = *received;
    *received = *acc;
    *acc = result;
    return rc;
}

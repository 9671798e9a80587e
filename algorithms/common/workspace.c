/*
 * workspace.c: the small steps many algorithms share (see workspace.h).
 */
#include "workspace.h"

#include "internal.h"

int collsim_open(MPI_Comm comm, MPI_Datatype datatype, int *rank, int *size, MPI_Aint *extent)
{
    int rc;
    MPI_Aint lb;
    if ((rc = MPI_Comm_rank(comm, rank)) != MPI_SUCCESS)
        return rc;
    if ((rc = MPI_Comm_size(comm, size)) != MPI_SUCCESS)
        return rc;
    return MPI_Type_get_extent(datatype, &lb, extent);
}

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

void collsim_comm_release(MPI_Comm *comm)
{
    if (*comm != MPI_COMM_NULL)
        MPI_Comm_free(comm);
}

void collsim_plain_params(const collsim_params *params, collsim_params *out)
{
    memset(out, 0, sizeof *out);
    out->gamma_s_per_byte = params->gamma_s_per_byte;
    out->timing_only = params->timing_only;
}

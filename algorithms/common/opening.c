/*
 * opening.c: this rank, the communicator's size, an element's extent (see
 * opening.h).
 */
#include "opening.h"

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

int collsim_open_blocks(MPI_Comm comm, MPI_Datatype datatype, int recvcount, int *rank,
                        int *size, MPI_Aint *extent)
{
    int rc = collsim_open(comm, datatype, rank, size, extent);
    if (rc == MPI_SUCCESS && (long long)recvcount * *size > 0x7fffffffLL)
        return MPI_ERR_COUNT;
    return rc;
}

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

/*
 * allgather_mpich_default.c: allgather (MPI_Allgather) as MPICH 4.0 runs it by default:
 * the default selection tree (maint/tuning/coll/mpir/generic.json, v4.0.2) of a
 * flat communicator by whether p is a power of two and the bytes of the p blocks
 * (total_msg_size),
 * decided once per call in common/native.c; it then runs the collsim
 * algorithm of the same name in ../native.def.
 *
 * Where MPICH 4.0 picks an algorithm collsim lacks, the call fails (the
 * harness refuses such a cell before anything runs, naming the algorithm);
 * nothing is substituted.  collbench rows record the choice ("selected").
 *
 * Restrictions: those of the algorithm picked; none is violated by the
 *               library's own choice.
 * Reference: ../native.def, common/native.c.
 * Cost:      that of the algorithm picked.
 */
#include "common/internal.h"
#include "common/native.h"

int collsim_allgather_mpich_default(const void *sendbuf, int sendcount,
                                    MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                    MPI_Datatype recvtype, MPI_Comm comm,
                                    const collsim_params *params)
{
    const collsim_algorithm *target;
    int rc = collsim_native_dispatch(COLLSIM_NATIVE_MPICH, COLLSIM_ALLGATHER, comm, sendcount,
                                     sendtype, MPI_OP_NULL, &target, NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    return target->fn.allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm,
                                params);
}

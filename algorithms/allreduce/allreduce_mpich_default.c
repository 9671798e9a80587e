/*
 * allreduce_mpich_default.c: allreduce as MPICH 4.0 runs it by default:
 * the default selection tree (maint/tuning/coll/mpir/generic.json, v4.0.2) of a
 * flat communicator by communicator size, bytes, count and whether the op is
 * built in,
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

int collsim_allreduce_mpich_default(const void *sendbuf, void *recvbuf, int count,
                                    MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                    const collsim_params *params)
{
    const collsim_algorithm *target;
    int rc = collsim_native_dispatch(COLLSIM_NATIVE_MPICH, COLLSIM_ALLREDUCE, comm, count, datatype,
                                     op, &target, NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    return target->fn.allreduce(sendbuf, recvbuf, count, datatype, op, comm, params);
}

/*
 * gather_mpich_default.c: gather (MPI_Gather) as MPICH 4.0 runs it by default:
 * the default selection tree (maint/tuning/coll/mpir/generic.json, v4.0.2) of a
 * flat communicator (binomial, whatever the call),
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

int collsim_gather_mpich_default(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                 MPI_Comm comm, const collsim_params *params)
{
    const collsim_algorithm *target;
    int rc = collsim_native_dispatch_rooted(COLLSIM_NATIVE_MPICH, COLLSIM_GATHER, comm, root,
                                            recvcount, recvtype, sendcount, sendtype, &target);
    if (rc != MPI_SUCCESS)
        return rc;
    return target->fn.gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm,
                             params);
}

/*
 * scatter_openmpi_default.c: scatter (MPI_Scatter) as Open MPI 4.1 runs it by default:
 * the fixed rules of coll/tuned (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c,
 * ompi_coll_tuned_scatter_intra_dec_fixed, v4.1.4) by communicator size and
 * the bytes of one block (the root reads its send side, the others their
 * receive side, as Open MPI does),
 * decided once per call in common/native.c; it then runs the collsim
 * algorithm of the same name in ../native.def.
 *
 * Where Open MPI 4.1 picks an algorithm collsim lacks, the call fails (the
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

int collsim_scatter_openmpi_default(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                    void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                                    MPI_Comm comm, const collsim_params *params)
{
    const collsim_algorithm *target;
    int rc = collsim_native_dispatch_rooted(COLLSIM_NATIVE_OPENMPI, COLLSIM_SCATTER, comm, root,
                                            sendcount, sendtype, recvcount, recvtype, &target);
    if (rc != MPI_SUCCESS)
        return rc;
    return target->fn.scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root,
                              comm, params);
}

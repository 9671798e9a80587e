/*
 * reduce_openmpi_default.c: reduce as Open MPI 4.1 runs it by default:
 * the fixed rules of coll/tuned (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c,
 * ompi_coll_tuned_reduce_intra_dec_fixed, v4.1.4) by communicator size, total
 * bytes and commutativity, then the fallbacks inside the algorithm picked,
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

int collsim_reduce_openmpi_default(const void *sendbuf, void *recvbuf, int count,
                                   MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                   const collsim_params *params)
{
    const collsim_algorithm *target;
    int rc = collsim_native_dispatch(COLLSIM_NATIVE_OPENMPI, COLLSIM_REDUCE, comm, count, datatype,
                                     op, &target, NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    return target->fn.reduce(sendbuf, recvbuf, count, datatype, op, root, comm, params);
}

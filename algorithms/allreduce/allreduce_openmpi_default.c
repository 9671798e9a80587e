/*
 * allreduce_openmpi_default.c: allreduce as Open MPI 4.1 runs it by default:
 * the fixed rules of coll/tuned (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c,
 * ompi_coll_tuned_allreduce_intra_dec_fixed, v4.1.4) by communicator size, total
 * bytes and commutativity, then the fallbacks inside the algorithm picked,
 * decided once per call in common/native.c; it then runs the collsim
 * algorithm of the same name in ../native.def.
 *
 * Open MPI's "nonoverlapping" (id 2) is its own reduce to rank 0 followed by
 * its own bcast from rank 0: reduce_openmpi_default, then bcast_openmpi_default.
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

int collsim_allreduce_openmpi_default(const void *sendbuf, void *recvbuf, int count,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                      const collsim_params *params)
{
    const collsim_algorithm *target;
    const collsim_native_entry *entry;
    int rc = collsim_native_dispatch(COLLSIM_NATIVE_OPENMPI, COLLSIM_ALLREDUCE, comm, count,
                                     datatype, op, &target, &entry);
    if (entry != NULL && entry->id == 2) {
        /* nonoverlapping: Open MPI's reduce to rank 0, then its bcast */
        rc = collsim_reduce_openmpi_default(sendbuf, recvbuf, count, datatype, op, 0, comm, params);
        if (rc != MPI_SUCCESS)
            return rc;
        return collsim_bcast_openmpi_default(recvbuf, count, datatype, 0, comm, params);
    }
    if (rc != MPI_SUCCESS)
        return rc;
    return target->fn.allreduce(sendbuf, recvbuf, count, datatype, op, comm, params);
}

/*
 * scan_openmpi_default.c: scan (MPI_Scan) as Open MPI 4.1 runs it by default:
 * Open MPI 4.1's coll/tuned has no fixed rules for scan: its module leaves
 * the call to coll/basic, whose mca_coll_basic_scan_intra runs
 * ompi_coll_base_scan_intra_linear (ompi/mca/coll/basic/coll_basic_scan.c,
 * v4.1.4); only a dynamic rules file makes coll/tuned take it.  The choice
 * is made in common/native.c like the others'; it then runs the collsim
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

int collsim_scan_openmpi_default(const void *sendbuf, void *recvbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 const collsim_params *params)
{
    const collsim_algorithm *target;
    int rc = collsim_native_dispatch(COLLSIM_NATIVE_OPENMPI, COLLSIM_SCAN, comm, count, datatype,
                                     op, &target, NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    return target->fn.scan(sendbuf, recvbuf, count, datatype, op, comm, params);
}

/*
 * reduce_scatter_openmpi_default.c: reduce_scatter (MPI_Reduce_scatter_block)
 * as Open MPI 4.1 runs it by default:
 * the fixed rules of coll/tuned (ompi/mca/coll/tuned/coll_tuned_decision_fixed.c,
 * ompi_coll_tuned_reduce_scatter_block_intra_dec_fixed, v4.1.4) by
 * communicator size, the bytes of one block and commutativity, then the
 * fallbacks inside the algorithm picked (recursive halving runs basic_linear
 * for a non-commutative op),
 * decided once per call in common/native.c; it then runs the collsim
 * algorithm of the same name in ../native.def.
 *
 * Open MPI's "basic_linear" (id 1) is its own reduce of the p blocks to
 * rank 0 followed by its own scatter from rank 0: reduce_openmpi_default into
 * a buffer of p blocks (on every rank: collsim's reduce algorithms may use a
 * non-root's receive buffer), then scatter_openmpi_default.
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
#include "common/blockcopy.h"
#include "common/internal.h"
#include "common/native.h"

#include <limits.h>

/* Open MPI's basic_linear: the p blocks reduced to rank 0 by Open MPI's reduce
 * choice, then scattered from rank 0 by its scatter choice. */
static int reduce_then_scatter(const void *sendbuf, void *recvbuf, int recvcount,
                               MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                               const collsim_params *params)
{
    int rc, size;
    if ((rc = MPI_Comm_size(comm, &size)) != MPI_SUCCESS)
        return rc;
    if ((long long)recvcount * size > INT_MAX)
        return MPI_ERR_COUNT;
    const int total = recvcount * size;
    char *all = collsim_buffer_alloc((size_t)collsim_block_extent(total, datatype), params);
    if (all == NULL)
        return MPI_ERR_NO_MEM;
    rc = collsim_reduce_openmpi_default(sendbuf, all, total, datatype, op, 0, comm, params);
    if (rc == MPI_SUCCESS)
        rc = collsim_scatter_openmpi_default(all, recvcount, datatype, recvbuf, recvcount,
                                             datatype, 0, comm, params);
    collsim_buffer_free(all, params);
    return rc;
}

int collsim_reduce_scatter_openmpi_default(const void *sendbuf, void *recvbuf, int recvcount,
                                           MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                           const collsim_params *params)
{
    const collsim_algorithm *target;
    const collsim_native_entry *entry;
    int rc = collsim_native_dispatch(COLLSIM_NATIVE_OPENMPI, COLLSIM_REDUCE_SCATTER, comm,
                                     recvcount, datatype, op, &target, &entry);
    if (entry != NULL && entry->id == 1) /* basic_linear: its reduce, then its scatter */
        return reduce_then_scatter(sendbuf, recvbuf, recvcount, datatype, op, comm, params);
    if (rc != MPI_SUCCESS)
        return rc;
    return target->fn.reduce_scatter(sendbuf, recvbuf, recvcount, datatype, op, comm, params);
}

/*
 * prerounded.c: the body of both pre-rounded algorithms (reduce_prerounded.c,
 * allreduce_prerounded.c), which differ only in the collective that sums the
 * parts and in who rounds the level sums (see prerounding.h).
 */
#include "internal.h"
#include "prerounding.h"
#include "scratch.h"

int collsim_preround_run(collsim_collective coll, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype datatype, int root, MPI_Comm comm,
                         const collsim_params *params)
{
    int rc = MPI_SUCCESS, size, rank;
    void *parts = NULL, *sums = NULL;
    const collsim_algorithm *inner, *bound;
    char why[256];

    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    if (collsim_preround_levels(coll, size, params, &inner, &bound, why, sizeof why) != 0)
        return MPI_ERR_ARG; /* collbench checks first (collsim_check_composition) */
    if (count == 0)
        return MPI_SUCCESS;

    collsim_params inner_params = *params;
    inner_params.inner_algorithm = NULL;
    inner_params.outer_algorithm = NULL;
    inner_params.contributors = 0;
    COLLSIM_CHECK(collsim_buffer_pair(count * PREROUND_LEVELS, sizeof(double), params, &parts,
                                      &sums));
    /* 1 and 2: the bound, then this rank's parts */
    COLLSIM_CHECK(collsim_preround_prepare(sendbuf, count, datatype, comm, bound->fn.allreduce,
                                           params, &inner_params, parts));
    /* 3: the exact sum of the parts */
    if (coll == COLLSIM_ALLREDUCE)
        COLLSIM_CHECK(inner->fn.allreduce(parts, sums, count * PREROUND_LEVELS, MPI_DOUBLE,
                                          MPI_SUM, comm, &inner_params));
    else
        COLLSIM_CHECK(inner->fn.reduce(parts, sums, count * PREROUND_LEVELS, MPI_DOUBLE, MPI_SUM,
                                       root, comm, &inner_params));
    /* 4: the level sums added in fixed order, where the result goes */
    if (coll == COLLSIM_ALLREDUCE || rank == root)
        collsim_preround_finish(sums, count, datatype, recvbuf);

cleanup:
    collsim_buffer_free(parts, params);
    collsim_buffer_free(sums, params);
    return rc;
}

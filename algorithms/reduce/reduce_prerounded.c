/*
 * reduce_prerounded.c: bitwise-reproducible reduce by pre-rounding (Demmel
 * and Nguyen, IEEE TC 64(7), 2015); see allreduce_prerounded.c.
 *
 * 1. max |x_i| over all ranks with the outer allreduce (default
 *    recursive_doubling) and MPI_MAX (every rank needs the bound to split its
 *    values);
 * 2. every rank splits each x_i into PREROUND_LEVELS parts (exactly summable);
 * 3. the inner reduce sums the parts to the root with MPI_SUM: exact, so the
 *    same bits whatever the algorithm, mapping or topology;
 * 4. the root adds the level sums in a fixed order.
 *
 * Restrictions: MPI_SUM on float or double.
 * Parameters: inner = the reduce algorithm of step 3 (default binomial);
 *             outer = the allreduce algorithm of step 1 (default
 *             recursive_doubling; rabenseifner is faster at large counts);
 *             contributors = N inputs per rank, as in allreduce_prerounded.c.
 * Cost:      T_outer(count * 8 bytes, max) + T_inner(2 count * 8 bytes)
 *            + 2 count * 8 gamma
 */
#include "common/internal.h"
#include "common/prerounding.h"

int collsim_reduce_prerounded(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, int root, MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, size, rank;
    double *parts = NULL, *sums = NULL;
    const collsim_algorithm *inner, *bound;
    char why[256];
    (void)op; /* MPI_SUM, enforced by the registry restriction */

    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    if (collsim_preround_levels(COLLSIM_REDUCE, size, params, &inner, &bound, why,
                                sizeof why) != 0)
        return MPI_ERR_ARG; /* collbench checks first (collsim_check_composition) */
    if (count == 0)
        return MPI_SUCCESS;

    collsim_params inner_params = *params;
    inner_params.inner_algorithm = NULL;
    inner_params.outer_algorithm = NULL;
    inner_params.contributors = 0;
    parts = collsim_buffer_alloc(sizeof(double) * (size_t)count * PREROUND_LEVELS, params);
    sums = collsim_buffer_alloc(sizeof(double) * (size_t)count * PREROUND_LEVELS, params);
    if (!parts || !sums) {
        rc = MPI_ERR_NO_MEM;
        goto cleanup;
    }
    COLLSIM_CHECK(collsim_preround_prepare(sendbuf, count, datatype, comm,
                                           bound->fn.allreduce, params, &inner_params, parts));
    COLLSIM_CHECK(inner->fn.reduce(parts, sums, count * PREROUND_LEVELS, MPI_DOUBLE, MPI_SUM, root,
                                   comm, &inner_params));
    if (rank == root)
        collsim_preround_finish(sums, count, datatype, recvbuf);

cleanup:
    collsim_buffer_free(parts, params);
    collsim_buffer_free(sums, params);
    return rc;
}

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
#include "common/prerounding.h"

int collsim_reduce_prerounded(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype,
                              MPI_Op op, int root, MPI_Comm comm, const collsim_params *params)
{
    (void)op; /* MPI_SUM, enforced by the registry restriction */
    return collsim_preround_run(COLLSIM_REDUCE, sendbuf, recvbuf, count, datatype, root, comm,
                                params);
}

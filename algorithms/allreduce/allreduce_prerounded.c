/*
 * allreduce_prerounded.c: bitwise-reproducible allreduce by pre-rounding
 * (Demmel and Nguyen, "Parallel reproducible summation", IEEE TC 64(7), 2015).
 *
 * 1. max |x_i| over all ranks, with the outer allreduce (default: the inner
 *    one) and MPI_MAX;
 * 2. every rank splits each x_i into PREROUND_LEVELS parts on quanta fixed by
 *    that bound and p (common/prerounding.c), so that sums of parts are exact;
 * 3. the inner allreduce sums the PREROUND_LEVELS * count parts with MPI_SUM:
 *    exact, hence the same bits whatever the algorithm, the mapping or the
 *    topology (node_aware included);
 * 4. every rank adds its level sums in a fixed order and rounds once.
 *
 * The price: a second allreduce (count doubles) before the sum, a sum over
 * PREROUND_LEVELS times the data in doubles, and the splitting work, charged
 * as PREROUND_LEVELS * count * 8 bytes of gamma.
 *
 * Restrictions: MPI_SUM on float or double.  The result depends on p N (the
 * quanta do), not on the order of combination.
 * Parameters: inner = the allreduce algorithm of step 3 (default
 *             recursive_doubling); outer = that of step 1, the bound (default
 *             the inner one); contributors = N inputs per
 *             rank (virtual ranks), each split against the bound of all p N
 *             and summed locally, exactly: the same bits for any
 *             decomposition of the p N inputs over processes.
 * Cost:      T_outer(count * 8 bytes, max) + T_inner(2 count * 8 bytes, sum)
 *            + 2 count * 8 gamma
 */
#include "common/prerounding.h"

int collsim_allreduce_prerounded(const void *sendbuf, void *recvbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 const collsim_params *params)
{
    (void)op; /* MPI_SUM, enforced by the registry restriction */
    return collsim_preround_run(COLLSIM_ALLREDUCE, sendbuf, recvbuf, count, datatype, 0, comm,
                                params);
}

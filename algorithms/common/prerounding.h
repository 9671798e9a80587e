/*
 * prerounding.h: order-independent summation by pre-rounding (Demmel and
 * Nguyen, "Parallel reproducible summation", IEEE TC 64(7), 2015), shared by
 * the reduce and allreduce `prerounded` algorithms.
 *
 * Given a bound M_i >= max over ranks |x_i| known to every rank, each value is
 * split into PREROUND_LEVELS parts, each a multiple of a quantum fixed by M_i
 * and p alone, small enough that the sum of p parts is exact in double.  Any
 * algorithm that sums the parts (in any order, on any topology) therefore
 * returns the same bits; the parts of each level are then added in a fixed
 * order.
 * Users: allreduce_prerounded.c, reduce_prerounded.c, common/hier.c,
 * common/prerounded.c, common/prerounding.c.
 */
#ifndef COLLSIM_PREROUNDING_H
#define COLLSIM_PREROUNDING_H

#include "../collsim.h"

/* Levels of extraction.  With M < 2^e the largest |x_i|, p summands and
 * L = ceil(lg p), what two levels drop is below 2^(e+2L-104) per summand, so
 * the result differs from the exact sum s by at most
 * u |s| + (1 + u) p 2^(e+2L-104) (one rounding of the exact level sums plus
 * the dropped parts; in float, rounded once more), i.e. by at most about
 * p 2^(2L-50) u sum |x_i| beyond the final rounding: the correctly rounded sum
 * in all but the most ill-conditioned cases.  collbench's check holds every
 * result to it (sim/collbench/check.c). */
#define PREROUND_LEVELS 2

/* max over the `contributors` vectors of x (contributor k's element i at
 * x[k * count + i]) of |x_i|, as doubles (x of MPI_FLOAT or MPI_DOUBLE). */
void collsim_preround_abs(const void *x, int count, int contributors, MPI_Datatype datatype,
                          double *abs_out);

/* Splits each of the `contributors` vectors of x into PREROUND_LEVELS parts,
 * using the bounds absmax[i] (the same on every rank) for `terms` summands in
 * all (ranks times contributors), and writes the sum over the contributors of
 * level l's parts to levels[l * count + i]: exact, so the same for any
 * grouping of the contributors. */
void collsim_preround_split(const void *x, int count, int contributors, MPI_Datatype datatype,
                            const double *absmax, int terms, double *levels);

/* The two algorithms of the pre-rounded algorithm of collective coll
 * (allreduce or reduce) on size processes: the inner one (of that collective; default recursive_doubling for the
 * allreduce, binomial for the reduce) that sums the parts, and the allreduce
 * that finds the bound (params->outer_algorithm; default the inner one for
 * the allreduce, recursive_doubling for the reduce).  Returns 0, or -1 with a
 * sentence in why naming the problem (an unknown name, a pre-rounded one, a
 * restriction violated on size processes).  inner and bound may be NULL. */
int collsim_preround_levels(collsim_collective coll, int size, const collsim_params *params,
                            const collsim_algorithm **inner, const collsim_algorithm **bound,
                            char *why, size_t len);

/* Steps 1 and 2 of both prerounded algorithms: the bound, max |x| over every
 * input of comm, by bound_allreduce (MPI_MAX on doubles), then this rank's
 * inputs split against it into parts[l * count + i]; the splitting work is
 * charged as gamma.  inner_params go to bound_allreduce.  Returns an MPI
 * error code. */
int collsim_preround_prepare(const void *sendbuf, int count, MPI_Datatype datatype, MPI_Comm comm,
                             collsim_allreduce_fn *bound_allreduce, const collsim_params *params,
                             const collsim_params *inner_params, double *parts);

/* out[i] = the level sums added in fixed order, rounded to datatype. */
void collsim_preround_finish(const double *level_sums, int count, MPI_Datatype datatype,
                             void *out);

/* Steps 1 to 4 of the pre-rounded algorithm of collective coll (allreduce,
 * or reduce to root; root is ignored for the allreduce) with MPI_SUM:
 * the bound, the split, the exact sum of the parts by the inner algorithm,
 * and the rounding of the level sums on every rank (allreduce) or the root
 * (reduce).  MPI_ERR_ARG when its algorithms are not valid on comm (collbench
 * checks this first).  Returns an MPI error code.  Used by
 * allreduce_prerounded.c and reduce_prerounded.c (common/prerounded.c). */
int collsim_preround_run(collsim_collective coll, const void *sendbuf, void *recvbuf, int count,
                         MPI_Datatype datatype, int root, MPI_Comm comm,
                         const collsim_params *params);

#endif

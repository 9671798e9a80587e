/*
 * prerounding.c: the extraction of Demmel and Nguyen's reproducible sum.
 *
 * For a bound M (max |x| over all ranks, M < 2^e) and p ranks, let
 * L = ceil(lg p) and m = e + L + 1.  With sigma = 1.5 * 2^m every sigma + x
 * (|x| < 2^(m-1)) lies in [2^m, 2^(m+1)), so q = fl(sigma + x) - sigma is
 * exact and a multiple of u_m = 2^(m-52), and r = x - q is exact with
 * |r| <= u_m / 2.  The sum of p such q is below p M + p u_m < 2^m in
 * magnitude and a multiple of u_m: every partial sum, in every order, is
 * exact.  The second level extracts r the same way below 2^(m-53+L+1).
 */
#include "prerounding.h"
#include "internal.h"

#include <math.h>
#include <stdio.h>

static double element(const void *x, size_t k, MPI_Datatype datatype)
{
    return datatype == MPI_FLOAT ? (double)((const float *)x)[k] : ((const double *)x)[k];
}

void collsim_preround_abs(const void *x, int count, int contributors, MPI_Datatype datatype,
                          double *abs_out)
{
    for (int i = 0; i < count; i++) {
        double largest = 0.0;
        for (int k = 0; k < contributors; k++) {
            const double a = fabs(element(x, (size_t)k * count + i, datatype));
            if (a > largest)
                largest = a;
        }
        abs_out[i] = largest;
    }
}

static int ceil_log2(int p)
{
    int l = 0;
    while ((1 << l) < p)
        l++;
    return l;
}

/* q = fl(sigma + x) - sigma, written so that no compiler may fold it. */
static double extract(double x, double sigma)
{
    volatile double shifted = sigma + x;
    return shifted - sigma;
}

void collsim_preround_split(const void *x, int count, int contributors, MPI_Datatype datatype,
                            const double *absmax, int terms, double *levels)
{
    const int lg = ceil_log2(terms);
    for (size_t j = 0; j < (size_t)count * PREROUND_LEVELS; j++)
        levels[j] = 0.0;
    for (int i = 0; i < count; i++) {
        int e;
        frexp(absmax[i], &e); /* absmax < 2^e */
        for (int k = 0; k < contributors; k++) {
            double rest = element(x, (size_t)k * count + i, datatype);
            int m = e + lg + 1;
            for (int level = 0; level < PREROUND_LEVELS; level++) {
                const double sigma = ldexp(1.5, m);
                const double q = extract(rest, sigma);
                levels[(size_t)level * count + i] += q; /* exact: see the header */
                rest -= q; /* exact */
                m = m - 53 + lg + 1;
            }
        }
    }
}

void collsim_preround_finish(const double *level_sums, int count, MPI_Datatype datatype,
                             void *out)
{
    for (int i = 0; i < count; i++) {
        double total = 0.0;
        for (int level = 0; level < PREROUND_LEVELS; level++)
            total += level_sums[(size_t)level * count + i];
        if (datatype == MPI_FLOAT)
            ((float *)out)[i] = (float)total;
        else
            ((double *)out)[i] = total;
    }
}

/* Looks up `name` among the algorithms of `collective` for the role; checks
 * that it is not pre-rounded and may run on size processes (MPI_SUM). */
static const collsim_algorithm *level(const char *collective, const char *role, const char *name,
                                      int size, char *why, size_t len)
{
    const collsim_algorithm *sub = collsim_find_algorithm(collective, name);
    if (sub == NULL) {
        snprintf(why, len, "has no %s algorithm '%s' (collbench --list shows the %s algorithms)",
                 role, name, collective);
        return NULL;
    }
    if (collsim_is_prerounded(sub)) {
        snprintf(why, len, "cannot use the pre-rounded %s/%s as its %s algorithm",
                 sub->collective_name, sub->name, role);
        return NULL;
    }
    const char *r = collsim_check_restrictions(sub, size, 1);
    if (r != NULL) {
        snprintf(why, len, "%s algorithm %s/%s %s", role, sub->collective_name, sub->name, r);
        return NULL;
    }
    return sub;
}

int collsim_preround_levels(collsim_collective coll, int size, const collsim_params *params,
                            const collsim_algorithm **inner, const collsim_algorithm **bound,
                            char *why, size_t len)
{
    const int is_allreduce = coll == COLLSIM_ALLREDUCE;
    const char *inner_name, *bound_name;
    const collsim_algorithm *self =
        collsim_find_algorithm(is_allreduce ? "allreduce" : "reduce", "prerounded");
    if (self == NULL || collsim_composite_names(self, params, &inner_name, &bound_name) != 0) {
        snprintf(why, len, "is not a pre-rounded algorithm");
        return -1;
    }
    const collsim_algorithm *in =
        level(is_allreduce ? "allreduce" : "reduce", "inner", inner_name, size, why, len);
    if (in == NULL)
        return -1;
    const collsim_algorithm *out = level("allreduce", "outer (bound)", bound_name, size, why, len);
    if (out == NULL)
        return -1;
    if (inner != NULL)
        *inner = in;
    if (bound != NULL)
        *bound = out;
    return 0;
}

int collsim_preround_prepare(const void *sendbuf, int count, MPI_Datatype datatype, MPI_Comm comm,
                             collsim_allreduce_fn *bound_allreduce, const collsim_params *params,
                             const collsim_params *inner_params, double *parts)
{
    int rc = MPI_SUCCESS, size;
    const int contributors = collsim_contributors(params);
    double *abs_local = collsim_buffer_alloc(sizeof(double) * (size_t)count, params);
    double *absmax = collsim_buffer_alloc(sizeof(double) * (size_t)count, params);

    if (!abs_local || !absmax) {
        rc = MPI_ERR_NO_MEM;
        goto cleanup;
    }
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    collsim_preround_abs(sendbuf, count, contributors, datatype, abs_local);
    COLLSIM_CHECK(bound_allreduce(abs_local, absmax, count, MPI_DOUBLE, MPI_MAX, comm,
                                  inner_params));
    collsim_preround_split(sendbuf, count, contributors, datatype, absmax, size * contributors,
                           parts);
    collsim_charge_compute((double)count * contributors * PREROUND_LEVELS * sizeof(double),
                           params);

cleanup:
    collsim_buffer_free(abs_local, params);
    collsim_buffer_free(absmax, params);
    return rc;
}

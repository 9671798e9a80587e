/*
 * check.c: the references, the error bounds and the comparison.
 *
 * Integers and the exact ops (max, min, first_nonzero) must match the
 * rank-order fold bit for bit.  A floating-point sum is compared with the
 * correctly rounded exact sum (exactsum.c): any summation order of p terms
 * stays within gamma_{p-1} sum_i |x_i| of it, gamma_k = k u / (1 - k u)
 * (Higham, "Accuracy and Stability of Numerical Algorithms", 2nd ed.,
 * sec. 4.2; seed 000 eq. 1-2 with the depth of a pairwise tree), so that is
 * the bound of the check; the error is also reported in units of
 * u sum |x_i| and in ulps, so that it can be held against the bound of the
 * algorithm's own summation depth.  Products are compared with the rank-order
 * fold within 2 gamma_{p-1} |ref| (1 + gamma_{p-1}).
 *
 * A pre-rounded sum (algorithms/common/prerounding.h) is held, as well, to
 * the bound its construction gives: with max_i |x_i| < 2^e, p inputs and
 * L = ceil(lg p), the level sums are exact and the parts dropped below the
 * second level are under 2^(e+2L-104) each, so in double
 *     |result - s| <= u |s| + (1 + u) p 2^(e+2L-104)
 * (one rounding of the exact level sums), and in float, rounding that double
 * once more, <= (u_f + u (1 + u_f)) |s| + (1 + u)(1 + u_f) p 2^(e+2L-104).
 * It is far tighter than Higham's: a pre-rounded result is the correctly
 * rounded sum but for the dropped parts.
 */
#include "check.h"
#include "exactsum.h"

#include <float.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

#define CHECK_TAG 9101

uint64_t check_hash(const void *data, size_t len)
{
    const unsigned char *bytes = data;
    uint64_t h = UINT64_C(0xcbf29ce484222325);
    for (size_t i = 0; i < len; i++) {
        h ^= bytes[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

void check_fill_input(const check_case *c, int rank, void *buf)
{
    const int size = dtype_size(c->dtype);
    const op_id op = c->kind == CHECK_BCAST ? OP_SUM : c->op;
    const int contributors = c->contributors > 1 ? c->contributors : 1;
    for (int k = 0; k < contributors; k++)
        for (int i = 0; i < c->count; i++)
            datagen_value(c->seed, rank * contributors + k, (uint64_t)i, c->dtype, op, c->dist,
                          (char *)buf + ((size_t)k * c->count + (size_t)i) * size);
}

static double as_double(dtype_id dtype, const void *p)
{
    if (dtype == DTYPE_FLOAT) {
        float f;
        memcpy(&f, p, sizeof f);
        return f;
    }
    double d;
    memcpy(&d, p, sizeof d);
    return d;
}

static int ceil_log2(int n)
{
    int l = 0;
    while ((1LL << l) < n)
        l++;
    return l;
}

/* The pre-rounded sum's bound (see the top of this file) for an exact sum
 * rounded to `rounded` (double) of nprocs inputs of largest magnitude absmax. */
static double prerounded_bound(dtype_id dtype, double rounded, double absmax, int nprocs)
{
    const double u = DBL_EPSILON / 2, u_f = FLT_EPSILON / 2;
    int e;
    frexp(absmax, &e); /* absmax < 2^e */
    const double dropped = nprocs * ldexp(1.0, e + 2 * ceil_log2(nprocs) - 104);
    const double s_abs = fabs(rounded) * (1.0 + 2.0 * u); /* >= |s| */
    if (dtype == DTYPE_FLOAT)
        return (u_f + u * (1.0 + u_f)) * s_abs + (1.0 + u) * (1.0 + u_f) * dropped;
    return u * s_abs + (1.0 + u) * dropped;
}

static void compute_reference(const check_case *c, int nprocs, check_reference *r)
{
    const int size = dtype_size(c->dtype);
    const int is_float = dtype_is_float(c->dtype) && c->kind != CHECK_BCAST;
    const double u = c->dtype == DTYPE_FLOAT ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
    const double depth = nprocs - 1;
    const double gamma_depth = depth * u / (1.0 - depth * u);
    char value[8];
    r->exact_sum = is_float && c->op == OP_SUM;

    for (int i = 0; i < c->count; i++) {
        char *acc = (char *)r->ref + (size_t)i * size;
        r->bound[i] = 0.0;
        r->scale[i] = 0.0;
        r->prerounded_bound[i] = 0.0;
        if (c->kind == CHECK_BCAST) {
            datagen_value(c->seed, c->root, (uint64_t)i, c->dtype, OP_SUM, c->dist, acc);
            continue;
        }
        exact_sum sum;
        exact_sum_init(&sum);
        double abs_sum = 0.0, abs_max = 0.0;
        for (int rank = 0; rank < nprocs; rank++) {
            datagen_value(c->seed, rank, (uint64_t)i, c->dtype, c->op, c->dist,
                          rank == 0 ? acc : value);
            if (rank > 0)
                op_apply(c->op, c->dtype, acc, value);
            if (r->exact_sum) {
                const double x = as_double(c->dtype, rank == 0 ? acc : value);
                exact_sum_add(&sum, x);
                abs_sum += fabs(x);
                if (fabs(x) > abs_max)
                    abs_max = fabs(x);
            }
        }
        if (r->exact_sum) {
            int residual_sign;
            const double rounded = exact_sum_round(&sum, &residual_sign);
            char *exact = (char *)r->exact + (size_t)i * size;
            if (c->dtype == DTYPE_FLOAT) {
                const float f = exact_sum_round_float(rounded, residual_sign);
                memcpy(exact, &f, sizeof f);
            } else {
                memcpy(exact, &rounded, sizeof rounded);
            }
            /* abs_sum is rounded upward by at most a relative p u: inflate it */
            abs_sum *= 1.0 + 2.0 * nprocs * DBL_EPSILON;
            r->bound[i] = gamma_depth * abs_sum;
            r->scale[i] = u * abs_sum;
            r->prerounded_bound[i] = prerounded_bound(c->dtype, rounded, abs_max, nprocs);
        } else if (is_float && c->op == OP_PROD) {
            r->bound[i] = 2.0 * gamma_depth * (1.0 + gamma_depth) * fabs(as_double(c->dtype, acc));
        }
    }
}

static double ulps(dtype_id dtype, const void *a, const void *b)
{
    if (dtype == DTYPE_FLOAT) {
        float fa, fb;
        memcpy(&fa, a, sizeof fa);
        memcpy(&fb, b, sizeof fb);
        return ulp_distance_float(fa, fb);
    }
    double da, db;
    memcpy(&da, a, sizeof da);
    memcpy(&db, b, sizeof db);
    return ulp_distance_double(da, db);
}

/* err / bound, 0 for no error against a zero bound, infinite for an error
 * against a zero bound or a NaN. */
static double error_ratio(double err, double bound)
{
    const double ratio = bound > 0.0 ? err / bound : (err == 0.0 ? 0.0 : INFINITY);
    return isnan(ratio) ? INFINITY : ratio;
}

/* Compares one holder's result with the references; updates out. */
static void compare(const check_case *c, const void *result, const check_reference *r,
                    check_result *out)
{
    const int size = dtype_size(c->dtype);
    const size_t nbytes = (size_t)c->count * size;
    const int equal_to_ref = memcmp(result, r->ref, nbytes) == 0;
    if (!equal_to_ref)
        out->bitwise_rank_order = 0;
    if (equal_to_ref && !r->exact_sum)
        return;
    for (int i = 0; i < c->count; i++) {
        const char *res_i = (const char *)result + (size_t)i * size;
        const char *ref_i = (const char *)r->ref + (size_t)i * size;
        if (r->exact_sum) {
            const char *exact_i = (const char *)r->exact + (size_t)i * size;
            const double err = fabs(as_double(c->dtype, res_i) - as_double(c->dtype, exact_i));
            const double ratio = error_ratio(err, r->bound[i]);
            const double in_u = error_ratio(err, r->scale[i]);
            if (ratio > out->max_error_ratio)
                out->max_error_ratio = ratio;
            if (in_u > out->max_error_u_sum_abs)
                out->max_error_u_sum_abs = in_u;
            const double distance = isnan(as_double(c->dtype, res_i)) ? INFINITY
                                                                       : ulps(c->dtype, res_i, exact_i);
            if (distance > out->max_ulp_error)
                out->max_ulp_error = distance;
            if (ratio > 1.0)
                out->ok = 0;
            if (c->prerounded_bound) {
                const double pr = error_ratio(err, r->prerounded_bound[i]);
                if (pr > out->max_error_prerounded_ratio)
                    out->max_error_prerounded_ratio = pr;
                if (pr > 1.0)
                    out->ok = 0;
            }
            continue;
        }
        if (memcmp(res_i, ref_i, size) == 0)
            continue;
        double ratio = INFINITY;
        if (dtype_is_float(c->dtype) && r->bound[i] > 0.0) {
            const double err = fabs(as_double(c->dtype, res_i) - as_double(c->dtype, ref_i));
            ratio = err / r->bound[i];
            if (isnan(ratio))
                ratio = INFINITY;
        }
        if (dtype_is_float(c->dtype)) {
            const double distance = isnan(as_double(c->dtype, res_i)) ? INFINITY
                                                                       : ulps(c->dtype, res_i, ref_i);
            if (distance > out->max_ulp_error)
                out->max_ulp_error = distance;
        } else {
            out->max_ulp_error = INFINITY;
        }
        if (ratio > out->max_error_ratio)
            out->max_error_ratio = ratio;
        if (ratio > 1.0)
            out->ok = 0;
    }
}

void check_cache_init(check_cache *cache)
{
    memset(cache, 0, sizeof *cache);
}

static void free_reference(check_reference *r)
{
    free(r->ref);
    free(r->exact);
    free(r->bound);
    free(r->scale);
    free(r->prerounded_bound);
    memset(r, 0, sizeof *r);
}

void check_cache_free(check_cache *cache)
{
    for (int i = 0; i < cache->used; i++)
        free_reference(&cache->slot[i]);
    cache->used = 0;
}

/* The references of case c on nprocs ranks, from the cache or computed into
 * it; NULL when out of memory. */
static const check_reference *reference_for(const check_case *c, int nprocs, check_cache *cache)
{
    const int root = c->kind == CHECK_BCAST ? c->root : -1;
    for (int i = 0; i < cache->used; i++) {
        const check_reference *r = &cache->slot[i];
        if (r->kind == c->kind && r->dtype == c->dtype && r->op == c->op && r->dist == c->dist &&
            r->count == c->count && r->root == root && r->nprocs == nprocs && r->seed == c->seed)
            return r;
    }
    if (cache->used == CHECK_CACHE_SLOTS)
        check_cache_free(cache);
    check_reference *r = &cache->slot[cache->used];
    const size_t nbytes = (size_t)c->count * dtype_size(c->dtype) + 1;
    r->ref = malloc(nbytes);
    r->exact = malloc(nbytes);
    r->bound = malloc(sizeof(double) * ((size_t)c->count + 1));
    r->scale = malloc(sizeof(double) * ((size_t)c->count + 1));
    r->prerounded_bound = malloc(sizeof(double) * ((size_t)c->count + 1));
    if (!r->ref || !r->exact || !r->bound || !r->scale || !r->prerounded_bound) {
        free_reference(r);
        return NULL;
    }
    r->kind = c->kind;
    r->dtype = c->dtype;
    r->op = c->op;
    r->dist = c->dist;
    r->count = c->count;
    r->root = root;
    r->nprocs = nprocs;
    r->seed = c->seed;
    compute_reference(c, nprocs, r);
    cache->used++;
    return r;
}

int check_result_collect(const check_case *c, const void *result, MPI_Comm world,
                         const void *const *shared, check_cache *cache, check_result *out)
{
    int rank, nprocs, rc = MPI_SUCCESS;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &nprocs);
    const size_t nbytes = (size_t)c->count * dtype_size(c->dtype);
    const int first_holder = c->kind == CHECK_REDUCE ? c->root : 0;

    out->ok = 1;
    out->bitwise_rank_order = 1;
    out->ranks_agree = 1;
    out->max_error_ratio = 0.0;
    out->max_ulp_error = 0.0;
    out->max_error_u_sum_abs =
        dtype_is_float(c->dtype) && c->kind != CHECK_BCAST && c->op == OP_SUM ? 0.0 : -1.0;
    out->max_error_prerounded_ratio =
        c->prerounded_bound && out->max_error_u_sum_abs >= 0.0 ? 0.0 : -1.0;
    out->result_hash = 0;

    if (rank != 0) {
        int holds = c->kind != CHECK_REDUCE || rank == c->root;
        if (holds && shared == NULL)
            rc = MPI_Send(result, c->count, dtype_mpi(c->dtype), 0, CHECK_TAG, world);
        return rc;
    }

    void *first = malloc(nbytes + 1);
    void *other = malloc(nbytes + 1);
    /* the references cover every virtual rank */
    const int contributors = c->contributors > 1 ? c->contributors : 1;
    const check_reference *r = reference_for(c, nprocs * contributors, cache);
    if (!first || !other || !r) {
        rc = MPI_ERR_NO_MEM;
        goto cleanup;
    }

    for (int holder = 0; holder < nprocs; holder++) {
        if (c->kind == CHECK_REDUCE && holder != c->root)
            continue;
        void *buf = holder == first_holder ? first : other;
        if (shared != NULL) {
            memcpy(buf, shared[holder], nbytes);
        } else if (holder == 0) {
            memcpy(buf, result, nbytes);
        } else {
            rc = MPI_Recv(buf, c->count, dtype_mpi(c->dtype), holder, CHECK_TAG, world,
                          MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                goto cleanup;
        }
        compare(c, buf, r, out);
        if (holder != first_holder && memcmp(buf, first, nbytes) != 0)
            out->ranks_agree = 0;
    }
    out->result_hash = check_hash(first, nbytes);

cleanup:
    free(first);
    free(other);
    return rc;
}

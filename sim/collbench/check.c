/*
 * check.c: the reference result, the error bound and the comparison.
 *
 * Integers and the exact ops (max, min, first_nonzero) must match the
 * reference bit for bit.  Floating-point sums and products may legitimately
 * differ from the rank-order fold, because an algorithm combines in another
 * order; they fail only beyond twice Higham's bound for a summation (or
 * product) of depth p - 1: |s_alg - s_ref| <= 2 gamma_{p-1} sum_i |x_i|,
 * gamma_k = k u / (1 - k u) (Higham, "Accuracy and Stability of Numerical
 * Algorithms", 2nd ed., sec. 4.2; seed 000 eq. 1-2), both results lying
 * within gamma_{p-1} sum |x_i| of the exact value.
 */
#include "check.h"

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
    for (int i = 0; i < c->count; i++)
        datagen_value(c->seed, rank, (uint64_t)i, c->dtype, op, (char *)buf + (size_t)i * size);
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

/* Reference values and per-element error bounds (0: exact match required). */
static int compute_reference(const check_case *c, int nprocs, void *ref, double *bound)
{
    const int size = dtype_size(c->dtype);
    const int rounding = dtype_is_float(c->dtype) && c->kind != CHECK_BCAST &&
                         (c->op == OP_SUM || c->op == OP_PROD);
    const double u = c->dtype == DTYPE_FLOAT ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
    const double depth = nprocs - 1;
    const double gamma_depth = depth * u / (1.0 - depth * u);
    char value[8];

    for (int i = 0; i < c->count; i++) {
        char *acc = (char *)ref + (size_t)i * size;
        if (c->kind == CHECK_BCAST) {
            datagen_value(c->seed, c->root, (uint64_t)i, c->dtype, OP_SUM, acc);
            bound[i] = 0.0;
            continue;
        }
        datagen_value(c->seed, 0, (uint64_t)i, c->dtype, c->op, acc);
        double abs_sum = fabs(as_double(c->dtype, acc));
        for (int r = 1; r < nprocs; r++) {
            datagen_value(c->seed, r, (uint64_t)i, c->dtype, c->op, value);
            op_apply(c->op, c->dtype, acc, value);
            if (rounding)
                abs_sum += fabs(as_double(c->dtype, value));
        }
        if (!rounding)
            bound[i] = 0.0;
        else if (c->op == OP_SUM)
            bound[i] = 2.0 * gamma_depth * abs_sum;
        else /* product of p factors: relative error gamma_{p-1} per order */
            bound[i] = 2.0 * gamma_depth * (1.0 + gamma_depth) * fabs(as_double(c->dtype, acc));
    }
    return MPI_SUCCESS;
}

/* Compares one holder's result with the reference; updates out. */
static void compare(const check_case *c, const void *result, const void *ref, const double *bound,
                    check_result *out)
{
    const int size = dtype_size(c->dtype);
    const size_t nbytes = (size_t)c->count * size;
    if (memcmp(result, ref, nbytes) == 0)
        return;
    out->bitwise_rank_order = 0;
    for (int i = 0; i < c->count; i++) {
        const char *res_i = (const char *)result + (size_t)i * size;
        const char *ref_i = (const char *)ref + (size_t)i * size;
        if (memcmp(res_i, ref_i, size) == 0)
            continue;
        double ratio = INFINITY;
        if (dtype_is_float(c->dtype) && bound[i] > 0.0) {
            double err = fabs(as_double(c->dtype, res_i) - as_double(c->dtype, ref_i));
            ratio = err / bound[i]; /* NaN when the result is NaN */
            if (isnan(ratio))
                ratio = INFINITY;
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

void check_cache_free(check_cache *cache)
{
    for (int i = 0; i < cache->used; i++) {
        free(cache->slot[i].ref);
        free(cache->slot[i].bound);
    }
    cache->used = 0;
}

/* The reference of case c on nprocs ranks, from the cache or computed into
 * it; NULL when out of memory. */
static const check_reference *reference_for(const check_case *c, int nprocs, check_cache *cache)
{
    const int root = c->kind == CHECK_BCAST ? c->root : -1;
    for (int i = 0; i < cache->used; i++) {
        const check_reference *r = &cache->slot[i];
        if (r->kind == c->kind && r->dtype == c->dtype && r->op == c->op &&
            r->count == c->count && r->root == root && r->nprocs == nprocs && r->seed == c->seed)
            return r;
    }
    if (cache->used == CHECK_CACHE_SLOTS)
        check_cache_free(cache);
    check_reference *r = &cache->slot[cache->used];
    r->ref = malloc((size_t)c->count * dtype_size(c->dtype) + 1);
    r->bound = malloc(sizeof(double) * ((size_t)c->count + 1));
    if (!r->ref || !r->bound) {
        free(r->ref);
        free(r->bound);
        return NULL;
    }
    r->kind = c->kind;
    r->dtype = c->dtype;
    r->op = c->op;
    r->count = c->count;
    r->root = root;
    r->nprocs = nprocs;
    r->seed = c->seed;
    compute_reference(c, nprocs, r->ref, r->bound);
    cache->used++;
    return r;
}

int check_result_collect(const check_case *c, const void *result, MPI_Comm world,
                         check_cache *cache, check_result *out)
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
    out->result_hash = 0;

    if (rank != 0) {
        int holds = c->kind != CHECK_REDUCE || rank == c->root;
        if (holds)
            rc = MPI_Send(result, c->count, dtype_mpi(c->dtype), 0, CHECK_TAG, world);
        return rc;
    }

    void *first = malloc(nbytes + 1);
    void *other = malloc(nbytes + 1);
    const check_reference *cached = reference_for(c, nprocs, cache);
    if (!first || !other || !cached) {
        rc = MPI_ERR_NO_MEM;
        goto cleanup;
    }
    const void *ref = cached->ref;
    const double *bound = cached->bound;

    for (int holder = 0; holder < nprocs; holder++) {
        if (c->kind == CHECK_REDUCE && holder != c->root)
            continue;
        void *buf = holder == first_holder ? first : other;
        if (holder == 0) {
            memcpy(buf, result, nbytes);
        } else {
            rc = MPI_Recv(buf, c->count, dtype_mpi(c->dtype), holder, CHECK_TAG, world,
                          MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                goto cleanup;
        }
        compare(c, buf, ref, bound, out);
        if (holder != first_holder && memcmp(buf, first, nbytes) != 0)
            out->ranks_agree = 0;
    }
    out->result_hash = check_hash(first, nbytes);

cleanup:
    free(first);
    free(other);
    return rc;
}

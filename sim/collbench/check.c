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
    return check_hash_continue(UINT64_C(0xcbf29ce484222325), data, len);
}

uint64_t check_hash_continue(uint64_t h, const void *data, size_t len)
{
    const unsigned char *bytes = data;
    for (size_t i = 0; i < len; i++) {
        h ^= bytes[i];
        h *= UINT64_C(0x100000001b3);
    }
    return h;
}

static const collsim_collective_info *collective_info(const check_case *c)
{
    size_t n;
    return &collsim_collectives(&n)[c->collective];
}

/* The datagen op of a case: the op of a reduction, OP_SUM (any values) for
 * a collective that only moves data. */
static op_id value_op(const check_case *c)
{
    return collective_info(c)->has_op ? c->op : OP_SUM;
}

void check_fill_input(const check_case *c, int rank, int nprocs, void *buf)
{
    const int size = dtype_size(c->dtype);
    const collsim_collective_info *info = collective_info(c);
    /* a bcast's input is its root's buffer; a barrier has none */
    const collsim_buffer_blocks blocks =
        info->send_blocks != COLLSIM_BLOCKS_NONE   ? info->send_blocks
        : info->recv_blocks != COLLSIM_BLOCKS_NONE ? COLLSIM_BLOCKS_ONE_AT_ROOT
                                                   : COLLSIM_BLOCKS_NONE;
    const long long n = collsim_block_elements(blocks, c->count, rank, c->root, nprocs);
    const int contributors = c->contributors > 1 ? c->contributors : 1;
    for (int k = 0; k < contributors; k++)
        for (long long i = 0; i < n; i++)
            datagen_value(c->seed, rank * contributors + k, (uint64_t)i, c->dtype, value_op(c),
                          c->dist, (char *)buf + ((size_t)k * (size_t)n + (size_t)i) * size);
}

long long check_result_elements(const check_case *c, int rank, int nprocs)
{
    const collsim_collective_info *info = collective_info(c);
    if (!check_holds(c, rank))
        return 0;
    const collsim_buffer_blocks blocks = info->recv_blocks == COLLSIM_BLOCKS_ONE_AT_ROOT ? COLLSIM_BLOCKS_ONE
                                  : info->recv_blocks == COLLSIM_BLOCKS_ALL_AT_ROOT
                                      ? COLLSIM_BLOCKS_ALL
                                      : info->recv_blocks;
    return collsim_block_elements(blocks, c->count, rank, c->root, nprocs);
}

int check_holds(const check_case *c, int rank)
{
    switch (collective_info(c)->holders) {
    case COLLSIM_HOLDERS_ROOT:
        return rank == c->root;
    case COLLSIM_HOLDERS_NOT_FIRST:
        return rank != 0;
    default:
        return 1;
    }
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

/* The running rank-order fold of one element over ranks 0, 1, ...: the fold
 * itself and, for floating-point sums, the exact sum, sum |x_i| and max |x_i|. */
typedef struct fold_state {
    char acc[8];
    int n; /* ranks folded */
    exact_sum sum;
    double abs_sum, abs_max;
} fold_state;

/* One element's references: the fold, the exact sum and the bounds. */
typedef struct element_reference {
    char ref[8], exact[8];
    double bound, scale, prerounded_bound;
} element_reference;

static int is_exact_sum(const check_case *c)
{
    return dtype_is_float(c->dtype) && collective_info(c)->has_op &&
           c->op == OP_SUM;
}

static void fold_init(fold_state *f)
{
    f->n = 0;
    exact_sum_init(&f->sum);
    f->abs_sum = 0.0;
    f->abs_max = 0.0;
}

/* Folds in rank's value of element `index`. */
static void fold_add(const check_case *c, fold_state *f, int rank, uint64_t index)
{
    char value[8];
    datagen_value(c->seed, rank, index, c->dtype, c->op, c->dist, f->n == 0 ? f->acc : value);
    if (f->n > 0)
        op_apply(c->op, c->dtype, f->acc, value);
    if (is_exact_sum(c)) {
        const double x = as_double(c->dtype, f->n == 0 ? f->acc : value);
        exact_sum_add(&f->sum, x);
        f->abs_sum += fabs(x);
        if (fabs(x) > f->abs_max)
            f->abs_max = fabs(x);
    }
    f->n++;
}

/* The references of the element folded so far. */
static void fold_reference(const check_case *c, const fold_state *f, element_reference *e)
{
    const int size = dtype_size(c->dtype);
    const double u = c->dtype == DTYPE_FLOAT ? FLT_EPSILON / 2 : DBL_EPSILON / 2;
    const double depth = f->n - 1;
    const double gamma_depth = depth * u / (1.0 - depth * u);
    memcpy(e->ref, f->acc, (size_t)size);
    e->bound = e->scale = e->prerounded_bound = 0.0;
    if (is_exact_sum(c)) {
        int residual_sign;
        const double rounded = exact_sum_round(&f->sum, &residual_sign);
        if (c->dtype == DTYPE_FLOAT) {
            const float fl = exact_sum_round_float(rounded, residual_sign);
            memcpy(e->exact, &fl, sizeof fl);
        } else {
            memcpy(e->exact, &rounded, sizeof rounded);
        }
        /* abs_sum is rounded upward by at most a relative n u: inflate it */
        const double abs_sum = f->abs_sum * (1.0 + 2.0 * f->n * DBL_EPSILON);
        e->bound = gamma_depth * abs_sum;
        e->scale = u * abs_sum;
        e->prerounded_bound = prerounded_bound(c->dtype, rounded, f->abs_max, f->n);
    } else if (dtype_is_float(c->dtype) && c->op == OP_PROD) {
        e->bound = 2.0 * gamma_depth * (1.0 + gamma_depth) * fabs(as_double(c->dtype, f->acc));
    }
}

/* The references of element `index` folded over ranks 0 .. nranks-1. */
static void reduction_reference(const check_case *c, int nranks, uint64_t index,
                                element_reference *e)
{
    fold_state f;
    fold_init(&f);
    for (int rank = 0; rank < nranks; rank++)
        fold_add(c, &f, rank, index);
    fold_reference(c, &f, e);
}

static void compute_reference(const check_case *c, int nprocs, check_reference *r)
{
    const int size = dtype_size(c->dtype);
    r->exact_sum = is_exact_sum(c) && c->collective != COLLSIM_BCAST;
    for (int i = 0; i < c->count; i++) {
        element_reference e = {{0}, {0}, 0.0, 0.0, 0.0};
        if (c->collective == COLLSIM_BCAST)
            datagen_value(c->seed, c->root, (uint64_t)i, c->dtype, OP_SUM, c->dist, e.ref);
        else
            reduction_reference(c, nprocs, (uint64_t)i, &e);
        memcpy((char *)r->ref + (size_t)i * size, e.ref, (size_t)size);
        memcpy((char *)r->exact + (size_t)i * size, e.exact, (size_t)size);
        r->bound[i] = e.bound;
        r->scale[i] = e.scale;
        r->prerounded_bound[i] = e.prerounded_bound;
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

/* Compares one element of a result, res_i, with its references; updates
 * out.  exact: the references hold the correctly rounded exact sum. */
static void compare_element(const check_case *c, const char *res_i, const element_reference *e,
                            int exact, check_result *out)
{
    const int size = dtype_size(c->dtype);
    if (memcmp(res_i, e->ref, (size_t)size) != 0)
        out->bitwise_rank_order = 0;
    if (exact) {
        const double err = fabs(as_double(c->dtype, res_i) - as_double(c->dtype, e->exact));
        const double ratio = error_ratio(err, e->bound);
        const double in_u = error_ratio(err, e->scale);
        if (ratio > out->max_error_ratio)
            out->max_error_ratio = ratio;
        if (in_u > out->max_error_u_sum_abs)
            out->max_error_u_sum_abs = in_u;
        const double distance =
            isnan(as_double(c->dtype, res_i)) ? INFINITY : ulps(c->dtype, res_i, e->exact);
        if (distance > out->max_ulp_error)
            out->max_ulp_error = distance;
        if (ratio > 1.0)
            out->ok = 0;
        if (c->prerounded_bound) {
            const double pr = error_ratio(err, e->prerounded_bound);
            if (pr > out->max_error_prerounded_ratio)
                out->max_error_prerounded_ratio = pr;
            if (pr > 1.0)
                out->ok = 0;
        }
        return;
    }
    if (memcmp(res_i, e->ref, (size_t)size) == 0)
        return;
    double ratio = INFINITY;
    if (dtype_is_float(c->dtype) && e->bound > 0.0) {
        const double err = fabs(as_double(c->dtype, res_i) - as_double(c->dtype, e->ref));
        ratio = err / e->bound;
        if (isnan(ratio))
            ratio = INFINITY;
    }
    if (dtype_is_float(c->dtype)) {
        const double distance =
            isnan(as_double(c->dtype, res_i)) ? INFINITY : ulps(c->dtype, res_i, e->ref);
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

/* Compares one holder's result with a whole-vector reference (allreduce,
 * reduce, bcast); updates out. */
static void compare(const check_case *c, const void *result, const check_reference *r,
                    check_result *out)
{
    const int size = dtype_size(c->dtype);
    const size_t nbytes = (size_t)c->count * size;
    if (memcmp(result, r->ref, nbytes) == 0 && !r->exact_sum)
        return;
    for (int i = 0; i < c->count; i++) {
        element_reference e;
        memcpy(e.ref, (const char *)r->ref + (size_t)i * size, (size_t)size);
        memcpy(e.exact, (const char *)r->exact + (size_t)i * size, (size_t)size);
        e.bound = r->bound[i];
        e.scale = r->scale[i];
        e.prerounded_bound = r->prerounded_bound[i];
        compare_element(c, (const char *)result + (size_t)i * size, &e, r->exact_sum, out);
    }
}

/* Compares holder's result with what the collective must give it, element by
 * element (the collectives other than allreduce, reduce and bcast):
 * allgather, gather: block r is rank r's input; alltoall: block r is block
 * `holder` of rank r's input; scatter: block `holder` of the root's input;
 * reduce_scatter: block `holder` of the fold over all ranks. */
static void compare_blocks(const check_case *c, int holder, int nprocs, const void *result,
                           check_result *out)
{
    const int size = dtype_size(c->dtype);
    const long long n = check_result_elements(c, holder, nprocs);
    for (long long j = 0; j < n; j++) {
        element_reference e = {{0}, {0}, 0.0, 0.0, 0.0};
        const long long block = j / c->count, i = j % c->count;
        int exact = 0;
        switch (c->collective) {
        case COLLSIM_ALLGATHER:
        case COLLSIM_GATHER:
            datagen_value(c->seed, (int)block, (uint64_t)i, c->dtype, OP_SUM, c->dist, e.ref);
            break;
        case COLLSIM_ALLTOALL:
            datagen_value(c->seed, (int)block, (uint64_t)holder * c->count + i, c->dtype, OP_SUM,
                          c->dist, e.ref);
            break;
        case COLLSIM_SCATTER:
            datagen_value(c->seed, c->root, (uint64_t)holder * c->count + j, c->dtype, OP_SUM,
                          c->dist, e.ref);
            break;
        default: /* reduce_scatter */
            reduction_reference(c, nprocs, (uint64_t)holder * c->count + j, &e);
            exact = is_exact_sum(c);
            break;
        }
        compare_element(c, (const char *)result + (size_t)j * size, &e, exact, out);
    }
}

/* scan and exscan: holder h's element i against the fold of ranks 0..h
 * (exscan: 0..h-1), built once per element over all holders. */
static void compare_prefixes(const check_case *c, int nprocs, const void *const *results,
                             check_result *out)
{
    const int size = dtype_size(c->dtype);
    const int exclusive = c->collective == COLLSIM_EXSCAN;
    for (int i = 0; i < c->count; i++) {
        fold_state f;
        fold_init(&f);
        for (int h = 0; h < nprocs; h++) {
            if (exclusive && h == 0)
                continue;
            fold_add(c, &f, exclusive ? h - 1 : h, (uint64_t)i);
            element_reference e;
            fold_reference(c, &f, &e);
            compare_element(c, (const char *)results[h] + (size_t)i * size, &e, is_exact_sum(c),
                            out);
        }
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
    const int root = c->collective == COLLSIM_BCAST ? c->root : -1;
    for (int i = 0; i < cache->used; i++) {
        const check_reference *r = &cache->slot[i];
        if (r->collective == c->collective && r->dtype == c->dtype && r->op == c->op && r->dist == c->dist &&
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
    r->collective = c->collective;
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

/* Whether every holder must hold the same bytes (the results that are one
 * value for all: allreduce, bcast, allgather). */
static int one_result(const check_case *c)
{
    return c->collective == COLLSIM_ALLREDUCE || c->collective == COLLSIM_BCAST ||
           c->collective == COLLSIM_ALLGATHER;
}

int check_result_collect(const check_case *c, const void *result, MPI_Comm world,
                         const void *const *shared, check_cache *cache, check_result *out)
{
    int rank, nprocs, rc = MPI_SUCCESS;
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &nprocs);
    const int size = dtype_size(c->dtype);
    const int whole_vector = c->collective == COLLSIM_ALLREDUCE ||
                             c->collective == COLLSIM_REDUCE || c->collective == COLLSIM_BCAST;
    const int prefix = c->collective == COLLSIM_SCAN || c->collective == COLLSIM_EXSCAN;

    out->ok = 1;
    out->bitwise_rank_order = 1;
    out->ranks_agree = 1;
    out->max_error_ratio = 0.0;
    out->max_ulp_error = 0.0;
    out->max_error_u_sum_abs = is_exact_sum(c) ? 0.0 : -1.0;
    out->max_error_prerounded_ratio =
        c->prerounded_bound && out->max_error_u_sum_abs >= 0.0 ? 0.0 : -1.0;
    out->result_hash = 0;

    if (rank != 0) {
        const long long n = check_result_elements(c, rank, nprocs);
        if (n > 0 && shared == NULL)
            rc = MPI_Send(result, (int)n, dtype_mpi(c->dtype), 0, CHECK_TAG, world);
        return rc;
    }

    /* rank 0 reads every holder's result in rank order: from the shared
     * buffers, its own, or a message; a scan's are all kept at once */
    size_t largest = 0;
    for (int h = 0; h < nprocs; h++) {
        const size_t nbytes = (size_t)check_result_elements(c, h, nprocs) * size;
        if (nbytes > largest)
            largest = nbytes;
    }
    void *first = malloc(largest + 1);
    void *other = malloc(largest + 1);
    const void **held = prefix ? calloc((size_t)nprocs, sizeof *held) : NULL;
    void **copies = prefix && shared == NULL ? calloc((size_t)nprocs, sizeof *copies) : NULL;
    /* the references cover every virtual rank */
    const int contributors = c->contributors > 1 ? c->contributors : 1;
    const check_reference *r = whole_vector ? reference_for(c, nprocs * contributors, cache) : NULL;
    int have_first = 0;
    size_t first_bytes = 0;
    uint64_t hash = UINT64_C(0xcbf29ce484222325);
    if (!first || !other || (whole_vector && !r) || (prefix && !held) ||
        (prefix && shared == NULL && !copies)) {
        rc = MPI_ERR_NO_MEM;
        goto cleanup;
    }

    for (int holder = 0; holder < nprocs; holder++) {
        const long long n = check_result_elements(c, holder, nprocs);
        if (!check_holds(c, holder))
            continue;
        const size_t nbytes = (size_t)n * size;
        void *buf = !have_first ? first : other;
        if (prefix && shared == NULL) {
            copies[holder] = malloc(nbytes + 1);
            if (copies[holder] == NULL) {
                rc = MPI_ERR_NO_MEM;
                goto cleanup;
            }
            buf = copies[holder];
        }
        if (shared != NULL) {
            memcpy(buf, shared[holder], nbytes);
        } else if (holder == 0) {
            memcpy(buf, result, nbytes);
        } else if (n > 0) {
            rc = MPI_Recv(buf, (int)n, dtype_mpi(c->dtype), holder, CHECK_TAG, world,
                          MPI_STATUS_IGNORE);
            if (rc != MPI_SUCCESS)
                goto cleanup;
        }
        if (whole_vector)
            compare(c, buf, r, out);
        else if (prefix)
            held[holder] = shared != NULL ? shared[holder] : buf;
        else
            compare_blocks(c, holder, nprocs, buf, out);
        if (!have_first) {
            if (buf != first)
                memcpy(first, buf, nbytes);
            first_bytes = nbytes;
            have_first = 1;
        } else if (one_result(c) && memcmp(buf, first, nbytes) != 0) {
            out->ranks_agree = 0;
        }
        /* results that differ by rank by definition: the hash covers them all */
        if (!one_result(c))
            hash = check_hash_continue(hash, buf, nbytes);
    }
    if (prefix)
        compare_prefixes(c, nprocs, held, out);
    out->result_hash = one_result(c) || c->collective == COLLSIM_REDUCE ||
                               c->collective == COLLSIM_GATHER
                           ? check_hash(first, first_bytes)
                           : hash;

cleanup:
    if (copies != NULL)
        for (int h = 0; h < nprocs; h++)
            free(copies[h]);
    free(copies);
    free(held);
    free(first);
    free(other);
    return rc;
}

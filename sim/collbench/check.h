/*
 * check.h: verification of a collective's result against an independent
 * reference: the rank-order sequential fold of the same generated inputs,
 * computed on rank 0 without communication.
 */
#ifndef COLLBENCH_CHECK_H
#define COLLBENCH_CHECK_H

#include "datagen.h"

#include <mpi.h>
#include <stdint.h>
#include <stddef.h>

typedef enum { CHECK_ALLREDUCE, CHECK_REDUCE, CHECK_BCAST } check_kind;

typedef struct check_case {
    check_kind kind;
    dtype_id dtype;
    op_id op;        /* ignored for bcast */
    int root;        /* reduce, bcast */
    int count;
    uint64_t seed;
} check_case;

typedef struct check_result {
    int ok;                 /* every holder's result within the bound */
    int bitwise_rank_order; /* every holder's result equals the rank-order fold bit for bit */
    int ranks_agree;        /* every holder's result is the same bytes */
    double max_error_ratio; /* max over elements and holders of |result - ref| / bound */
    uint64_t result_hash;   /* FNV-1a 64 of the first holder's result (root, or rank 0) */
} check_result;

/* Fills buf with rank's input (count elements). */
void check_fill_input(const check_case *c, int rank, void *buf);

/* References rank 0 has computed, kept so that a case repeated with another
 * root is not recomputed (a reduction's reference does not depend on the
 * root; computing it is O(p count) and dominated the correctness matrix at
 * p = 128).  Owned by the caller: no global state. */
#define CHECK_CACHE_SLOTS 16
typedef struct check_reference {
    check_kind kind;
    dtype_id dtype;
    op_id op;
    int count, root, nprocs;
    uint64_t seed;
    void *ref;
    double *bound;
} check_reference;
typedef struct check_cache {
    int used;
    check_reference slot[CHECK_CACHE_SLOTS];
} check_cache;

void check_cache_init(check_cache *cache);
void check_cache_free(check_cache *cache);

/* Collective over world: every rank passes its result buffer (ignored on
 * ranks that hold no result).  The verdict is meaningful on rank 0 only.
 * Returns an MPI error code. */
int check_result_collect(const check_case *c, const void *result, MPI_Comm world,
                         check_cache *cache, check_result *out);

/* FNV-1a 64-bit hash of len bytes. */
uint64_t check_hash(const void *data, size_t len);

#endif

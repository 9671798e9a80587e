/*
 * check.h: verification of a collective's result against independent
 * references computed on rank 0 from the generator alone: the rank-order
 * sequential fold of the same inputs, and for floating-point sums the
 * correctly rounded exact sum.
 */
#ifndef COLLBENCH_CHECK_H
#define COLLBENCH_CHECK_H

#include "collsim.h"
#include "datagen.h"

#include <mpi.h>
#include <stddef.h>
#include <stdint.h>

typedef struct check_case {
    collsim_collective collective;
    dtype_id dtype;
    op_id op;        /* the reductions' (collectives.def's op); ignored for the others */
    int root;        /* the rooted collectives' */
    int count;       /* elements in one block (collectives.def) */
    uint64_t seed;
    dist_id dist;    /* distribution of floating-point inputs */
    int contributors; /* virtual ranks per rank (>= 1): rank r holds the inputs of
                       * r N .. r N + N - 1, and the references cover all np N */
    int prerounded_bound; /* floating-point sums: hold the result to the bound of
                           * pre-rounded summation (algorithms/common/prerounding.h)
                           * as well as to Higham's */
} check_case;

typedef struct check_result {
    int ok;                 /* every holder's result within the bound */
    int bitwise_rank_order; /* every holder's result equals the rank-order fold bit for bit */
    int ranks_agree;        /* every holder's result is the same bytes (allreduce, bcast,
                             * allgather; 1 where the results differ by definition) */
    double max_error_ratio; /* max over elements and holders of |error| / bound (<= 1 passes) */
    double max_ulp_error;   /* max ulps from the correctly rounded exact sum (sums), or from
                             * the rank-order result (other ops) */
    double max_error_u_sum_abs; /* sums: max |result - exact| / (u sum |x_i|), to hold against
                                 * gamma_d / u ~ d for an algorithm of summation depth d;
                                 * -1 when not a floating-point sum */
    double max_error_prerounded_ratio; /* with prerounded_bound: max |error| over the
                                        * pre-rounded bound; -1 otherwise */
    uint64_t result_hash;   /* FNV-1a 64 of the first holder's result (root, or rank 0) where
                             * one rank holds it or all hold the same; of every holder's
                             * result in rank order where they differ by definition
                             * (reduce_scatter, alltoall, scatter, scan, exscan) */
} check_result;

/* References rank 0 has computed, kept so that a case repeated with another
 * root is not recomputed (a reduction's reference does not depend on the
 * root; computing it is O(p count) and dominates the correctness matrix at
 * large p).  Owned by the caller: no global state. */
#define CHECK_CACHE_SLOTS 16
typedef struct check_reference {
    collsim_collective collective;
    dtype_id dtype;
    op_id op;
    dist_id dist;
    int count, root, nprocs;
    uint64_t seed;
    void *ref;      /* the rank-order fold */
    void *exact;    /* floating-point sums: the correctly rounded exact sum */
    double *bound;  /* per element: the bound of the check (0: exact match with ref) */
    double *scale;  /* per element: u sum |x_i| (sums) */
    double *prerounded_bound; /* per element: the bound of pre-rounded summation (sums) */
    int exact_sum;  /* the case is a floating-point sum */
} check_reference;
typedef struct check_cache {
    int used;
    check_reference slot[CHECK_CACHE_SLOTS];
} check_cache;

void check_cache_init(check_cache *cache);
void check_cache_free(check_cache *cache);

/* Fills buf with rank's input (the send buffer's blocks of collectives.def;
 * a bcast's root buffer): c->contributors vectors of the block count, those
 * of virtual ranks rank N .. rank N + N - 1.  Element j of rank r's input is
 * datagen_value(seed, r, j): block b of an input of p blocks is its elements
 * b count .. b count + count - 1. */
void check_fill_input(const check_case *c, int rank, int nprocs, void *buf);

/* Whether rank holds a result the check reads (collectives.def's holders). */
int check_holds(const check_case *c, int rank);

/* The elements of rank's result (0 on a rank that holds none). */
long long check_result_elements(const check_case *c, int rank, int nprocs);

/* Collective over world: every rank passes its result buffer (ignored on
 * ranks that hold no result).  The verdict is meaningful on rank 0 only.
 * With shared non-NULL (under SMPI, where every rank lives in one process),
 * shared[r] is rank r's result and rank 0 reads it in place: no message, so
 * the check takes no simulated time; only rank 0 needs to call then.
 * Returns an MPI error code. */
int check_result_collect(const check_case *c, const void *result, MPI_Comm world,
                         const void *const *shared, check_cache *cache, check_result *out);

/* FNV-1a 64-bit hash of len bytes. */
uint64_t check_hash(const void *data, size_t len);
/* The same hash continued from h over len more bytes. */
uint64_t check_hash_continue(uint64_t h, const void *data, size_t len);

#endif

/*
 * datagen.h: the seeded input generator and the datatypes/ops collbench
 * knows.  An input element depends only on (seed, global rank, element
 * index), so any rank can regenerate every other rank's input and the
 * reference result needs no communication.
 */
#ifndef COLLBENCH_DATAGEN_H
#define COLLBENCH_DATAGEN_H

#include <mpi.h>
#include <stdint.h>

typedef enum { DTYPE_INT32, DTYPE_INT64, DTYPE_FLOAT, DTYPE_DOUBLE, DTYPE_COUNT } dtype_id;
typedef enum { OP_SUM, OP_PROD, OP_MAX, OP_MIN, OP_FIRST_NONZERO, OP_COUNT } op_id;
/* Distributions of floating-point inputs (integers ignore them):
 *   uniform    uniform in [-1, 1)
 *   lognormal  +-m 2^e, m uniform in [1, 2), e ~ normal (sigma ~9.2, |e| <= 32),
 *              random sign: a wide range with mixed signs
 *   illcond    ranks 2k and 2k+1 carry +B_k and -B_k (|B_k| up to 2^50, float
 *              2^24) plus a uniform [-1, 1) part, rounded: for an even number of
 *              ranks the exact sum is near zero after heavy cancellation */
typedef enum { DIST_UNIFORM, DIST_LOGNORMAL, DIST_ILLCOND, DIST_COUNT } dist_id;

extern const char *const dtype_names[DTYPE_COUNT];
extern const char *const op_names[OP_COUNT];
extern const char *const dist_names[DIST_COUNT];

int dtype_size(dtype_id dtype);
MPI_Datatype dtype_mpi(dtype_id dtype);
int dtype_is_float(dtype_id dtype);

/* 64 random bits for (seed, rank, index): splitmix64 applied three times. */
uint64_t datagen_bits(uint64_t seed, int rank, uint64_t index);

/* Writes element `index` of rank's input for (dtype, op, dist) into out (one
 * element of dtype_size bytes).  Values are chosen so that no op overflows:
 * sums and extrema take small integers or floats of the distribution,
 * products take +-1 integers or floats within 2^-10 of 1, first_nonzero
 * takes zero with probability 1/2.  collsim.analysis.datagen is the same
 * generator in Python, bit for bit. */
void datagen_value(uint64_t seed, int rank, uint64_t index, dtype_id dtype, op_id op,
                   dist_id dist, void *out);

/* Creates the MPI_Op for op (the builtin one, or the user-defined
 * non-commutative first_nonzero).  *created says whether to free it. */
int op_create(op_id op, MPI_Op *mpi_op, int *created);

/* Applies op to one element in place: acc = acc op value (acc left). */
void op_apply(op_id op, dtype_id dtype, void *acc, const void *value);

#endif

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

extern const char *const dtype_names[DTYPE_COUNT];
extern const char *const op_names[OP_COUNT];

int dtype_size(dtype_id dtype);
MPI_Datatype dtype_mpi(dtype_id dtype);
int dtype_is_float(dtype_id dtype);

/* 64 random bits for (seed, rank, index): splitmix64 applied three times. */
uint64_t datagen_bits(uint64_t seed, int rank, uint64_t index);

/* Writes element `index` of rank's input for (dtype, op) into out (one
 * element of dtype_size bytes).  Values are chosen so that no op overflows:
 * sums and extrema take small integers or uniform [-1, 1) floats, products
 * take +-1 integers or floats within 2^-10 of 1, first_nonzero takes zero
 * with probability 1/2. */
void datagen_value(uint64_t seed, int rank, uint64_t index, dtype_id dtype, op_id op, void *out);

/* Creates the MPI_Op for op (the builtin one, or the user-defined
 * non-commutative first_nonzero).  *created says whether to free it. */
int op_create(op_id op, MPI_Op *mpi_op, int *created);

/* Applies op to one element in place: acc = acc op value (acc left). */
void op_apply(op_id op, dtype_id dtype, void *acc, const void *value);

#endif

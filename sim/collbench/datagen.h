/*
 * datagen.h: the seeded input generator and the datatypes, ops and
 * distributions collbench knows (listed once, in datagen.def).  An input element depends only on (seed, global rank, element
 * index), so any rank can regenerate every other rank's input and the
 * reference result needs no communication.
 */
#ifndef COLLBENCH_DATAGEN_H
#define COLLBENCH_DATAGEN_H

#include <mpi.h>
#include <stdint.h>

/* The lines of datagen.def, as enums (DTYPE_INT32, OP_SUM, DIST_UNIFORM, ...). */
typedef enum {
#define COLLBENCH_DTYPE(ID, name, size_bytes, is_float, mpi_datatype) DTYPE_##ID,
#include "datagen.def"
#undef COLLBENCH_DTYPE
    DTYPE_COUNT
} dtype_id;
typedef enum {
#define COLLBENCH_OP(ID, name, commutative, builtin_mpi_op, summary) OP_##ID,
#include "datagen.def"
#undef COLLBENCH_OP
    OP_COUNT
} op_id;
typedef enum {
#define COLLBENCH_DIST(ID, name, summary) DIST_##ID,
#include "datagen.def"
#undef COLLBENCH_DIST
    DIST_COUNT
} dist_id;

extern const char *const dtype_names[DTYPE_COUNT];
extern const char *const op_names[OP_COUNT];
extern const char *const dist_names[DIST_COUNT];

int dtype_size(dtype_id dtype);
MPI_Datatype dtype_mpi(dtype_id dtype);
int dtype_is_float(dtype_id dtype);
int op_is_commutative(op_id op);

/* --list --json: prints datagen.def as one JSON line, {"types": [...], "ops":
 * [...], "distributions": [...]}, each item an object of the line's columns. */
void datagen_print_catalog_json(void);

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

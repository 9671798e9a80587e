/*
 * datagen.c: seeded inputs and the element-wise ops used by the reference.
 */
#include "datagen.h"

#include <math.h>
#include <string.h>

#include <stdio.h>

const char *const dtype_names[DTYPE_COUNT] = {
#define COLLBENCH_DTYPE(ID, name, size_bytes, is_float, mpi_datatype) name,
#include "datagen.def"
#undef COLLBENCH_DTYPE
};
const char *const op_names[OP_COUNT] = {
#define COLLBENCH_OP(ID, name, commutative, builtin_mpi_op, summary) name,
#include "datagen.def"
#undef COLLBENCH_OP
};
const char *const dist_names[DIST_COUNT] = {
#define COLLBENCH_DIST(ID, name, summary) name,
#include "datagen.def"
#undef COLLBENCH_DIST
};

int dtype_size(dtype_id dtype)
{
    static const int sizes[DTYPE_COUNT] = {
#define COLLBENCH_DTYPE(ID, name, size_bytes, is_float, mpi_datatype) size_bytes,
#include "datagen.def"
#undef COLLBENCH_DTYPE
    };
    return sizes[dtype];
}

/* MPI's datatypes are not constant expressions in every MPI (a switch, not a
 * table). */
MPI_Datatype dtype_mpi(dtype_id dtype)
{
    switch (dtype) {
#define COLLBENCH_DTYPE(ID, name, size_bytes, is_float, mpi_datatype) \
    case DTYPE_##ID:                                                  \
        return mpi_datatype;
#include "datagen.def"
#undef COLLBENCH_DTYPE
    default:
        return MPI_DATATYPE_NULL;
    }
}

int dtype_is_float(dtype_id dtype)
{
    static const int is_floats[DTYPE_COUNT] = {
#define COLLBENCH_DTYPE(ID, name, size_bytes, is_float, mpi_datatype) is_float,
#include "datagen.def"
#undef COLLBENCH_DTYPE
    };
    return is_floats[dtype];
}

int op_is_commutative(op_id op)
{
    static const int commutatives[OP_COUNT] = {
#define COLLBENCH_OP(ID, name, commutative, builtin_mpi_op, summary) commutative,
#include "datagen.def"
#undef COLLBENCH_OP
    };
    return commutatives[op];
}

/* One JSON string; the texts of datagen.def hold no character to escape. */
void datagen_print_catalog_json(void)
{
    const char *sep = "";
    printf("{\"types\": [");
#define COLLBENCH_DTYPE(ID, name, size_bytes, is_float, mpi_datatype)                  \
    printf("%s{\"name\": \"%s\", \"size_bytes\": %d, \"is_float\": %s}", sep, name, \
           size_bytes, is_float ? "true" : "false");                                    \
    sep = ", ";
#include "datagen.def"
#undef COLLBENCH_DTYPE
    sep = "";
    printf("], \"ops\": [");
#define COLLBENCH_OP(ID, name, commutative, builtin_mpi_op, summary)                   \
    printf("%s{\"name\": \"%s\", \"commutative\": %s, \"summary\": \"%s\"}", sep, name, \
           commutative ? "true" : "false", summary);                                    \
    sep = ", ";
#include "datagen.def"
#undef COLLBENCH_OP
    sep = "";
    printf("], \"distributions\": [");
#define COLLBENCH_DIST(ID, name, summary)                                   \
    printf("%s{\"name\": \"%s\", \"summary\": \"%s\"}", sep, name, summary); \
    sep = ", ";
#include "datagen.def"
#undef COLLBENCH_DIST
    printf("]}\n");
}

static uint64_t splitmix64(uint64_t z)
{
    z += UINT64_C(0x9e3779b97f4a7c15);
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

uint64_t datagen_bits(uint64_t seed, int rank, uint64_t index)
{
    return splitmix64(splitmix64(splitmix64(seed) ^ (uint64_t)(uint32_t)rank) ^ index);
}

/* Uniform in [-1, 1) with 53 (double) or 24 (float) random bits; exact. */
static double uniform_pm1(uint64_t bits)
{
    return (double)(bits >> 11) * 0x1.0p-52 - 1.0;
}

static float uniform_pm1_float(uint64_t bits)
{
    return (float)(bits >> 40) * 0x1.0p-23f - 1.0f;
}

/* e ~ normal: a sum of four independent bytes (mean 510, sigma ~148) / 16 - 32. */
static int lognormal_exponent(uint64_t bits)
{
    const uint64_t more = splitmix64(bits);
    const int byte_sum = (int)(more & 0xff) + (int)((more >> 8) & 0xff) +
                         (int)((more >> 16) & 0xff) + (int)((more >> 24) & 0xff);
    return byte_sum / 16 - 32;
}

/* The cancelling part of illcond for rank's pair: an integer times 2^20
 * (double) or 2^8 (float), positive on even ranks, negative on odd ones. */
static uint64_t illcond_bits(uint64_t seed, int rank, uint64_t index)
{
    return datagen_bits(seed ^ UINT64_C(0x5eedc0ffee123457), rank / 2, index);
}

static double double_value(uint64_t seed, int rank, uint64_t index, uint64_t bits, dist_id dist)
{
    switch (dist) {
    case DIST_LOGNORMAL: {
        const double mantissa = 1.0 + (double)(bits & ((UINT64_C(1) << 52) - 1)) * 0x1.0p-52;
        const double magnitude = ldexp(mantissa, lognormal_exponent(bits));
        return (bits >> 63) ? -magnitude : magnitude;
    }
    case DIST_ILLCOND: {
        const double big = ldexp((double)(illcond_bits(seed, rank, index) >> 34), 20);
        return (rank % 2 == 0 ? big : -big) + uniform_pm1(bits);
    }
    default:
        return uniform_pm1(bits);
    }
}

static float float_value(uint64_t seed, int rank, uint64_t index, uint64_t bits, dist_id dist)
{
    switch (dist) {
    case DIST_LOGNORMAL: {
        const float mantissa = 1.0f + (float)(bits & ((UINT64_C(1) << 23) - 1)) * 0x1.0p-23f;
        const float magnitude = ldexpf(mantissa, lognormal_exponent(bits));
        return (bits >> 63) ? -magnitude : magnitude;
    }
    case DIST_ILLCOND: {
        const float big = ldexpf((float)(illcond_bits(seed, rank, index) >> 48), 8);
        return (rank % 2 == 0 ? big : -big) + uniform_pm1_float(bits);
    }
    default:
        return uniform_pm1_float(bits);
    }
}

void datagen_value(uint64_t seed, int rank, uint64_t index, dtype_id dtype, op_id op,
                   dist_id dist, void *out)
{
    const uint64_t bits = datagen_bits(seed, rank, index);
    /* first_nonzero: bit 0 decides zero / nonzero, the rest gives the value */
    const int zero = (op == OP_FIRST_NONZERO) && (bits & 1);
    int64_t ivalue;
    double dvalue;
    float fvalue;

    if (op == OP_PROD) {
        ivalue = (bits >> 63) ? 1 : -1;
        dvalue = 1.0 + ((double)(bits >> 11) * 0x1.0p-53 - 0.5) * 0x1.0p-10;
        fvalue = 1.0f + ((float)(bits >> 40) * 0x1.0p-24f - 0.5f) * 0x1.0p-10f;
    } else {
        ivalue = (int64_t)((bits >> 33) % 2001) - 1000; /* [-1000, 1000] */
        dvalue = double_value(seed, rank, index, bits, dist);
        fvalue = float_value(seed, rank, index, bits, dist);
        if (op == OP_FIRST_NONZERO) {
            if (ivalue == 0)
                ivalue = 1;
            if (dvalue == 0.0)
                dvalue = 1.0;
            if (fvalue == 0.0f)
                fvalue = 1.0f;
        }
    }
    if (zero) {
        ivalue = 0;
        dvalue = 0.0;
        fvalue = 0.0f;
    }
    switch (dtype) {
    case DTYPE_INT32: {
        int32_t v = (int32_t)ivalue;
        memcpy(out, &v, sizeof v);
        break;
    }
    case DTYPE_INT64:
        memcpy(out, &ivalue, sizeof ivalue);
        break;
    case DTYPE_FLOAT:
        memcpy(out, &fvalue, sizeof fvalue);
        break;
    default:
        memcpy(out, &dvalue, sizeof dvalue);
        break;
    }
}

#define APPLY_TYPED(T, OP, acc, value)          \
    do {                                        \
        T a_, v_;                               \
        memcpy(&a_, acc, sizeof a_);            \
        memcpy(&v_, value, sizeof v_);          \
        switch (OP) {                           \
        case OP_SUM:                            \
            a_ = a_ + v_;                       \
            break;                              \
        case OP_PROD:                           \
            a_ = a_ * v_;                       \
            break;                              \
        case OP_MAX:                            \
            a_ = a_ > v_ ? a_ : v_;             \
            break;                              \
        case OP_MIN:                            \
            a_ = a_ < v_ ? a_ : v_;             \
            break;                              \
        default:                                \
            a_ = a_ != 0 ? a_ : v_;             \
            break;                              \
        }                                       \
        memcpy(acc, &a_, sizeof a_);            \
    } while (0)

void op_apply(op_id op, dtype_id dtype, void *acc, const void *value)
{
    switch (dtype) {
    case DTYPE_INT32:
        APPLY_TYPED(int32_t, op, acc, value);
        break;
    case DTYPE_INT64:
        APPLY_TYPED(int64_t, op, acc, value);
        break;
    case DTYPE_FLOAT:
        APPLY_TYPED(float, op, acc, value);
        break;
    default:
        APPLY_TYPED(double, op, acc, value);
        break;
    }
}

/* The user-defined op: x op y = x if x != 0 else y.  Associative, not
 * commutative: the result is the operand of the lowest rank that is nonzero,
 * so any swap of operands shows in the result. */
static void first_nonzero(void *invec, void *inoutvec, int *len, MPI_Datatype *datatype)
{
    dtype_id dtype;
    if (*datatype == MPI_INT32_T)
        dtype = DTYPE_INT32;
    else if (*datatype == MPI_INT64_T)
        dtype = DTYPE_INT64;
    else if (*datatype == MPI_FLOAT)
        dtype = DTYPE_FLOAT;
    else
        dtype = DTYPE_DOUBLE;
    const int size = dtype_size(dtype);
    for (int i = 0; i < *len; i++) {
        char *inout = (char *)inoutvec + (size_t)i * size;
        char tmp[8];
        memcpy(tmp, (char *)invec + (size_t)i * size, size);
        op_apply(OP_FIRST_NONZERO, dtype, tmp, inout);
        memcpy(inout, tmp, size);
    }
}

int op_create(op_id op, MPI_Op *mpi_op, int *created)
{
    MPI_Op builtin = MPI_OP_NULL;
    switch (op) {
#define COLLBENCH_OP(ID, name, commutative, builtin_mpi_op, summary) \
    case OP_##ID:                                                    \
        builtin = builtin_mpi_op;                                    \
        break;
#include "datagen.def"
#undef COLLBENCH_OP
    default:
        break;
    }
    *created = builtin == MPI_OP_NULL;
    if (!*created) {
        *mpi_op = builtin;
        return MPI_SUCCESS;
    }
    /* the one user-defined op so far */
    return MPI_Op_create(first_nonzero, op_is_commutative(op), mpi_op);
}

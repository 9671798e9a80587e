/*
 * collsim.h: the public interface of collsim's collective algorithms.
 *
 * Every algorithm of a collective has the same signature: the MPI arguments of
 * that collective plus a pointer to collsim_params.  Algorithms are reached
 * through the registry (registry.def), which names each one once together with
 * its restrictions; collsim_check_restrictions() is the one place that enforces
 * them, so an algorithm is never silently replaced by another.
 *
 * Every local reduction goes through collsim_reduce_local(), which applies the
 * MPI_Op and charges gamma seconds per byte on the simulated clock.  There is
 * no mutable global state anywhere, so SMPI can run without privatization.
 */
#ifndef COLLSIM_H
#define COLLSIM_H

#include <mpi.h>
#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Parameters shared by all algorithms; an algorithm reads the ones it uses. */
typedef struct collsim_params {
    /* Cost of combining one byte of two operands in a local reduction, in
     * simulated seconds; charged by collsim_reduce_local(). */
    double gamma_s_per_byte;
    /* Pipelining segment size in bytes, 0 = unsegmented (unused by the first
     * set of algorithms, reserved for the pipelined ones). */
    size_t segment_bytes;
} collsim_params;

/* The three signatures.  Each returns MPI_SUCCESS or an MPI error code. */
typedef int collsim_allreduce_fn(const void *sendbuf, void *recvbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 const collsim_params *params);
typedef int collsim_reduce_fn(const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                              const collsim_params *params);
typedef int collsim_bcast_fn(void *buffer, int count, MPI_Datatype datatype, int root,
                             MPI_Comm comm, const collsim_params *params);

/* Restrictions an algorithm can declare in registry.def. */
enum {
    COLLSIM_RESTRICT_COMMUTATIVE = 1u << 0, /* the op must be commutative */
    COLLSIM_RESTRICT_POWER_OF_TWO = 1u << 1 /* the process count must be a power of two */
};

typedef enum collsim_collective {
    COLLSIM_ALLREDUCE,
    COLLSIM_REDUCE,
    COLLSIM_BCAST
} collsim_collective;

typedef struct collsim_algorithm {
    collsim_collective collective;
    const char *collective_name;
    const char *name;
    unsigned restrictions;
    const char *summary;
    union {
        collsim_allreduce_fn *allreduce;
        collsim_reduce_fn *reduce;
        collsim_bcast_fn *bcast;
    } fn;
} collsim_algorithm;

/* Declarations of every algorithm, generated from the registry. */
#define COLLSIM_ALGORITHM(coll, name, restrictions, summary) \
    collsim_##coll##_fn collsim_##coll##_##name;
#include "registry.def"
#undef COLLSIM_ALGORITHM

/* The registry as an array of *count entries, in registry.def order. */
const collsim_algorithm *collsim_registry(size_t *count);

/* The entry for (collective, name), or NULL when there is none. */
const collsim_algorithm *collsim_find_algorithm(const char *collective, const char *name);

/* NULL when the algorithm may run on comm_size processes with an op of the
 * given commutativity; otherwise a sentence naming the violated restriction. */
const char *collsim_check_restrictions(const collsim_algorithm *alg, int comm_size,
                                       int op_is_commutative);

/* Applies op elementwise: inoutbuf[i] = inbuf[i] op inoutbuf[i] (MPI order:
 * inbuf is the left operand), then charges count * type size * gamma seconds
 * of computation on the simulated clock. */
int collsim_reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, const collsim_params *params);

#ifdef __cplusplus
}
#endif

#endif /* COLLSIM_H */

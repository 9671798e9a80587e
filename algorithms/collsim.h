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
    /* Pipelined algorithms: the vector is cut into block_count blocks, or
     * into blocks of segment_bytes; both 0 = the algorithm's default (the
     * model-optimal block count). */
    size_t segment_bytes;
    int block_count;
    /* The network's alpha / beta in bytes, for the default block count of the
     * pipelined algorithms (the pipelining lemma); 0 = the nominal
     * COLLSIM_NOMINAL_ALPHA_OVER_BETA_BYTES of common/segment.h.  A hint from
     * the harness, read by every algorithm that takes segments. */
    double alpha_over_beta_bytes;
    /* Hierarchical algorithms: the number of groups G (0 = default). */
    int group_count;
    /* Two-level algorithms: the algorithm used inside groups and between
     * group leaders, by registry name (NULL = the algorithm's default). */
    const char *inner_algorithm;
    const char *outer_algorithm;
    /* Chain algorithms: the number of chains the root heads (Open MPI's
     * coll_tuned_<collective>_algorithm_chain_fanout); 0 = the registry's
     * default (collsim_chain_fanout). */
    int chain_fanout;
    /* Node-aware algorithms: ranks per exposed node (0 = the real node, as
     * grouped by MPI_Comm_split_type(MPI_COMM_TYPE_SHARED)). */
    int node_size;
    /* Node-aware algorithms: 1 = the node and leader communicators are made
     * once per communicator, on the first call, and kept (as an MPI attribute
     * of the communicator) for every later call, as MPICH makes them when a
     * communicator is created; collbench then makes one untimed call before
     * timing.  0 (the default) = made and freed in every call, and timed. */
    int cached_comms;
    /* Virtual contributors per rank (0 or 1: one, the usual case).  With
     * N > 1, sendbuf holds N vectors of count elements, the inputs of the
     * consecutive virtual ranks rank * N .. rank * N + N - 1, and the result
     * is the reduction over all p * N of them: the same data spread over
     * fewer processes.  Only algorithms declaring COLLSIM_PARAM_CONTRIBUTORS
     * read it (the reproducible ones, whose result must not depend on the
     * decomposition); the harness combines locally for the others. */
    int contributors;
    /* Timing only: data buffers are shared across ranks (SMPI's shared
     * malloc, collsim_buffer_alloc) and local reductions are charged but not
     * computed, so the result is garbage and the simulated time is the same
     * as with real data (no algorithm's messages or charges depend on the
     * values).  Ignored when built against a real MPI. */
    int timing_only;
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
    COLLSIM_RESTRICT_POWER_OF_TWO = 1u << 1, /* the process count must be a power of two */
    COLLSIM_RESTRICT_FLOAT_SUM = 1u << 2     /* the op must be MPI_SUM on float or double */
};

/* What a restriction flag means, for the checks and for collbench --list
 * --json, which publishes it so that no other program re-decides it. */
typedef struct collsim_restriction {
    unsigned flag;           /* COLLSIM_RESTRICT_* */
    const char *name;        /* short name in --list ("commutative") */
    const char *requirement; /* what the call must meet ("commutative_op") */
    const char *sentence;    /* the error when it does not ("requires a commutative op") */
} collsim_restriction;

/* Every restriction, *count of them. */
const collsim_restriction *collsim_restrictions(size_t *count);

/* Parameters an algorithm reads, declared in registry.def. */
enum {
    COLLSIM_PARAM_SEGMENTS = 1u << 0,  /* segment_bytes or block_count */
    COLLSIM_PARAM_GROUPS = 1u << 1,    /* group_count */
    COLLSIM_PARAM_INNER_OUTER = 1u << 2, /* inner_algorithm, outer_algorithm */
    COLLSIM_PARAM_NODE_SIZE = 1u << 3, /* node_size */
    COLLSIM_PARAM_CONTRIBUTORS = 1u << 4, /* contributors */
    COLLSIM_PARAM_CHAIN_FANOUT = 1u << 5, /* chain_fanout */
    COLLSIM_PARAM_CACHED_COMMS = 1u << 6  /* cached_comms */
};

/* What a parameter flag means, for the check and for collbench --list
 * --json, which publishes it. */
typedef struct collsim_parameter {
    unsigned flag;        /* COLLSIM_PARAM_* */
    const char *name;     /* its name in --list ("segments") */
    const char *sentence; /* the error when it is given to an algorithm that does not read it */
    int default_value;    /* what 0 stands for, published by collbench --list --json; -1: the
                           * algorithm decides (a block count, the real node, ...) */
} collsim_parameter;

/* Every parameter flag, *count of them. */
const collsim_parameter *collsim_parameters(size_t *count);

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
    unsigned parameters;
    const char *summary;
    union {
        collsim_allreduce_fn *allreduce;
        collsim_reduce_fn *reduce;
        collsim_bcast_fn *bcast;
    } fn;
} collsim_algorithm;

/* Declarations of every algorithm, generated from the registry. */
#define COLLSIM_ALGORITHM(coll, name, restrictions, parameters, summary) \
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

/* NULL when the algorithm accepts this op on this datatype; otherwise a
 * sentence naming the violated restriction (COLLSIM_RESTRICT_FLOAT_SUM). */
const char *collsim_check_op_restrictions(const collsim_algorithm *alg, MPI_Op op,
                                          MPI_Datatype datatype);

/* Virtual contributors per rank in params (>= 1). */
int collsim_contributors(const collsim_params *params);

/* The fan-out of the chain algorithms under params: the given one, else the
 * registry's default (1, the textbook single chain; see registry.c). */
int collsim_chain_fanout(const collsim_params *params);

/* Nonzero for a pre-rounded algorithm (common/prerounding.h).  They are the
 * algorithms restricted to floating-point sums: the restriction comes from
 * their exact sums of pre-rounded parts, and they promise that sum's bound. */
int collsim_is_prerounded(const collsim_algorithm *alg);

/* NULL when every parameter set in params (non-zero / non-NULL) is one the
 * algorithm reads, and segment_bytes and block_count are not both set;
 * otherwise a sentence naming the problem. */
const char *collsim_check_parameters(const collsim_algorithm *alg, const collsim_params *params);

/* Charges the computation of work_bytes bytes' worth of local work (as many
 * bytes as one local reduction would combine) on the simulated clock:
 * work_bytes * gamma seconds.  For local work other than reductions, e.g.
 * the pre-rounding of the reproducible algorithms. */
void collsim_charge_compute(double work_bytes, const collsim_params *params);

/* The gamma (seconds per byte of local reduction) of the host this rank runs
 * on: its "gamma_s_per_byte" property in the platform XML, 0 when it has none
 * or when built against a real MPI.  collbench and the interposition library
 * use it when no gamma is given. */
double collsim_platform_gamma_s_per_byte(void);
/* NULL when the composition parameters of alg (a two-level algorithm's
 * group count, inner and outer algorithm, node size; a pre-rounded
 * algorithm's inner algorithm and bound allreduce) can be used on comm_size
 * processes with an op of the given commutativity; otherwise a sentence,
 * written into buf, naming the problem (an unknown inner algorithm, a
 * restriction of the inner or outer algorithm the groups violate, ...). */
const char *collsim_check_composition(const collsim_algorithm *alg, int comm_size,
                                      int op_is_commutative, const collsim_params *params,
                                      char *buf, size_t len);

/* The inner and outer algorithms of a composite algorithm (one that reads
 * COLLSIM_PARAM_INNER_OUTER: hierarchical, prerounded) under params: the
 * given names, else the algorithm's defaults (common/hier.c holds them, and
 * collbench --list --json publishes them).  Returns 0, or -1 with both NULL
 * for an algorithm that is not composite. */
int collsim_composite_names(const collsim_algorithm *alg, const collsim_params *params,
                            const char **inner, const char **outer);

/* Applies op elementwise: inoutbuf[i] = inbuf[i] op inoutbuf[i] (MPI order:
 * inbuf is the left operand), then charges count * type size * gamma seconds
 * of computation on the simulated clock. */
int collsim_reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, const collsim_params *params);

/* A data buffer of nbytes (at least one byte is allocated): private memory,
 * or under SMPI with params->timing_only memory shared by every rank, so
 * that p ranks of n bytes cost n bytes of the host's memory, not p n.  NULL
 * when out of memory.  Free it with collsim_buffer_free and the same params. */
void *collsim_buffer_alloc(size_t nbytes, const collsim_params *params);
void collsim_buffer_free(void *buf, const collsim_params *params);

#ifdef __cplusplus
}
#endif

#endif /* COLLSIM_H */

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

/* One signature per collective (algorithms/collectives.def lists them): the
 * arguments of the MPI function, plus params.  Each returns MPI_SUCCESS or an
 * MPI error code.  MPI_IN_PLACE is not passed to an algorithm: a caller that
 * gets it (the interposition library) gives the algorithm a send buffer. */
typedef int collsim_allreduce_fn(const void *sendbuf, void *recvbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 const collsim_params *params);
typedef int collsim_reduce_fn(const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                              const collsim_params *params);
typedef int collsim_bcast_fn(void *buffer, int count, MPI_Datatype datatype, int root,
                             MPI_Comm comm, const collsim_params *params);
typedef int collsim_allgather_fn(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                 void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                 MPI_Comm comm, const collsim_params *params);
/* MPI_Reduce_scatter_block: recvcount elements to each rank. */
typedef int collsim_reduce_scatter_fn(const void *sendbuf, void *recvbuf, int recvcount,
                                      MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                      const collsim_params *params);
typedef int collsim_alltoall_fn(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                                void *recvbuf, int recvcount, MPI_Datatype recvtype,
                                MPI_Comm comm, const collsim_params *params);
typedef int collsim_gather_fn(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                              void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                              MPI_Comm comm, const collsim_params *params);
typedef int collsim_scatter_fn(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype, int root,
                               MPI_Comm comm, const collsim_params *params);
typedef int collsim_barrier_fn(MPI_Comm comm, const collsim_params *params);
typedef int collsim_scan_fn(const void *sendbuf, void *recvbuf, int count,
                            MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                            const collsim_params *params);
typedef int collsim_exscan_fn(const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                              const collsim_params *params);

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

/* The parameter groups an algorithm reads, declared in registry.def: one
 * flag COLLSIM_PARAM_<group> each, from params.def. */
enum {
#define COLLSIM_PARAMETER_GROUP(group, name, takes_no, one_of, default_value) \
    COLLSIM_PARAM_BIT_##group,
#define COLLSIM_PARAMETER(name, option, type, unit, what, min, max, group, help)
#include "params.def"
#undef COLLSIM_PARAMETER_GROUP
#undef COLLSIM_PARAMETER
    COLLSIM_PARAM_GROUP_COUNT
};
enum {
    COLLSIM_PARAM_NONE = 0u, /* params.def: a parameter of no group (a harness hint) */
#define COLLSIM_PARAMETER_GROUP(group, name, takes_no, one_of, default_value) \
    COLLSIM_PARAM_##group = 1u << COLLSIM_PARAM_BIT_##group,
#define COLLSIM_PARAMETER(name, option, type, unit, what, min, max, group, help)
#include "params.def"
#undef COLLSIM_PARAMETER_GROUP
#undef COLLSIM_PARAMETER
};

/* What a parameter group means, for the check and for collbench --list
 * --json, which publishes it. */
typedef struct collsim_parameter {
    unsigned flag;        /* COLLSIM_PARAM_* */
    const char *name;     /* its name in --list ("segments") */
    const char *sentence; /* the error when it is given to an algorithm that does not read it */
    const char *one_of;   /* NULL, or the error when more than one of its parameters is given */
    int default_value;    /* what 0 stands for, published by collbench --list --json; -1: the
                           * algorithm decides (a block count, the real node, ...) */
} collsim_parameter;

/* Every parameter group, *count of them. */
const collsim_parameter *collsim_parameters(size_t *count);

/* The parameters themselves (params.def): one index each,
 * COLLSIM_PARAMETER_INDEX_<name>, in table order. */
enum {
#define COLLSIM_PARAMETER_GROUP(group, name, takes_no, one_of, default_value)
#define COLLSIM_PARAMETER(name, option, type, unit, what, min, max, group, help) \
    COLLSIM_PARAMETER_INDEX_##name,
#include "params.def"
#undef COLLSIM_PARAMETER_GROUP
#undef COLLSIM_PARAMETER
    COLLSIM_PARAMETER_COUNT
};

/* How a parameter's value is written and stored in collsim_params. */
typedef enum collsim_parameter_type {
    COLLSIM_PARAMETER_BYTES, /* size_t, a whole number of bytes */
    COLLSIM_PARAMETER_INT,   /* int, a whole number */
    COLLSIM_PARAMETER_NAME,  /* const char *, a registry-style name [a-z0-9_]+ */
    COLLSIM_PARAMETER_BOOL,  /* int, 0 or 1: a flag without value on a command line */
    COLLSIM_PARAMETER_REAL   /* double, a finite number */
} collsim_parameter_type;

/* Names of registry-style values are at most this long (with the NUL). */
#define COLLSIM_NAME_MAX 64

/* One line of params.def. */
typedef struct collsim_parameter_spec {
    const char *name;   /* the collsim_params field ("segment_bytes") */
    const char *option; /* the command-line flag without "--" ("segment-bytes") */
    collsim_parameter_type type;
    const char *type_name; /* "bytes", "int", "name", "bool", "real" */
    const char *unit;      /* "bytes" or "" */
    const char *what;      /* the noun of error messages ("segment size") */
    long long min, max;    /* the range of a given value (REAL: min only) */
    unsigned group;        /* COLLSIM_PARAM_*, or COLLSIM_PARAM_NONE */
    size_t offset;         /* offsetof(collsim_params, name) */
    const char *help;      /* one line for the command lines' help */
} collsim_parameter_spec;

/* Every parameter, COLLSIM_PARAMETER_COUNT of them, in params.def order. */
const collsim_parameter_spec *collsim_parameter_specs(void);

/* The parameter called name (a field name), or NULL. */
const collsim_parameter_spec *collsim_find_parameter(const char *name);

/* Parses text as spec's value into params (text is NULL for a BOOL given as a
 * flag; a NAME keeps the pointer to text).  Returns 0, or -1 with one line in
 * err naming the value and the accepted range ("malformed segment size '-8'
 * (>= 0)").  label names the parameter in name errors ("--inner"). */
int collsim_parameter_parse(const collsim_parameter_spec *spec, const char *text,
                            const char *label, collsim_params *params, char *err,
                            size_t errlen);

/* Nonzero when params sets spec's parameter (non-zero, non-NULL). */
int collsim_parameter_given(const collsim_parameter_spec *spec, const collsim_params *params);

/* The collectives, in collectives.def order: COLLSIM_ALLREDUCE, ... */
typedef enum collsim_collective {
#define COLLSIM_COLLECTIVE(name, NAME, op, root, send_blocks, recv_blocks, holders, mpi, summary) \
    COLLSIM_##NAME,
#include "collectives.def"
#undef COLLSIM_COLLECTIVE
    COLLSIM_COLLECTIVE_COUNT
} collsim_collective;

/* How many blocks of `count` elements a buffer of a collective holds
 * (collectives.def's send_blocks and recv_blocks). */
typedef enum collsim_buffer_blocks {
    COLLSIM_BLOCKS_NONE,        /* no buffer */
    COLLSIM_BLOCKS_ONE,         /* one block on every rank */
    COLLSIM_BLOCKS_ONE_AT_ROOT, /* one block at the root, none elsewhere */
    COLLSIM_BLOCKS_ALL,         /* p blocks on every rank */
    COLLSIM_BLOCKS_ALL_AT_ROOT  /* p blocks at the root, none elsewhere */
} collsim_buffer_blocks;

/* Which ranks hold a result (collectives.def's holders). */
typedef enum collsim_holders {
    COLLSIM_HOLDERS_EVERY,    /* every rank */
    COLLSIM_HOLDERS_ROOT,     /* the root only */
    COLLSIM_HOLDERS_NOT_FIRST /* every rank but rank 0 */
} collsim_holders;

/* One line of collectives.def. */
typedef struct collsim_collective_info {
    collsim_collective collective;
    const char *name;
    int has_op, has_root;
    collsim_buffer_blocks send_blocks, recv_blocks;
    collsim_holders holders;
    const char *mpi;     /* "MPI_Allgather" */
    const char *summary; /* one line for collsim list */
} collsim_collective_info;

/* Every collective, *count of them, in collectives.def order (indexed by
 * collsim_collective). */
const collsim_collective_info *collsim_collectives(size_t *count);

/* The collective called name, or NULL. */
const collsim_collective_info *collsim_find_collective(const char *name);

/* Elements in a buffer of `blocks` blocks of count elements on rank `rank`
 * of comm_size ranks (root: the call's root). */
long long collsim_block_elements(collsim_buffer_blocks blocks, int count, int rank, int root,
                                 int comm_size);

typedef struct collsim_algorithm {
    collsim_collective collective;
    const char *collective_name;
    const char *name;
    unsigned restrictions;
    unsigned parameters;
    const char *summary;
    union {
#define COLLSIM_COLLECTIVE(name, NAME, op, root, send_blocks, recv_blocks, holders, mpi, summary) \
    collsim_##name##_fn *name;
#include "collectives.def"
#undef COLLSIM_COLLECTIVE
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
 * algorithm reads, and no two of a group of alternatives (params.def's
 * one_of: segment_bytes, block_count) are set; otherwise a sentence naming
 * the problem. */
const char *collsim_check_parameters(const collsim_algorithm *alg, const collsim_params *params);

/* NULL when params's segment size is a whole number of elements of
 * elem_bytes each; otherwise the sentence, written into buf.  A segment is
 * never cut inside an element (common/segment.c relies on it). */
const char *collsim_check_segment(const collsim_params *params, int elem_bytes, const char *type,
                                  char *buf, size_t len);

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

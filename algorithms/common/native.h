/*
 * native.h: the default algorithm selection of two MPI libraries, as pure
 * functions (so that collbench can print a choice without running anything),
 * and the name mapping of ../native.def.
 * Users: <collective>_mpich_default.c and <collective>_openmpi_default.c of
 * every collective, common/native.c, sim/collbench/main.c,
 * sim/interpose/interpose.c.
 */
#ifndef COLLSIM_NATIVE_H
#define COLLSIM_NATIVE_H

#include "../collsim.h"

typedef enum collsim_native_library {
    COLLSIM_NATIVE_OPENMPI, /* Open MPI 4.1 coll/tuned fixed rules */
    COLLSIM_NATIVE_MPICH    /* MPICH 4.0 default selection (generic.json) */
} collsim_native_library;

/* One line of native.def. */
typedef struct collsim_native_entry {
    collsim_native_library library;
    collsim_collective collective;
    int id;                   /* Open MPI's algorithm id; 0 for MPICH */
    const char *library_name; /* the library's name of the algorithm */
    const char *algorithm;    /* collsim's registry name, NULL: none */
    const char *note;
} collsim_native_entry;

/* The lines of native.def, *count of them, in file order. */
const collsim_native_entry *collsim_native_entries(size_t *count);

/* "openmpi" / "mpich" and the version the tables were read from. */
const char *collsim_native_library_name(collsim_native_library library);
const char *collsim_native_library_version(collsim_native_library library);

/* What a selector sees of a call. */
typedef struct collsim_native_call {
    collsim_collective collective;
    int comm_size;
    long long count;     /* elements of one block (collectives.def; barrier: 0) */
    int type_size_bytes; /* bytes per element */
    int commutative;     /* the op is commutative (a collective without op: 1) */
    int builtin_op;      /* the op is predefined (a collective without op: 1) */
} collsim_native_call;

/* The algorithm the library runs for call: its decision table, then the
 * fallbacks inside the algorithm it picked (Open MPI's ring runs recursive
 * doubling when count < p, ...).  Returns the native.def entry; never NULL. */
const collsim_native_entry *collsim_native_choose(collsim_native_library library,
                                                  const collsim_native_call *call);

/* What the library runs for call when told to run entry (an Open MPI dynamic
 * rule, an MPICH JSON leaf): entry itself, the algorithm it falls back to, or
 * NULL where the library refuses (MPICH asserts its restrictions, Open MPI's
 * two_proc algorithms fail on p != 2). */
const collsim_native_entry *collsim_native_forced(const collsim_native_entry *entry,
                                                  const collsim_native_call *call);

/* The library a registry entry selects like (openmpi_default, mpich_default);
 * returns 0 and sets *library, or -1 for an entry that is no selector. */
int collsim_native_selector_library(const collsim_algorithm *alg,
                                    collsim_native_library *library);

/* NULL when the selector alg can run call; otherwise a sentence, written into
 * buf, naming the library's algorithm that collsim lacks. */
const char *collsim_native_check(const collsim_algorithm *alg, const collsim_native_call *call,
                                 char *buf, size_t buflen);

/* The registry entry the library runs for call, or, for the Open MPI
 * algorithms that run two of its own collectives (allreduce "nonoverlapping":
 * its reduce to rank 0, then its bcast; reduce_scatter_block "basic_linear":
 * its reduce of the p blocks to rank 0, then its scatter), the two as
 * "reduce:NAME+bcast:NAME" ("reduce:NAME+scatter:NAME") written into buf;
 * NULL where collsim lacks one. */
const char *collsim_native_selected(collsim_native_library library,
                                    const collsim_native_call *call, char *buf, size_t buflen);

/* The registry entry entry maps to for call: entry->algorithm, or NULL where
 * collsim has none or the mapping does not hold for call (Open MPI's
 * reduce_scatter_block basic_linear above INT_MAX elements). */
const char *collsim_native_equivalent(const collsim_native_entry *entry,
                                      const collsim_native_call *call);

/* For an entry that runs two of the library's collectives: 0 with the calls
 * of the two (*first runs before *second); -1 for any other entry. */
int collsim_native_parts(const collsim_native_entry *entry, const collsim_native_call *call,
                         collsim_native_call *first, collsim_native_call *second);

/* Fills *call from the MPI arguments of a call: count elements of datatype
 * in one block (MPI_DATATYPE_NULL: none, for barrier), op MPI_OP_NULL for a
 * collective without op.  Returns an MPI error code. */
int collsim_native_call_from_mpi(collsim_collective collective, MPI_Comm comm, int count,
                                 MPI_Datatype datatype, MPI_Op op, collsim_native_call *call);

/* The registry entry the library runs for call, or NULL (with *entry set) when
 * collsim lacks it or its restrictions forbid the call. */
const collsim_algorithm *collsim_native_target(collsim_native_library library,
                                               const collsim_native_call *call,
                                               const collsim_native_entry **entry);

/* What a selector algorithm (*_mpich_default, *_openmpi_default) runs for a
 * call given by its MPI arguments (as collsim_native_call_from_mpi takes
 * them): MPI_SUCCESS with *target set; MPI_ERR_UNSUPPORTED_OPERATION when
 * collsim lacks the library's choice (*entry set: a composition, Open MPI's
 * allreduce "nonoverlapping" or reduce_scatter_block "basic_linear", is run by
 * its caller); or the MPI error of reading the arguments (*entry NULL).
 * entry may be NULL. */
int collsim_native_dispatch(collsim_native_library library, collsim_collective collective,
                            MPI_Comm comm, int count, MPI_Datatype datatype, MPI_Op op,
                            const collsim_algorithm **target, const collsim_native_entry **entry);

/* collsim_native_dispatch for gather and scatter, whose root sees a block as
 * root_count elements of root_type (its receive side for a gather, its send
 * side for a scatter) and every other rank as leaf_count of leaf_type: each
 * rank reads the block of its own side, as the libraries do. */
int collsim_native_dispatch_rooted(collsim_native_library library, collsim_collective collective,
                                   MPI_Comm comm, int root, int root_count,
                                   MPI_Datatype root_type, int leaf_count,
                                   MPI_Datatype leaf_type, const collsim_algorithm **target);

#endif

/*
 * native.h: the default algorithm selection of two MPI libraries, as pure
 * functions (so that collbench can print a choice without running anything),
 * and the name mapping of ../native.def.
 * Users: allreduce_mpich_default.c, allreduce_openmpi_default.c,
 * bcast_mpich_default.c, bcast_openmpi_default.c, reduce_mpich_default.c,
 * reduce_openmpi_default.c, common/native.c, sim/collbench/main.c,
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
    long long count;     /* elements */
    int type_size_bytes; /* bytes per element */
    int commutative;     /* the op is commutative (bcast: 1) */
    int builtin_op;      /* the op is predefined (bcast: 1) */
} collsim_native_call;

/* The algorithm the library runs for call: its decision table, then the
 * fallbacks inside the algorithm it picked (Open MPI's ring runs recursive
 * doubling when count < p, ...).  Returns the native.def entry; never NULL. */
const collsim_native_entry *collsim_native_choose(collsim_native_library library,
                                                  const collsim_native_call *call);

/* What the library runs for call when told to run entry (an Open MPI dynamic
 * rule, an MPICH JSON leaf): entry itself, the algorithm it falls back to, or
 * NULL where the library refuses (MPICH asserts its restrictions). */
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

/* The registry entry the library runs for call, or, for Open MPI's allreduce
 * "nonoverlapping" (its reduce to rank 0, then its bcast), the two as
 * "reduce:NAME+bcast:NAME" written into buf; NULL where collsim lacks one. */
const char *collsim_native_selected(collsim_native_library library,
                                    const collsim_native_call *call, char *buf, size_t buflen);

/* The calls of the reduce and the bcast inside Open MPI's "nonoverlapping". */
void collsim_native_parts(const collsim_native_call *call, collsim_native_call *reduce,
                          collsim_native_call *bcast);

/* Fills *call from the MPI arguments of a call (op MPI_OP_NULL for bcast).
 * Returns an MPI error code. */
int collsim_native_call_from_mpi(collsim_collective collective, MPI_Comm comm, int count,
                                 MPI_Datatype datatype, MPI_Op op, collsim_native_call *call);

/* The registry entry the library runs for call, or NULL (with *entry set) when
 * collsim lacks it or its restrictions forbid the call. */
const collsim_algorithm *collsim_native_target(collsim_native_library library,
                                               const collsim_native_call *call,
                                               const collsim_native_entry **entry);

/* What a selector algorithm (*_mpich_default, *_openmpi_default) runs for a
 * call given by its MPI arguments (op MPI_OP_NULL for bcast): MPI_SUCCESS with
 * *target set; MPI_ERR_UNSUPPORTED_OPERATION when collsim lacks the library's
 * choice (*entry set: Open MPI's allreduce "nonoverlapping" is run by its
 * caller); or the MPI error of reading the arguments (*entry NULL).  entry
 * may be NULL. */
int collsim_native_dispatch(collsim_native_library library, collsim_collective collective,
                            MPI_Comm comm, int count, MPI_Datatype datatype, MPI_Op op,
                            const collsim_algorithm **target, const collsim_native_entry **entry);

#endif

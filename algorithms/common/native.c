/*
 * native.c: the default algorithm selection of Open MPI 4.1 and MPICH 4.0 for
 * allreduce, reduce and bcast, and the name mapping of ../native.def.
 *
 * Open MPI: the fixed rules of coll/tuned, ompi_coll_tuned_<collective>_intra_
 * dec_fixed() in ompi/mca/coll/tuned/coll_tuned_decision_fixed.c (read in
 * v4.1.4; the tables are those of the whole 4.1 series), transcribed below as
 * rows of (communicator size below, total bytes below, algorithm id); the
 * fixed rules pass fan-out 0 and segment size 0 to every algorithm (a chain
 * of fan-out 0 is one chain: collsim's chain with its default chain_fanout,
 * which the selectors leave unset).  Then the
 * fallbacks inside the algorithms (ompi/mca/coll/base/coll_base_*.c):
 * allreduce ring runs recursive doubling when count < p; segmented ring with
 * segment size 0 runs the ring; allreduce rabenseifner runs basic_linear when
 * count < pof2(p) or the op is not commutative; reduce rabenseifner runs
 * linear when pof2(p) < 2, count < pof2(p) or the op is not commutative.
 *
 * MPICH: the default selection tree compiled into MPICH 4.0
 * (maint/tuning/coll/mpir/generic.json in v4.0.2, the file
 * MPIR_CVAR_COLL_SELECTION_TUNING_JSON_FILE replaces; evaluated by
 * src/mpi/coll/src/csel.c), for a flat communicator: the comm_hierarchy=any
 * branches.  A communicator spanning several nodes takes the "parent"
 * branches, which differ only for zero-byte messages (the smp algorithms), and
 * CH4's own layer (maint/tuning/coll/ch4/generic.json) may first pick its
 * node-aware compositions; neither is modelled here.
 */
#include "native.h"

#include <limits.h>
#include <stdio.h>
#include <string.h>

#define COLLSIM_NATIVE_LIB_openmpi COLLSIM_NATIVE_OPENMPI
#define COLLSIM_NATIVE_LIB_mpich COLLSIM_NATIVE_MPICH
#define COLLSIM_NATIVE_COLL_allreduce COLLSIM_ALLREDUCE
#define COLLSIM_NATIVE_COLL_reduce COLLSIM_REDUCE
#define COLLSIM_NATIVE_COLL_bcast COLLSIM_BCAST

static const collsim_native_entry entries[] = {
#define COLLSIM_NATIVE(lib, coll, lib_id, lib_name, collsim_name, lib_note)                      \
    {.library = COLLSIM_NATIVE_LIB_##lib, .collective = COLLSIM_NATIVE_COLL_##coll, .id = lib_id, \
     .library_name = lib_name, .algorithm = collsim_name, .note = lib_note},
#include "../native.def"
#undef COLLSIM_NATIVE
};

const collsim_native_entry *collsim_native_entries(size_t *count)
{
    *count = sizeof entries / sizeof entries[0];
    return entries;
}

const char *collsim_native_library_name(collsim_native_library library)
{
    return library == COLLSIM_NATIVE_OPENMPI ? "openmpi" : "mpich";
}

const char *collsim_native_library_version(collsim_native_library library)
{
    return library == COLLSIM_NATIVE_OPENMPI ? "Open MPI 4.1 (coll/tuned fixed rules, v4.1.4)"
                                             : "MPICH 4.0 (generic.json default selection, v4.0.2)";
}

static const collsim_native_entry *find_entry(collsim_native_library library,
                                              collsim_collective collective, int id,
                                              const char *library_name)
{
    for (size_t i = 0; i < sizeof entries / sizeof entries[0]; i++) {
        const collsim_native_entry *e = &entries[i];
        if (e->library == library && e->collective == collective &&
            (library_name ? strcmp(e->library_name, library_name) == 0 : e->id == id))
            return e;
    }
    return NULL; /* unreachable for the ids and names used below (tests hold them) */
}

/* One row of a fixed-rules table: below comm_below ranks and below
 * bytes_below total bytes, algorithm alg.  The rows of one communicator
 * bracket are consecutive, in increasing bytes_below, the last one
 * LLONG_MAX; the last bracket has comm_below INT_MAX. */
typedef struct rule {
    int comm_below;
    long long bytes_below;
    int alg;
} rule;

#define ANY LLONG_MAX
#define ALL INT_MAX

static int table_lookup(const rule *rules, int comm_size, long long bytes)
{
    const rule *r = rules;
    while (r->comm_below <= comm_size)
        r++;
    const int bracket = r->comm_below;
    while (r->comm_below == bracket && r->bytes_below <= bytes)
        r++;
    return r->alg;
}

/* ompi_coll_tuned_allreduce_intra_dec_fixed: !ompi_op_is_commute(op) */
static const rule ompi_allreduce_noncommutative[] = {
    {4, 131072, 3}, {4, ANY, 1},
    {8, ANY, 3},
    {16, 1048576, 3}, {16, ANY, 2},
    {128, ANY, 3},
    {256, 131072, 2}, {256, 524288, 3}, {256, ANY, 2},
    {512, 4096, 2}, {512, 524288, 3}, {512, ANY, 2},
    {ALL, 2048, 2}, {ALL, ANY, 3},
};

/* ompi_coll_tuned_allreduce_intra_dec_fixed: commutative ops */
static const rule ompi_allreduce_commutative[] = {
    {4, 8, 4}, {4, 4096, 3}, {4, 8192, 4}, {4, 16384, 3}, {4, 65536, 4}, {4, 262144, 5}, {4, ANY, 6},
    {8, 16, 4}, {8, 8192, 3}, {8, ANY, 6},
    {16, 8192, 3}, {16, ANY, 6},
    {32, 64, 5}, {32, 4096, 3}, {32, ANY, 6},
    {64, 128, 5}, {64, ANY, 6},
    {128, 262144, 3}, {128, ANY, 6},
    {256, 131072, 2}, {256, 262144, 3}, {256, ANY, 6},
    {512, 4096, 2}, {512, ANY, 6},
    {2048, 2048, 2}, {2048, 16384, 3}, {2048, ANY, 6},
    {4096, 2048, 2}, {4096, 4096, 5}, {4096, 16384, 3}, {4096, ANY, 6},
    {ALL, 2048, 2}, {ALL, 16384, 5}, {ALL, 32768, 3}, {ALL, ANY, 6},
};

/* ompi_coll_tuned_bcast_intra_dec_fixed */
static const rule ompi_bcast[] = {
    {4, 32, 3}, {4, 256, 5}, {4, 512, 3}, {4, 1024, 7}, {4, 32768, 1}, {4, 131072, 5},
    {4, 262144, 2}, {4, 524288, 1}, {4, 1048576, 6}, {4, ANY, 5},
    {8, 64, 5}, {8, 128, 6}, {8, 2048, 5}, {8, 8192, 6}, {8, 1048576, 1}, {8, ANY, 2},
    {16, 8, 7}, {16, 64, 5}, {16, 4096, 7}, {16, 16384, 5}, {16, 32768, 6}, {16, ANY, 1},
    {32, 4096, 7}, {32, 1048576, 6}, {32, ANY, 8},
    {64, 2048, 6}, {64, ANY, 7},
    {128, ANY, 7},
    {256, 2, 6}, {256, 16384, 5}, {256, 32768, 1}, {256, 65536, 5}, {256, ANY, 7},
    {1024, 16384, 7}, {1024, 32768, 4}, {1024, ANY, 7},
    {2048, 524288, 7}, {2048, ANY, 8},
    {4096, 262144, 7}, {4096, ANY, 8},
    {ALL, 8192, 7}, {ALL, 16384, 5}, {ALL, 262144, 7}, {ALL, ANY, 8},
};

/* ompi_coll_tuned_reduce_intra_dec_fixed: !ompi_op_is_commute(op) */
static const rule ompi_reduce_noncommutative[] = {
    {4, 8, 6}, {4, ANY, 1},
    {8, ANY, 1},
    {16, 1024, 6}, {16, 8192, 1}, {16, 16384, 6}, {16, 262144, 1}, {16, ANY, 6},
    {128, ANY, 6},
    {256, 512, 6}, {256, 1024, 1}, {256, ANY, 6},
    {ALL, ANY, 6},
};

/* ompi_coll_tuned_reduce_intra_dec_fixed: commutative ops */
static const rule ompi_reduce_commutative[] = {
    {4, 8, 7}, {4, 16, 4}, {4, 32, 3}, {4, 262144, 1}, {4, 524288, 3}, {4, 1048576, 2}, {4, ANY, 3},
    {8, 4096, 4}, {8, 65536, 2}, {8, 262144, 5}, {8, 524288, 1}, {8, 1048576, 5}, {8, ANY, 1},
    {16, 8192, 4}, {16, ANY, 5},
    {32, 4096, 4}, {32, ANY, 5},
    {256, ANY, 5},
    {512, 8192, 5}, {512, 16384, 6}, {512, ANY, 5},
    {2048, ANY, 5},
    {4096, 512, 5}, {4096, 1024, 6}, {4096, 8192, 5}, {4096, 16384, 6}, {4096, ANY, 5},
    {ALL, 16, 5}, {ALL, 32, 6}, {ALL, 1024, 5}, {ALL, 2048, 6}, {ALL, 8192, 5}, {ALL, 16384, 6},
    {ALL, ANY, 5},
};

static int pof2_floor(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

/* What Open MPI runs when told to run id (fan-out 0, segment size 0): the
 * fallbacks inside the algorithms of coll_base. */
static int openmpi_runs(const collsim_native_call *c, int alg)
{
    const int pof2 = pof2_floor(c->comm_size);
    switch (c->collective) {
    case COLLSIM_ALLREDUCE:
        if (alg == 5) /* segsize 0: ompi_coll_base_allreduce_intra_ring_segmented runs the ring */
            alg = 4;
        if (alg == 4 && c->count < c->comm_size)
            alg = 3;
        if (alg == 6 && (c->count < pof2 || !c->commutative))
            alg = 1;
        break;
    case COLLSIM_REDUCE:
        if (alg == 7 && (pof2 < 2 || c->count < pof2 || !c->commutative))
            alg = 1;
        break;
    default:
        /* scatter_allgather(_ring) run basic_linear when count < p */
        if ((alg == 8 || alg == 9) && c->count < c->comm_size)
            alg = 1;
        break;
    }
    return alg;
}

static const collsim_native_entry *choose_openmpi(const collsim_native_call *c)
{
    const long long bytes = c->count * c->type_size_bytes;
    int alg;
    switch (c->collective) {
    case COLLSIM_ALLREDUCE:
        alg = table_lookup(c->commutative ? ompi_allreduce_commutative
                                          : ompi_allreduce_noncommutative,
                           c->comm_size, bytes);
        break;
    case COLLSIM_REDUCE:
        alg = table_lookup(c->commutative ? ompi_reduce_commutative : ompi_reduce_noncommutative,
                           c->comm_size, bytes);
        break;
    default:
        alg = table_lookup(ompi_bcast, c->comm_size, bytes);
        break;
    }
    return find_entry(COLLSIM_NATIVE_OPENMPI, c->collective, openmpi_runs(c, alg), NULL);
}

/* generic.json, comm_type=intra, the comm_hierarchy=any branches (csel.c:
 * avg_msg_size = type size x count, count<pow2: count < pof2(p),
 * comm_size=pow2: p a power of two). */
static const collsim_native_entry *choose_mpich(const collsim_native_call *c)
{
    const long long bytes = c->count * c->type_size_bytes;
    const int pof2 = pof2_floor(c->comm_size);
    const int pow2 = (c->comm_size & (c->comm_size - 1)) == 0;
    const char *name;
    switch (c->collective) {
    case COLLSIM_ALLREDUCE:
        if (bytes <= 0 && c->commutative)
            name = "MPIR_Allreduce_intra_smp";
        else if (bytes <= 8 || !c->builtin_op || c->count < pof2)
            name = "MPIR_Allreduce_intra_recursive_doubling";
        else
            name = "MPIR_Allreduce_intra_reduce_scatter_allgather";
        break;
    case COLLSIM_REDUCE:
        if (bytes <= 2048 || !c->builtin_op || c->count < pof2)
            name = "MPIR_Reduce_intra_binomial";
        else
            name = "MPIR_Reduce_intra_reduce_scatter_gather";
        break;
    default:
        if (c->comm_size < 8 || bytes <= 12288)
            name = "MPIR_Bcast_intra_binomial";
        else if (pow2 && bytes <= 524288)
            name = "MPIR_Bcast_intra_scatter_recursive_doubling_allgather";
        else
            name = "MPIR_Bcast_intra_scatter_ring_allgather";
        break;
    }
    return find_entry(COLLSIM_NATIVE_MPICH, c->collective, 0, name);
}

const collsim_native_entry *collsim_native_forced(const collsim_native_entry *entry,
                                                  const collsim_native_call *call)
{
    if (entry->library == COLLSIM_NATIVE_OPENMPI)
        return find_entry(COLLSIM_NATIVE_OPENMPI, call->collective, openmpi_runs(call, entry->id),
                          NULL);
    /* MPICH asserts its restrictions (reduce_scatter_allgather, reduce_scatter_gather:
     * a built-in op and count >= pof2(p)) instead of falling back. */
    if (strstr(entry->library_name, "_intra_reduce_scatter_") != NULL &&
        (!call->builtin_op || call->count < pof2_floor(call->comm_size)))
        return NULL;
    return entry;
}

const collsim_native_entry *collsim_native_choose(collsim_native_library library,
                                                  const collsim_native_call *call)
{
    return library == COLLSIM_NATIVE_OPENMPI ? choose_openmpi(call) : choose_mpich(call);
}

int collsim_native_selector_library(const collsim_algorithm *alg,
                                    collsim_native_library *library)
{
    if (strcmp(alg->name, "openmpi_default") == 0)
        *library = COLLSIM_NATIVE_OPENMPI;
    else if (strcmp(alg->name, "mpich_default") == 0)
        *library = COLLSIM_NATIVE_MPICH;
    else
        return -1;
    return 0;
}

/* Open MPI's allreduce "nonoverlapping" (id 2): its own reduce to rank 0, then
 * its own bcast from rank 0, each by its fixed rules for the same call. */
static int is_nonoverlapping(const collsim_native_entry *e)
{
    return e->library == COLLSIM_NATIVE_OPENMPI && e->collective == COLLSIM_ALLREDUCE &&
           e->id == 2;
}

void collsim_native_parts(const collsim_native_call *call, collsim_native_call *reduce,
                          collsim_native_call *bcast)
{
    *reduce = *call;
    reduce->collective = COLLSIM_REDUCE;
    *bcast = *call;
    bcast->collective = COLLSIM_BCAST;
    bcast->commutative = 1;
    bcast->builtin_op = 1;
}

const char *collsim_native_selected(collsim_native_library library,
                                    const collsim_native_call *call, char *buf, size_t buflen)
{
    const collsim_native_entry *e = collsim_native_choose(library, call);
    if (!is_nonoverlapping(e))
        return e->algorithm;
    collsim_native_call reduce, bcast;
    collsim_native_parts(call, &reduce, &bcast);
    const collsim_native_entry *r = collsim_native_choose(library, &reduce);
    const collsim_native_entry *b = collsim_native_choose(library, &bcast);
    if (r->algorithm == NULL || b->algorithm == NULL)
        return NULL;
    snprintf(buf, buflen, "reduce:%s+bcast:%s", r->algorithm, b->algorithm);
    return buf;
}

const char *collsim_native_check(const collsim_algorithm *alg, const collsim_native_call *call,
                                 char *buf, size_t buflen)
{
    collsim_native_library library;
    if (collsim_native_selector_library(alg, &library) != 0)
        return NULL;
    const collsim_native_entry *e = collsim_native_choose(library, call);
    if (is_nonoverlapping(e)) {
        collsim_native_call reduce, bcast;
        collsim_native_parts(call, &reduce, &bcast);
        const collsim_native_entry *parts[2] = {collsim_native_choose(library, &reduce),
                                                collsim_native_choose(library, &bcast)};
        for (int i = 0; i < 2; i++) {
            if (parts[i]->algorithm == NULL) {
                snprintf(buf, buflen,
                         "picks Open MPI's allreduce algorithm 2 (nonoverlapping), whose %s "
                         "is its algorithm %d (%s), which collsim lacks: %s",
                         i == 0 ? "reduce" : "bcast", parts[i]->id, parts[i]->library_name,
                         parts[i]->note);
                return buf;
            }
        }
        const collsim_algorithm *target = collsim_find_algorithm("reduce", parts[0]->algorithm);
        const char *why =
            target ? collsim_check_restrictions(target, call->comm_size, call->commutative) : NULL;
        if (why != NULL) {
            snprintf(buf, buflen, "picks nonoverlapping, whose reduce %s %s", parts[0]->algorithm,
                     why);
            return buf;
        }
        return NULL;
    }
    if (e->algorithm == NULL) {
        if (library == COLLSIM_NATIVE_OPENMPI)
            snprintf(buf, buflen, "picks Open MPI's %s algorithm %d (%s), which collsim lacks: %s",
                     alg->collective_name, e->id, e->library_name, e->note);
        else
            snprintf(buf, buflen, "picks MPICH's %s, which collsim lacks: %s", e->library_name,
                     e->note);
        return buf;
    }
    const collsim_algorithm *target = collsim_find_algorithm(alg->collective_name, e->algorithm);
    const char *why = target ? collsim_check_restrictions(target, call->comm_size,
                                                          call->commutative)
                             : "is not in the registry";
    if (why != NULL) {
        snprintf(buf, buflen, "picks %s (%s), whose collsim equivalent %s %s", e->library_name,
                 collsim_native_library_name(library), e->algorithm, why);
        return buf;
    }
    return NULL;
}

/* The predefined ops (MPI has no query for it; user ops are created). */
static int is_builtin_op(MPI_Op op)
{
    const MPI_Op builtin[] = {MPI_MAX,  MPI_MIN,  MPI_SUM,    MPI_PROD,   MPI_LAND,   MPI_BAND,
                              MPI_LOR,  MPI_BOR,  MPI_LXOR,   MPI_BXOR,   MPI_MAXLOC, MPI_MINLOC,
                              MPI_REPLACE};
    for (size_t i = 0; i < sizeof builtin / sizeof builtin[0]; i++)
        if (op == builtin[i])
            return 1;
    return 0;
}

int collsim_native_call_from_mpi(collsim_collective collective, MPI_Comm comm, int count,
                                 MPI_Datatype datatype, MPI_Op op, collsim_native_call *call)
{
    int rc, size, type_size, commutative = 1;
    if ((rc = MPI_Comm_size(comm, &size)) != MPI_SUCCESS)
        return rc;
    if ((rc = MPI_Type_size(datatype, &type_size)) != MPI_SUCCESS)
        return rc;
    if (collective != COLLSIM_BCAST && (rc = MPI_Op_commutative(op, &commutative)) != MPI_SUCCESS)
        return rc;
    call->collective = collective;
    call->comm_size = size;
    call->count = count;
    call->type_size_bytes = type_size;
    call->commutative = commutative;
    call->builtin_op = collective == COLLSIM_BCAST || is_builtin_op(op);
    return MPI_SUCCESS;
}

const collsim_algorithm *collsim_native_target(collsim_native_library library,
                                               const collsim_native_call *call,
                                               const collsim_native_entry **entry)
{
    static const char *const collective_names[] = {"allreduce", "reduce", "bcast"};
    *entry = collsim_native_choose(library, call);
    if ((*entry)->algorithm == NULL)
        return NULL;
    const collsim_algorithm *target =
        collsim_find_algorithm(collective_names[call->collective], (*entry)->algorithm);
    if (target == NULL ||
        collsim_check_restrictions(target, call->comm_size, call->commutative) != NULL)
        return NULL;
    return target;
}

/* The opening of the six selector algorithms (allreduce, reduce and bcast
 * *_mpich_default and *_openmpi_default): reads the call from its MPI
 * arguments and finds the registry entry the library runs for it. */
int collsim_native_dispatch(collsim_native_library library, collsim_collective collective,
                            MPI_Comm comm, int count, MPI_Datatype datatype, MPI_Op op,
                            const collsim_algorithm **target, const collsim_native_entry **entry)
{
    collsim_native_call call;
    const collsim_native_entry *chosen = NULL;
    *target = NULL;
    int rc = collsim_native_call_from_mpi(collective, comm, count, datatype, op, &call);
    if (rc == MPI_SUCCESS)
        *target = collsim_native_target(library, &call, &chosen);
    if (entry != NULL)
        *entry = chosen;
    if (rc != MPI_SUCCESS)
        return rc;
    return *target == NULL ? MPI_ERR_UNSUPPORTED_OPERATION : MPI_SUCCESS;
}

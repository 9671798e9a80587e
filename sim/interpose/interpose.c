/*
 * interpose.c: a PMPI library that sends an unmodified program's
 * MPI_Allreduce, MPI_Reduce and MPI_Bcast to collsim's algorithms, and times
 * and counts its other blocking collectives on their way to the MPI library
 * (Fortran's entry points: fortran.c).
 *
 * Which algorithm takes a call is decided by the rules file named by
 * $COLLSIM_RULES (format: sim/collsim/rules.py, reader: rules.c): the first
 * rule of the collective whose ranges hold the communicator's size and the
 * call's bytes.  A collective without rules goes to the MPI library, as does
 * every other MPI function; a collective with rules but none for the call, or
 * a call the picked algorithm cannot take (a restriction of the registry, a
 * non-contiguous datatype), fails with a message naming why: never a silent
 * fallback.
 *
 * With $COLLSIM_TRACE=PREFIX every rank writes PREFIX.RANK.tsv: one row per
 * intercepted call with its start and end on the (simulated) clock, so that
 * `collsim app` can compute each call's max end - min start across ranks
 * (C prints rows, Python summarizes):
 *
 *   init      T
 *   comm      KEY  WORLD_RANKS        (once per communicator group, by its rank 0)
 *   call      COLLECTIVE ALGORITHM SELECTED NP BYTES ELEM_BYTES ROOT COMMUTATIVE RULE_LINE KEY SEQ
 *             START END
 *   finalize  T
 *   clock     T OFFSET ERROR   (real MPI only: at MPI_Init and MPI_Finalize)
 *
 * Under a real MPI each process's MPI_Wtime has its own zero (Open MPI:
 * MPI_WTIME_IS_GLOBAL 0), so the ranks estimate their clocks' offsets to
 * rank 0's by ping-pong when tracing starts and again before MPI_Finalize
 * (../collbench/clocksync.c); each clock row gives, at local time T, the
 * OFFSET to add and its ERROR bound, and `collsim app` puts every time of the
 * rank on rank 0's clock (the offset interpolated between the two rows, for
 * the drift).
 *
 * KEY is a hash of the communicator's members (world ranks) and SEQ counts
 * the calls on communicators of those members, so the rows of one call carry
 * the same (KEY, SEQ) on every rank.  SELECTED is what a selector
 * (openmpi_default, mpich_default) ran, as collbench's rows name it
 * (algorithms/common/native.c decides), "-" for other algorithms.
 *
 * A zero-size datatype moves nothing: collsim's algorithms run such a call
 * with count 0 (BYTES 0), as they run an empty call.
 *
 * Per-rank state: under SMPI all ranks are threads of one process and share
 * globals (smpi/privatization:no), so the state hangs off SMPI's per-process
 * user data; under a real MPI one process is one rank and a static pointer
 * holds it.
 *
 * Under SMPI the program must be linked with -Wl,-Bsymbolic-functions (collsim
 * cc does it): without it the program's calls bind to libsimgrid's MPI_*
 * symbols and never reach these wrappers.
 */
#include "collsim.h"
#include "clocksync.h"
#include "common/native.h"
#include "interpose.h"
#include "rules.h"

#include <inttypes.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

typedef struct comm_sequence {
    uint64_t key;
    long long calls;
} comm_sequence;

typedef struct rank_state {
    int world_rank;
    int depth; /* > 0 inside a collsim algorithm: its own calls go to the library */
    collsim_rules rules;
    const char *rules_path;
    double gamma_s_per_byte;
    double alpha_over_beta_bytes;
    FILE *trace;
    comm_sequence *sequences;
    size_t nsequences, sequences_capacity;
    void *scratch[2];
    size_t scratch_bytes[2];
} rank_state;

#ifdef COLLSIM_SMPI
static rank_state *state(void)
{
    return smpi_process_get_user_data();
}
static void set_state(rank_state *st)
{
    smpi_process_set_user_data(st);
}
#else
static rank_state *the_state;
static rank_state *state(void)
{
    return the_state;
}
static void set_state(rank_state *st)
{
    the_state = st;
}
#endif

/* Found in the program's file by `collsim app` (app.INTERPOSE_MARKER): the
 * program carries these wrappers.  Not static, so that the linker keeps it. */
const char collsim_interpose_marker[] = "collsim interposition library, linked by collsim cc";

static const char *collective_names[] = {"allreduce", "reduce", "bcast"};
static const char *function_names[] = {"MPI_Allreduce", "MPI_Reduce", "MPI_Bcast"};

/* Builds this rank's state after PMPI_Init; on a bad rules file or trace
 * path every rank stops the program with the same one-line message. */
/* Under a real MPI: this rank's clock offset to rank 0's, a clock row
 * (collective: every rank traces or none does). */
static void write_clock(rank_state *st)
{
#ifdef COLLSIM_SMPI
    (void)st;
#else
    collsim_clock clock;
    if (collsim_clock_sync(MPI_COMM_WORLD, COLLSIM_CLOCK_ROUNDS, &clock) == MPI_SUCCESS)
        fprintf(st->trace, "clock\t%.17g\t%.17g\t%.17g\n", clock.local_s, clock.offset_s,
                clock.error_bound_s);
#endif
}

void collsim_interpose_setup(void)
{
    int rank;
    PMPI_Comm_rank(MPI_COMM_WORLD, &rank);
    rank_state *st = calloc(1, sizeof *st);
    char err[512] = "";
    if (st == NULL) {
        snprintf(err, sizeof err, "out of memory");
    } else {
        st->world_rank = rank;
        st->gamma_s_per_byte = collsim_platform_gamma_s_per_byte();
        const char *ratio = getenv("COLLSIM_ALPHA_OVER_BETA_BYTES");
        if (ratio != NULL && ratio[0] != '\0') {
            char *end;
            st->alpha_over_beta_bytes = strtod(ratio, &end);
            if (*end != '\0' || !(st->alpha_over_beta_bytes >= 0))
                snprintf(err, sizeof err, "COLLSIM_ALPHA_OVER_BETA_BYTES must be a number >= 0, "
                         "got '%s'", ratio);
        }
        st->rules_path = getenv("COLLSIM_RULES");
        if (err[0] == '\0' && st->rules_path != NULL && st->rules_path[0] != '\0')
            collsim_rules_read(st->rules_path, &st->rules, err, sizeof err);
        const char *prefix = getenv("COLLSIM_TRACE");
        if (err[0] == '\0' && prefix != NULL && prefix[0] != '\0') {
            char path[4096];
            snprintf(path, sizeof path, "%s.%d.tsv", prefix, rank);
            st->trace = fopen(path, "w");
            if (st->trace == NULL)
                snprintf(err, sizeof err, "cannot write the trace file %.400s", path);
        }
    }
    if (err[0] != '\0') {
        if (rank == 0)
            fprintf(stderr, "collsim: error: %s\n", err);
        PMPI_Barrier(MPI_COMM_WORLD);
        PMPI_Abort(MPI_COMM_WORLD, 2);
    }
    set_state(st);
    if (st->trace) {
        write_clock(st);
        fprintf(st->trace, "init\t%.17g\n", PMPI_Wtime());
    }
}

int MPI_Init(int *argc, char ***argv)
{
    int rc = PMPI_Init(argc, argv);
    if (rc == MPI_SUCCESS)
        collsim_interpose_setup();
    return rc;
}

int MPI_Init_thread(int *argc, char ***argv, int required, int *provided)
{
    int rc = PMPI_Init_thread(argc, argv, required, provided);
    if (rc == MPI_SUCCESS)
        collsim_interpose_setup();
    return rc;
}

int MPI_Finalize(void)
{
    collsim_interpose_teardown();
    return PMPI_Finalize();
}

void collsim_interpose_teardown(void)
{
    rank_state *st = state();
    if (st != NULL) {
        if (st->trace) {
            fprintf(st->trace, "finalize\t%.17g\n", PMPI_Wtime());
            write_clock(st);
            fclose(st->trace);
        }
        collsim_rules_free(&st->rules);
        free(st->sequences);
        free(st->scratch[0]);
        free(st->scratch[1]);
        free(st);
        set_state(NULL);
    }
}

/* A scratch buffer of at least bytes bytes, kept for the next call. */
static void *scratch(rank_state *st, int which, size_t bytes)
{
    if (st->scratch_bytes[which] < bytes || st->scratch[which] == NULL) {
        void *grown = realloc(st->scratch[which], bytes ? bytes : 1);
        if (grown == NULL)
            return NULL;
        st->scratch[which] = grown;
        st->scratch_bytes[which] = bytes;
    }
    return st->scratch[which];
}

/* The (KEY, SEQ) of this call on comm; writes the "comm" row the first time
 * comm's rank 0 sees the key.  Returns MPI_SUCCESS or an MPI error. */
static int call_identity(rank_state *st, MPI_Comm comm, uint64_t *key, long long *seq)
{
    int rc, size, rank;
    MPI_Group group = MPI_GROUP_NULL, world = MPI_GROUP_NULL;
    if ((rc = PMPI_Comm_size(comm, &size)) != MPI_SUCCESS ||
        (rc = PMPI_Comm_rank(comm, &rank)) != MPI_SUCCESS)
        return rc;
    int *ranks = malloc(2 * (size_t)size * sizeof *ranks);
    if (ranks == NULL)
        return MPI_ERR_NO_MEM;
    int *world_ranks = ranks + size;
    for (int i = 0; i < size; i++)
        ranks[i] = i;
    if ((rc = PMPI_Comm_group(comm, &group)) != MPI_SUCCESS ||
        (rc = PMPI_Comm_group(MPI_COMM_WORLD, &world)) != MPI_SUCCESS ||
        (rc = PMPI_Group_translate_ranks(group, size, ranks, world, world_ranks)) != MPI_SUCCESS)
        goto cleanup;
    uint64_t h = 1469598103934665603ULL; /* FNV-1a */
    for (int i = 0; i < size; i++) {
        uint32_t v = (uint32_t)world_ranks[i];
        for (int b = 0; b < 4; b++) {
            h ^= (v >> (8 * b)) & 0xffu;
            h *= 1099511628211ULL;
        }
    }
    *key = h;
    size_t i = 0;
    while (i < st->nsequences && st->sequences[i].key != h)
        i++;
    if (i == st->nsequences) {
        if (st->nsequences == st->sequences_capacity) {
            size_t capacity = st->sequences_capacity ? 2 * st->sequences_capacity : 8;
            comm_sequence *grown = realloc(st->sequences, capacity * sizeof *grown);
            if (grown == NULL) {
                rc = MPI_ERR_NO_MEM;
                goto cleanup;
            }
            st->sequences = grown;
            st->sequences_capacity = capacity;
        }
        st->sequences[st->nsequences++] = (comm_sequence){.key = h, .calls = 0};
        if (rank == 0) {
            fprintf(st->trace, "comm\t%016" PRIx64 "\t", h);
            for (int r = 0; r < size; r++)
                fprintf(st->trace, "%s%d", r ? "," : "", world_ranks[r]);
            fputc('\n', st->trace);
        }
    }
    *seq = st->sequences[i].calls++;
cleanup:
    if (group != MPI_GROUP_NULL)
        PMPI_Group_free(&group);
    if (world != MPI_GROUP_NULL)
        PMPI_Group_free(&world);
    free(ranks);
    return rc;
}

/* What one intercepted call is, for the rules, the checks and the trace. */
typedef struct call_info {
    collsim_collective collective;
    MPI_Comm comm;
    int np;
    long long bytes;
    int elem_bytes;
    int root; /* -1 for allreduce */
    int commutative;
    const collsim_rule *rule; /* NULL: the MPI library (no rules for the collective) */
    char selected[128];       /* what a selector runs; "" for other algorithms */
} call_info;

static void trace_call(rank_state *st, const call_info *c, double start, double end)
{
    if (st->trace == NULL)
        return;
    uint64_t key = 0;
    long long seq = 0;
    if (call_identity(st, c->comm, &key, &seq) != MPI_SUCCESS)
        return;
    const char *algorithm = c->rule && c->rule->algorithm ? c->rule->algorithm->name : "mpi";
    fprintf(st->trace,
            "call\t%s\t%s\t%s\t%d\t%lld\t%d\t%d\t%d\t%d\t%016" PRIx64
            "\t%lld\t%.17g\t%.17g\n",
            collective_names[c->collective], algorithm, c->selected[0] ? c->selected : "-", c->np,
            c->bytes, c->elem_bytes, c->root, c->commutative, c->rule ? c->rule->line : 0, key, seq,
            start, end);
}

/* Fails the call: the reason on stderr, then what the communicator's error
 * handler says: MPI_ERRORS_ARE_FATAL (the default) stops the program with
 * status 2, MPI_ERRORS_RETURN returns the code, a handler of the program's
 * own is called.  (SMPI 3.32 crashes in MPI_Comm_call_errhandler on a fatal
 * handler, hence the explicit abort.) */
static int refuse(const rank_state *st, const call_info *c, int errorcode, const char *why)
{
    const char *algorithm = c->rule && c->rule->algorithm ? c->rule->algorithm->name : NULL;
    char where[256] = "";
    if (c->rule != NULL)
        snprintf(where, sizeof where, "; rule at %s:%d", st->rules_path, c->rule->line);
    fprintf(stderr, "collsim: error: %s: %s%s%s %s (np=%d, %lld bytes%s)\n",
            function_names[c->collective], collective_names[c->collective],
            algorithm ? "/" : "", algorithm ? algorithm : "", why, c->np, c->bytes, where);
    MPI_Errhandler handler = MPI_ERRHANDLER_NULL;
    if (PMPI_Comm_get_errhandler(c->comm, &handler) != MPI_SUCCESS ||
        handler == MPI_ERRORS_ARE_FATAL)
        PMPI_Abort(c->comm, 2);
    if (handler != MPI_ERRORS_RETURN)
        PMPI_Comm_call_errhandler(c->comm, errorcode);
    if (handler != MPI_ERRHANDLER_NULL)
        PMPI_Errhandler_free(&handler);
    return errorcode;
}

/* Describes the call and picks its rule; returns MPI_SUCCESS, or the error of
 * a refused call (a collective with rules, none of them for this call; a
 * datatype or op the picked algorithm cannot take). */
static int prepare(rank_state *st, call_info *c, int count, MPI_Datatype datatype, MPI_Op op)
{
    int rc;
    if ((rc = PMPI_Comm_size(c->comm, &c->np)) != MPI_SUCCESS ||
        (rc = PMPI_Type_size(datatype, &c->elem_bytes)) != MPI_SUCCESS)
        return rc;
    c->bytes = (long long)count * c->elem_bytes;
    c->commutative = 1;
    if (c->collective != COLLSIM_BCAST &&
        (rc = PMPI_Op_commutative(op, &c->commutative)) != MPI_SUCCESS)
        return rc;
    c->rule = NULL;
    if (!st->rules.has_collective[c->collective])
        return MPI_SUCCESS;
    c->rule = collsim_rules_match(&st->rules, c->collective, c->np, c->bytes);
    if (c->rule == NULL) {
        char why[512];
        snprintf(why, sizeof why, "no rule in %s holds this call", st->rules_path);
        return refuse(st, c, MPI_ERR_ARG, why);
    }
    const collsim_algorithm *alg = c->rule->algorithm;
    if (alg == NULL)
        return MPI_SUCCESS;
    int inter = 0;
    if ((rc = PMPI_Comm_test_inter(c->comm, &inter)) != MPI_SUCCESS)
        return rc;
    if (inter)
        return refuse(st, c, MPI_ERR_COMM, "takes intracommunicators only");
    MPI_Aint lb, extent, true_lb, true_extent;
    if ((rc = PMPI_Type_get_extent(datatype, &lb, &extent)) != MPI_SUCCESS ||
        (rc = PMPI_Type_get_true_extent(datatype, &true_lb, &true_extent)) != MPI_SUCCESS)
        return rc;
    if (lb != 0 || true_lb != 0 || extent != c->elem_bytes || true_extent != c->elem_bytes)
        return refuse(st, c, MPI_ERR_TYPE,
                      "takes contiguous datatypes only (size = extent, lower bound 0)");
    char what[128];
    snprintf(what, sizeof what, "%d-byte", c->elem_bytes);
    char segment[192];
    if (collsim_check_segment(&c->rule->params, c->elem_bytes, what, segment, sizeof segment))
        return refuse(st, c, MPI_ERR_ARG, segment);
    if (c->collective == COLLSIM_BCAST) {
        const char *why = collsim_check_restrictions(alg, c->np, 1);
        return why ? refuse(st, c, MPI_ERR_ARG, why) : MPI_SUCCESS;
    }
    const char *why = collsim_check_restrictions(alg, c->np, c->commutative);
    if (why != NULL)
        return refuse(st, c, c->commutative ? MPI_ERR_ARG : MPI_ERR_OP, why);
    why = collsim_check_op_restrictions(alg, op, datatype);
    if (why != NULL)
        return refuse(st, c, MPI_ERR_OP, why);
    char buf[256];
    why = collsim_check_composition(alg, c->np, c->commutative, &c->rule->params, buf, sizeof buf);
    if (why != NULL)
        return refuse(st, c, MPI_ERR_ARG, why);
    return MPI_SUCCESS;
}

/* Records in c->selected what a selector rule runs for the call (count: the
 * count the algorithm is given); the selector decides the same way itself. */
static int record_selection(call_info *c, int count, MPI_Datatype datatype, MPI_Op op)
{
    collsim_native_library library;
    c->selected[0] = '\0';
    if (c->rule == NULL || c->rule->algorithm == NULL ||
        collsim_native_selector_library(c->rule->algorithm, &library) != 0)
        return MPI_SUCCESS;
    collsim_native_call call;
    int rc = collsim_native_call_from_mpi(c->collective, c->comm, count, datatype, op, &call);
    if (rc != MPI_SUCCESS)
        return rc;
    char buf[sizeof c->selected];
    const char *selected = collsim_native_selected(library, &call, buf, sizeof buf);
    snprintf(c->selected, sizeof c->selected, "%s", selected ? selected : "?");
    return MPI_SUCCESS;
}

/* The count and datatype the MPI library is given: under SMPI a zero-size
 * datatype becomes an empty call of MPI_BYTE (SMPI 3.32's own collectives
 * divide by the type size, whatever the count: SIGFPE), the empty call
 * collsim's algorithms run; a real MPI gets the call as is. */
static int library_count(int count, long long bytes)
{
#ifdef COLLSIM_SMPI
    return bytes > 0 ? count : 0;
#else
    (void)bytes;
    return count;
#endif
}

static MPI_Datatype library_type(MPI_Datatype datatype, long long bytes)
{
#ifdef COLLSIM_SMPI
    return bytes > 0 ? datatype : MPI_BYTE;
#else
    (void)bytes;
    return datatype;
#endif
}

static collsim_params params_of(const rank_state *st, const collsim_rule *rule)
{
    collsim_params params = rule->params;
    params.gamma_s_per_byte = st->gamma_s_per_byte;
    params.alpha_over_beta_bytes = st->alpha_over_beta_bytes;
    return params;
}

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    rank_state *st = state();
    if (st == NULL || st->depth > 0 || count < 0 || comm == MPI_COMM_NULL)
        return PMPI_Allreduce(sendbuf, recvbuf, count, datatype, op, comm);
    call_info c = {.collective = COLLSIM_ALLREDUCE, .comm = comm, .root = -1};
    int rc = prepare(st, &c, count, datatype, op);
    if (rc != MPI_SUCCESS)
        return rc;
    const int run_count = c.bytes > 0 ? count : 0;
    if ((rc = record_selection(&c, run_count, datatype, op)) != MPI_SUCCESS)
        return rc;
    double start = PMPI_Wtime();
    if (c.rule == NULL || c.rule->algorithm == NULL) {
        rc = PMPI_Allreduce(sendbuf, recvbuf, library_count(count, c.bytes),
                            library_type(datatype, c.bytes), op, comm);
    } else {
        const void *input = sendbuf;
        if (sendbuf == MPI_IN_PLACE) {
            void *copy = scratch(st, 0, (size_t)c.bytes);
            if (copy == NULL)
                return refuse(st, &c, MPI_ERR_NO_MEM, "could not allocate its MPI_IN_PLACE copy");
            memcpy(copy, recvbuf, (size_t)c.bytes);
            input = copy;
        }
        collsim_params params = params_of(st, c.rule);
        st->depth++;
        rc = c.rule->algorithm->fn.allreduce(input, recvbuf, run_count, datatype, op, comm,
                                             &params);
        st->depth--;
    }
    double end = PMPI_Wtime();
    if (rc == MPI_SUCCESS)
        trace_call(st, &c, start, end);
    return rc;
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    rank_state *st = state();
    int size = 0, rank = 0;
    if (st == NULL || st->depth > 0 || count < 0 || comm == MPI_COMM_NULL ||
        PMPI_Comm_size(comm, &size) != MPI_SUCCESS || PMPI_Comm_rank(comm, &rank) != MPI_SUCCESS ||
        root < 0 || root >= size)
        return PMPI_Reduce(sendbuf, recvbuf, count, datatype, op, root, comm);
    call_info c = {.collective = COLLSIM_REDUCE, .comm = comm, .root = root};
    int rc = prepare(st, &c, count, datatype, op);
    if (rc != MPI_SUCCESS)
        return rc;
    if (rank != root && sendbuf == MPI_IN_PLACE && c.rule != NULL && c.rule->algorithm != NULL)
        return refuse(st, &c, MPI_ERR_BUFFER, "takes MPI_IN_PLACE at the root only");
    const int run_count = c.bytes > 0 ? count : 0;
    if ((rc = record_selection(&c, run_count, datatype, op)) != MPI_SUCCESS)
        return rc;
    double start = PMPI_Wtime();
    if (c.rule == NULL || c.rule->algorithm == NULL) {
        rc = PMPI_Reduce(sendbuf, recvbuf, library_count(count, c.bytes),
                         library_type(datatype, c.bytes), op, root, comm);
    } else {
        const void *input = sendbuf;
        void *output = recvbuf;
        if (rank == root && sendbuf == MPI_IN_PLACE) {
            void *copy = scratch(st, 0, (size_t)c.bytes);
            if (copy == NULL)
                return refuse(st, &c, MPI_ERR_NO_MEM, "could not allocate its MPI_IN_PLACE copy");
            memcpy(copy, recvbuf, (size_t)c.bytes);
            input = copy;
        }
        /* recvbuf is significant at the root only: elsewhere it may be NULL or short */
        if (rank != root && (output = scratch(st, 1, (size_t)c.bytes)) == NULL)
            return refuse(st, &c, MPI_ERR_NO_MEM, "could not allocate a receive buffer");
        collsim_params params = params_of(st, c.rule);
        st->depth++;
        rc = c.rule->algorithm->fn.reduce(input, output, run_count, datatype, op, root, comm,
                                          &params);
        st->depth--;
    }
    double end = PMPI_Wtime();
    if (rc == MPI_SUCCESS)
        trace_call(st, &c, start, end);
    return rc;
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    rank_state *st = state();
    int size = 0;
    if (st == NULL || st->depth > 0 || count < 0 || comm == MPI_COMM_NULL ||
        PMPI_Comm_size(comm, &size) != MPI_SUCCESS || root < 0 || root >= size)
        return PMPI_Bcast(buffer, count, datatype, root, comm);
    call_info c = {.collective = COLLSIM_BCAST, .comm = comm, .root = root};
    int rc = prepare(st, &c, count, datatype, MPI_OP_NULL);
    if (rc != MPI_SUCCESS)
        return rc;
    const int run_count = c.bytes > 0 ? count : 0;
    if ((rc = record_selection(&c, run_count, datatype, MPI_OP_NULL)) != MPI_SUCCESS)
        return rc;
    double start = PMPI_Wtime();
    if (c.rule == NULL || c.rule->algorithm == NULL) {
        rc = PMPI_Bcast(buffer, library_count(count, c.bytes), library_type(datatype, c.bytes),
                        root, comm);
    } else {
        collsim_params params = params_of(st, c.rule);
        st->depth++;
        rc = c.rule->algorithm->fn.bcast(buffer, run_count, datatype, root, comm, &params);
        st->depth--;
    }
    double end = PMPI_Wtime();
    if (rc == MPI_SUCCESS)
        trace_call(st, &c, start, end);
    return rc;
}

/* --- the other blocking collectives: the MPI library's, timed and counted ----------------
 *
 * So that the summary shows every collective, each of these writes a call row
 * with ALGORITHM "mpi (not intercepted)" and BYTES what this rank contributes
 * (its send buffer; MPI_IN_PLACE: its block of the receive buffer); the call
 * itself goes to the library unchanged. */

#define NOT_INTERCEPTED "mpi (not intercepted)"

static long long type_bytes(MPI_Datatype datatype, long long count)
{
    int size = 0;
    if (datatype == MPI_DATATYPE_NULL || PMPI_Type_size(datatype, &size) != MPI_SUCCESS)
        return 0;
    return count * size;
}

static long long sum_counts(const int *counts, MPI_Comm comm)
{
    int size = 0;
    long long total = 0;
    if (counts == NULL || PMPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return 0;
    for (int i = 0; i < size; i++)
        total += counts[i];
    return total;
}

static int comm_size_of(MPI_Comm comm)
{
    int size = 0;
    PMPI_Comm_size(comm, &size);
    return size;
}

static int comm_rank_of(MPI_Comm comm)
{
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    return rank;
}

/* Whether a call is traced: the program's own, on a valid intracommunicator. */
static rank_state *tracing(MPI_Comm comm)
{
    rank_state *st = state();
    int inter = 0;
    if (st == NULL || st->trace == NULL || st->depth > 0 || comm == MPI_COMM_NULL ||
        PMPI_Comm_test_inter(comm, &inter) != MPI_SUCCESS || inter)
        return NULL;
    return st;
}

static void trace_other(rank_state *st, const char *collective, MPI_Comm comm, long long bytes,
                        int root, double start, double end)
{
    uint64_t key = 0;
    long long seq = 0;
    if (call_identity(st, comm, &key, &seq) != MPI_SUCCESS)
        return;
    fprintf(st->trace,
            "call\t%s\t%s\t-\t%d\t%lld\t0\t%d\t1\t0\t%016" PRIx64 "\t%lld\t%.17g\t%.17g\n",
            collective, NOT_INTERCEPTED, comm_size_of(comm), bytes, root, key, seq, start, end);
}

/* Runs CALL (a PMPI call) and, when st traces, writes its row. */
#define TIMED(name, comm, bytes, root, call)                                                \
    do {                                                                                    \
        rank_state *st_ = tracing(comm);                                                    \
        if (st_ == NULL)                                                                    \
            return call;                                                                    \
        const long long bytes_ = (bytes);                                                   \
        double start_ = PMPI_Wtime();                                                       \
        int rc_ = call;                                                                     \
        double end_ = PMPI_Wtime();                                                         \
        if (rc_ == MPI_SUCCESS)                                                             \
            trace_other(st_, name, comm, bytes_, root, start_, end_);                       \
        return rc_;                                                                         \
    } while (0)

int MPI_Barrier(MPI_Comm comm)
{
    TIMED("barrier", comm, 0, -1, PMPI_Barrier(comm));
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    TIMED("allgather", comm,
          sendbuf == MPI_IN_PLACE ? type_bytes(recvtype, recvcount)
                                  : type_bytes(sendtype, sendcount),
          -1, PMPI_Allgather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int *recvcounts, const int *displs, MPI_Datatype recvtype, MPI_Comm comm)
{
    TIMED("allgatherv", comm,
          sendbuf == MPI_IN_PLACE ? type_bytes(recvtype, recvcounts[comm_rank_of(comm)])
                                  : type_bytes(sendtype, sendcount),
          -1,
          PMPI_Allgatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype,
                          comm));
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    TIMED("alltoall", comm,
          sendbuf == MPI_IN_PLACE
              ? type_bytes(recvtype, (long long)recvcount * comm_size_of(comm))
              : type_bytes(sendtype, (long long)sendcount * comm_size_of(comm)),
          -1, PMPI_Alltoall(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, comm));
}

int MPI_Alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
                  MPI_Datatype sendtype, void *recvbuf, const int *recvcounts, const int *rdispls,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    TIMED("alltoallv", comm,
          sendbuf == MPI_IN_PLACE ? type_bytes(recvtype, sum_counts(recvcounts, comm))
                                  : type_bytes(sendtype, sum_counts(sendcounts, comm)),
          -1,
          PMPI_Alltoallv(sendbuf, sendcounts, sdispls, sendtype, recvbuf, recvcounts, rdispls,
                         recvtype, comm));
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TIMED("gather", comm,
          sendbuf == MPI_IN_PLACE ? type_bytes(recvtype, recvcount)
                                  : type_bytes(sendtype, sendcount),
          root,
          PMPI_Gather(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    TIMED("gatherv", comm,
          sendbuf == MPI_IN_PLACE ? type_bytes(recvtype, recvcounts[root])
                                  : type_bytes(sendtype, sendcount),
          root,
          PMPI_Gatherv(sendbuf, sendcount, sendtype, recvbuf, recvcounts, displs, recvtype, root,
                       comm));
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    TIMED("scatter", comm,
          recvbuf == MPI_IN_PLACE ? type_bytes(sendtype, sendcount)
                                  : type_bytes(recvtype, recvcount),
          root,
          PMPI_Scatter(sendbuf, sendcount, sendtype, recvbuf, recvcount, recvtype, root, comm));
}

int MPI_Scatterv(const void *sendbuf, const int *sendcounts, const int *displs,
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    TIMED("scatterv", comm,
          recvbuf == MPI_IN_PLACE ? type_bytes(sendtype, sendcounts[root])
                                  : type_bytes(recvtype, recvcount),
          root,
          PMPI_Scatterv(sendbuf, sendcounts, displs, sendtype, recvbuf, recvcount, recvtype, root,
                        comm));
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    TIMED("reduce_scatter", comm, type_bytes(datatype, sum_counts(recvcounts, comm)), -1,
          PMPI_Reduce_scatter(sendbuf, recvbuf, recvcounts, datatype, op, comm));
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    TIMED("reduce_scatter_block", comm,
          type_bytes(datatype, (long long)recvcount * comm_size_of(comm)), -1,
          PMPI_Reduce_scatter_block(sendbuf, recvbuf, recvcount, datatype, op, comm));
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm)
{
    TIMED("scan", comm, type_bytes(datatype, count), -1,
          PMPI_Scan(sendbuf, recvbuf, count, datatype, op, comm));
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm)
{
    TIMED("exscan", comm, type_bytes(datatype, count), -1,
          PMPI_Exscan(sendbuf, recvbuf, count, datatype, op, comm));
}

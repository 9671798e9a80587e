/*
 * interpose.c: a PMPI library that sends an unmodified program's blocking
 * collectives to collsim's algorithms: MPI_Allreduce, MPI_Reduce, MPI_Bcast,
 * MPI_Allgather, MPI_Reduce_scatter_block, MPI_Alltoall, MPI_Gather,
 * MPI_Scatter, MPI_Barrier, MPI_Scan and MPI_Exscan (the collectives of
 * algorithms/collectives.def; Fortran's entry points: fortran.c).  Their
 * variants with counts go to collsim's collective when every block is as long
 * and they lie one after the other (MPI_Allgatherv, MPI_Alltoallv,
 * MPI_Gatherv, MPI_Scatterv: "even blocks"; MPI_Reduce_scatter: equal
 * counts), else to the MPI library, named in the trace ("mpi (not
 * intercepted)"), as MPI_Alltoallw always is.  Where only the root knows the
 * counts (gatherv, scatterv) or each rank its own (alltoallv), the ranks agree
 * first by an untimed PMPI_Bcast or PMPI_Allreduce of one int, made only when
 * the collective has rules.  MPI_IN_PLACE, where the standard allows it,
 * gives the algorithm a copy of the input as its send buffer; buffers the
 * standard leaves unused at a rank (a non-root's receive buffer of a reduce)
 * are scratch.
 *
 * Which algorithm takes a call is decided by the rules file named by
 * $COLLSIM_RULES (format: sim/collsim/rules.py, reader: rules.c): the first
 * rule of the collective whose ranges hold the communicator's size and the
 * bytes of one block of the call (collectives.def).  A collective without
 * rules goes to the MPI library, as does every other MPI function; a
 * collective with rules but none for the call, or a call the picked algorithm
 * cannot take (a restriction of the registry, a non-contiguous datatype),
 * fails with a message naming why: never a silent fallback.
 *
 * With $COLLSIM_TRACE=PREFIX every rank writes PREFIX.RANK.tsv: one row per
 * intercepted call with its start and end on the (simulated) clock, so that
 * `collsim app` can compute each call's max end - min start across ranks
 * (C prints rows, Python summarizes):
 *
 *   init      T
 *   comm      KEY  WORLD_RANKS        (once per communicator group, by its rank 0)
 *   call      COLLECTIVE FUNCTION ALGORITHM SELECTED NP BYTES ELEM_BYTES ROOT COMMUTATIVE
 *             RULE_LINE KEY SEQ START END
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
 * COLLECTIVE is collsim's (collectives.def), FUNCTION the MPI function the
 * program called; ALGORITHM a registry name, "mpi" (no rule asks for collsim's
 * algorithms) or "mpi (not intercepted)" (collsim takes no such call: uneven
 * blocks, MPI_Alltoallw); BYTES one block (a call with uneven blocks: the
 * largest this rank sends or receives), 0 for a barrier.
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

static const char *collective_name(collsim_collective collective)
{
    size_t n;
    return collsim_collectives(&n)[collective].name;
}

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
#define NOT_INTERCEPTED "mpi (not intercepted)"

/* The program's call as it made it: what the MPI library gets when the call
 * is not run by collsim (arguments a function does not take are unset). */
typedef enum mpi_function {
    F_ALLREDUCE, F_REDUCE, F_BCAST, F_ALLGATHER, F_ALLGATHERV, F_REDUCE_SCATTER_BLOCK,
    F_REDUCE_SCATTER, F_ALLTOALL, F_ALLTOALLV, F_ALLTOALLW, F_GATHER, F_GATHERV, F_SCATTER,
    F_SCATTERV, F_BARRIER, F_SCAN, F_EXSCAN
} mpi_function;

static const char *const function_names[] = {
    "MPI_Allreduce", "MPI_Reduce", "MPI_Bcast", "MPI_Allgather", "MPI_Allgatherv",
    "MPI_Reduce_scatter_block", "MPI_Reduce_scatter", "MPI_Alltoall", "MPI_Alltoallv",
    "MPI_Alltoallw", "MPI_Gather", "MPI_Gatherv", "MPI_Scatter", "MPI_Scatterv", "MPI_Barrier",
    "MPI_Scan", "MPI_Exscan"};

typedef struct mpi_args {
    mpi_function function;
    const void *sendbuf;
    int sendcount;
    const int *sendcounts, *sdispls;
    MPI_Datatype sendtype;
    const MPI_Datatype *sendtypes;
    void *recvbuf;
    int recvcount;
    const int *recvcounts, *rdispls;
    MPI_Datatype recvtype;
    const MPI_Datatype *recvtypes;
    MPI_Op op;
    int root;
    MPI_Comm comm;
} mpi_args;

/* The call handed to the MPI library unchanged. */
static int library_call(const mpi_args *a)
{
    switch (a->function) {
    case F_ALLREDUCE:
        return PMPI_Allreduce(a->sendbuf, a->recvbuf, a->recvcount, a->recvtype, a->op, a->comm);
    case F_REDUCE:
        return PMPI_Reduce(a->sendbuf, a->recvbuf, a->recvcount, a->recvtype, a->op, a->root,
                           a->comm);
    case F_BCAST:
        return PMPI_Bcast(a->recvbuf, a->recvcount, a->recvtype, a->root, a->comm);
    case F_ALLGATHER:
        return PMPI_Allgather(a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount,
                              a->recvtype, a->comm);
    case F_ALLGATHERV:
        return PMPI_Allgatherv(a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcounts,
                               a->rdispls, a->recvtype, a->comm);
    case F_REDUCE_SCATTER_BLOCK:
        return PMPI_Reduce_scatter_block(a->sendbuf, a->recvbuf, a->recvcount, a->recvtype, a->op,
                                         a->comm);
    case F_REDUCE_SCATTER:
        return PMPI_Reduce_scatter(a->sendbuf, a->recvbuf, a->recvcounts, a->recvtype, a->op,
                                   a->comm);
    case F_ALLTOALL:
        return PMPI_Alltoall(a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount,
                             a->recvtype, a->comm);
    case F_ALLTOALLV:
        return PMPI_Alltoallv(a->sendbuf, a->sendcounts, a->sdispls, a->sendtype, a->recvbuf,
                              a->recvcounts, a->rdispls, a->recvtype, a->comm);
    case F_ALLTOALLW:
        return PMPI_Alltoallw(a->sendbuf, a->sendcounts, a->sdispls, a->sendtypes, a->recvbuf,
                              a->recvcounts, a->rdispls, a->recvtypes, a->comm);
    case F_GATHER:
        return PMPI_Gather(a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount,
                           a->recvtype, a->root, a->comm);
    case F_GATHERV:
        return PMPI_Gatherv(a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcounts,
                            a->rdispls, a->recvtype, a->root, a->comm);
    case F_SCATTER:
        return PMPI_Scatter(a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount,
                            a->recvtype, a->root, a->comm);
    case F_SCATTERV:
        return PMPI_Scatterv(a->sendbuf, a->sendcounts, a->sdispls, a->sendtype, a->recvbuf,
                             a->recvcount, a->recvtype, a->root, a->comm);
    case F_BARRIER:
        return PMPI_Barrier(a->comm);
    case F_SCAN:
        return PMPI_Scan(a->sendbuf, a->recvbuf, a->recvcount, a->recvtype, a->op, a->comm);
    default:
        return PMPI_Exscan(a->sendbuf, a->recvbuf, a->recvcount, a->recvtype, a->op, a->comm);
    }
}

/* The call as collsim's collective sees it: one block of count elements
 * (collectives.def; the algorithms' signatures, collsim.h).  Buffers and types
 * a rank does not use are filled with what it does use, so that an algorithm
 * never meets an argument the program may leave unset (a non-root's receive
 * type in a gather). */
typedef struct block_args {
    const void *sendbuf;
    int sendcount;
    MPI_Datatype sendtype;
    void *recvbuf;
    int recvcount;
    MPI_Datatype recvtype;
} block_args;

/* What one call is, for the rules, the checks and the trace. */
typedef struct call_info {
    collsim_collective collective;
    mpi_function function;
    MPI_Comm comm;
    int np, rank;
    long long bytes;          /* one block (collectives.def) */
    int elem_bytes;
    int root;                 /* -1 without a root */
    int commutative;
    const collsim_rule *rule; /* NULL: the MPI library (no rules for the collective) */
    const char *passed;       /* not NULL: given to the library; why ("not intercepted") */
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
    const char *algorithm = c->passed                               ? NOT_INTERCEPTED
                            : c->rule && c->rule->algorithm ? c->rule->algorithm->name
                                                            : "mpi";
    fprintf(st->trace,
            "call\t%s\t%s\t%s\t%s\t%d\t%lld\t%d\t%d\t%d\t%d\t%016" PRIx64 "\t%lld\t%.17g\t%.17g\n",
            collective_name(c->collective), function_names[c->function], algorithm,
            c->selected[0] ? c->selected : "-", c->np, c->bytes, c->elem_bytes, c->root,
            c->commutative, c->rule && !c->passed ? c->rule->line : 0, key, seq, start, end);
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
            function_names[c->function], collective_name(c->collective), algorithm ? "/" : "",
            algorithm ? algorithm : "", why, c->np, c->bytes, where);
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

/* MPI_SUCCESS when datatype (MPI_DATATYPE_NULL: none) is contiguous: size =
 * extent, lower bound 0, as collsim's algorithms take them. */
static int check_contiguous(MPI_Datatype datatype, int *contiguous)
{
    *contiguous = 1;
    if (datatype == MPI_DATATYPE_NULL)
        return MPI_SUCCESS;
    int rc, size;
    MPI_Aint lb, extent, true_lb, true_extent;
    if ((rc = PMPI_Type_size(datatype, &size)) != MPI_SUCCESS ||
        (rc = PMPI_Type_get_extent(datatype, &lb, &extent)) != MPI_SUCCESS ||
        (rc = PMPI_Type_get_true_extent(datatype, &true_lb, &true_extent)) != MPI_SUCCESS)
        return rc;
    *contiguous = lb == 0 && true_lb == 0 && extent == size && true_extent == size;
    return MPI_SUCCESS;
}

/* The checks of a call a collsim algorithm takes: an intracommunicator,
 * contiguous datatypes, whole segments, the algorithm's restrictions. */
static int check_algorithm(rank_state *st, call_info *c, const block_args *b, MPI_Op op)
{
    const collsim_algorithm *alg = c->rule->algorithm;
    int rc, inter = 0, contiguous[2];
    if ((rc = PMPI_Comm_test_inter(c->comm, &inter)) != MPI_SUCCESS)
        return rc;
    if (inter)
        return refuse(st, c, MPI_ERR_COMM, "takes intracommunicators only");
    if ((rc = check_contiguous(b->sendtype, &contiguous[0])) != MPI_SUCCESS ||
        (rc = check_contiguous(b->recvtype, &contiguous[1])) != MPI_SUCCESS)
        return rc;
    if (!contiguous[0] || !contiguous[1])
        return refuse(st, c, MPI_ERR_TYPE,
                      "takes contiguous datatypes only (size = extent, lower bound 0)");
    char what[128];
    snprintf(what, sizeof what, "%d-byte", c->elem_bytes);
    char segment[192];
    if (c->elem_bytes > 0 &&
        collsim_check_segment(&c->rule->params, c->elem_bytes, what, segment, sizeof segment))
        return refuse(st, c, MPI_ERR_ARG, segment);
    size_t n;
    if (!collsim_collectives(&n)[c->collective].has_op) {
        const char *why = collsim_check_restrictions(alg, c->np, 1);
        return why ? refuse(st, c, MPI_ERR_ARG, why) : MPI_SUCCESS;
    }
    const char *why = collsim_check_restrictions(alg, c->np, c->commutative);
    if (why != NULL)
        return refuse(st, c, c->commutative ? MPI_ERR_ARG : MPI_ERR_OP, why);
    why = collsim_check_op_restrictions(alg, op, b->recvtype);
    if (why != NULL)
        return refuse(st, c, MPI_ERR_OP, why);
    char buf[256];
    why = collsim_check_composition(alg, c->np, c->commutative, &c->rule->params, buf, sizeof buf);
    if (why != NULL)
        return refuse(st, c, MPI_ERR_ARG, why);
    return MPI_SUCCESS;
}

/* Describes the call (one block of count elements of datatype; op
 * MPI_OP_NULL without one) and picks its rule; returns MPI_SUCCESS, or the
 * error of a refused call (a collective with rules, none of them for this
 * call; a call the picked algorithm cannot take). */
static int prepare(rank_state *st, call_info *c, int count, MPI_Datatype datatype, MPI_Op op,
                   const block_args *b)
{
    int rc;
    if ((rc = PMPI_Comm_size(c->comm, &c->np)) != MPI_SUCCESS ||
        (rc = PMPI_Comm_rank(c->comm, &c->rank)) != MPI_SUCCESS)
        return rc;
    c->elem_bytes = 0;
    if (datatype != MPI_DATATYPE_NULL && (rc = PMPI_Type_size(datatype, &c->elem_bytes)) != MPI_SUCCESS)
        return rc;
    c->bytes = (long long)count * c->elem_bytes;
    c->commutative = 1;
    if (op != MPI_OP_NULL && (rc = PMPI_Op_commutative(op, &c->commutative)) != MPI_SUCCESS)
        return rc;
    c->rule = NULL;
    if (c->passed || !st->rules.has_collective[c->collective])
        return MPI_SUCCESS;
    c->rule = collsim_rules_match(&st->rules, c->collective, c->np, c->bytes);
    if (c->rule == NULL) {
        char why[512];
        snprintf(why, sizeof why, "no rule in %s holds this call", st->rules_path);
        return refuse(st, c, MPI_ERR_ARG, why);
    }
    return c->rule->algorithm == NULL ? MPI_SUCCESS : check_algorithm(st, c, b, op);
}

/* Records in c->selected what a selector rule runs for the call (count: the
 * count the algorithm is given); the selector decides the same way itself. */
static int record_selection(call_info *c, int count, MPI_Datatype datatype, MPI_Op op)
{
    collsim_native_library library;
    c->selected[0] = '\0';
    if (c->passed || c->rule == NULL || c->rule->algorithm == NULL ||
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

static collsim_params params_of(const rank_state *st, const collsim_rule *rule)
{
    collsim_params params = rule->params;
    params.gamma_s_per_byte = st->gamma_s_per_byte;
    params.alpha_over_beta_bytes = st->alpha_over_beta_bytes;
    return params;
}

/* The library's call, except that under SMPI a zero-size block of a plain
 * (non-v) call becomes an empty call of MPI_BYTE (SMPI 3.32's own collectives
 * divide by the type size, whatever the count: SIGFPE), the empty call
 * collsim's algorithms run; a real MPI gets the call as is. */
static int library_run(const call_info *c, mpi_args a)
{
#ifdef COLLSIM_SMPI
    const int plain = a.sendcounts == NULL && a.recvcounts == NULL && a.sendtypes == NULL;
    if (plain && c->bytes == 0 && a.function != F_BARRIER) {
        a.sendcount = a.recvcount = 0;
        if (a.sendtype != MPI_DATATYPE_NULL)
            a.sendtype = MPI_BYTE;
        a.recvtype = MPI_BYTE;
    }
#else
    (void)c;
#endif
    return library_call(&a);
}

/* Runs the rule's algorithm on the call's blocks. */
static int run_algorithm(const call_info *c, const block_args *b, int count, MPI_Op op,
                         const collsim_params *params)
{
    const collsim_algorithm *alg = c->rule->algorithm;
    switch (c->collective) {
    case COLLSIM_ALLREDUCE:
        return alg->fn.allreduce(b->sendbuf, b->recvbuf, count, b->recvtype, op, c->comm, params);
    case COLLSIM_REDUCE:
        return alg->fn.reduce(b->sendbuf, b->recvbuf, count, b->recvtype, op, c->root, c->comm,
                              params);
    case COLLSIM_BCAST:
        return alg->fn.bcast(b->recvbuf, count, b->recvtype, c->root, c->comm, params);
    case COLLSIM_ALLGATHER:
        return alg->fn.allgather(b->sendbuf, b->sendcount, b->sendtype, b->recvbuf, b->recvcount,
                                 b->recvtype, c->comm, params);
    case COLLSIM_REDUCE_SCATTER:
        return alg->fn.reduce_scatter(b->sendbuf, b->recvbuf, count, b->recvtype, op, c->comm,
                                      params);
    case COLLSIM_ALLTOALL:
        return alg->fn.alltoall(b->sendbuf, b->sendcount, b->sendtype, b->recvbuf, b->recvcount,
                                b->recvtype, c->comm, params);
    case COLLSIM_GATHER:
        return alg->fn.gather(b->sendbuf, b->sendcount, b->sendtype, b->recvbuf, b->recvcount,
                              b->recvtype, c->root, c->comm, params);
    case COLLSIM_SCATTER:
        return alg->fn.scatter(b->sendbuf, b->sendcount, b->sendtype, b->recvbuf, b->recvcount,
                               b->recvtype, c->root, c->comm, params);
    case COLLSIM_BARRIER:
        return alg->fn.barrier(c->comm, params);
    case COLLSIM_SCAN:
        return alg->fn.scan(b->sendbuf, b->recvbuf, count, b->recvtype, op, c->comm, params);
    default:
        return alg->fn.exscan(b->sendbuf, b->recvbuf, count, b->recvtype, op, c->comm, params);
    }
}

/* MPI_IN_PLACE and the buffers a rank does not use: a send buffer copy where
 * the standard lets the receive buffer hold the input, a scratch buffer where
 * the program's is not significant.  Returns MPI_SUCCESS or MPI_ERR_NO_MEM. */
static int own_buffers(rank_state *st, const call_info *c, const mpi_args *a, block_args *b,
                       int count)
{
    const size_t block = (size_t)c->bytes; /* contiguous types: bytes = extent */
    const size_t all = block * (size_t)c->np;
    const int at_root = c->rank == c->root;
    const void *copy_from = NULL;
    size_t copy_bytes = 0;
    switch (c->collective) {
    case COLLSIM_ALLREDUCE:
    case COLLSIM_SCAN:
    case COLLSIM_EXSCAN:
        if (a->sendbuf == MPI_IN_PLACE)
            copy_from = a->recvbuf, copy_bytes = (size_t)count * c->elem_bytes;
        break;
    case COLLSIM_REDUCE:
        if (at_root && a->sendbuf == MPI_IN_PLACE)
            copy_from = a->recvbuf, copy_bytes = (size_t)count * c->elem_bytes;
        /* recvbuf is significant at the root only: elsewhere it may be NULL or short */
        if (!at_root && (b->recvbuf = scratch(st, 1, (size_t)count * c->elem_bytes)) == NULL)
            return MPI_ERR_NO_MEM;
        break;
    case COLLSIM_REDUCE_SCATTER:
        if (a->sendbuf == MPI_IN_PLACE)
            copy_from = a->recvbuf, copy_bytes = all;
        break;
    case COLLSIM_ALLGATHER:
        if (a->sendbuf == MPI_IN_PLACE)
            copy_from = (const char *)a->recvbuf + block * (size_t)c->rank, copy_bytes = block;
        break;
    case COLLSIM_ALLTOALL:
        if (a->sendbuf == MPI_IN_PLACE)
            copy_from = a->recvbuf, copy_bytes = all;
        break;
    case COLLSIM_GATHER:
        if (at_root && a->sendbuf == MPI_IN_PLACE)
            copy_from = (const char *)a->recvbuf + block * (size_t)c->root, copy_bytes = block;
        break;
    case COLLSIM_SCATTER:
        /* the root's block stays where it is in sendbuf: the algorithm writes a copy */
        if (at_root && a->recvbuf == MPI_IN_PLACE && (b->recvbuf = scratch(st, 1, block)) == NULL)
            return MPI_ERR_NO_MEM;
        break;
    default:
        break;
    }
    if (copy_from != NULL) {
        void *copy = scratch(st, 0, copy_bytes);
        if (copy == NULL)
            return MPI_ERR_NO_MEM;
        memcpy(copy, copy_from, copy_bytes);
        b->sendbuf = copy;
    }
    return MPI_SUCCESS;
}

/* One call of a collsim collective: its rule, then collsim's algorithm or the
 * library, timed and traced.  count and datatype: one block (what the rules'
 * bytes and a selector read); op MPI_OP_NULL without one. */
static int intercept(rank_state *st, call_info *c, const mpi_args *a, block_args b, int count,
                     MPI_Datatype datatype)
{
    int rc = prepare(st, c, count, datatype, a->op, &b);
    if (rc != MPI_SUCCESS)
        return rc;
    const int run_count = c->bytes > 0 ? count : 0;
    if ((rc = record_selection(c, run_count, datatype, a->op)) != MPI_SUCCESS)
        return rc;
    const int by_collsim = !c->passed && c->rule != NULL && c->rule->algorithm != NULL;
    if (by_collsim && (rc = own_buffers(st, c, a, &b, count)) != MPI_SUCCESS)
        return refuse(st, c, rc, "could not allocate its MPI_IN_PLACE copy or scratch buffer");
    if (by_collsim && c->bytes == 0)
        b.sendcount = b.recvcount = 0;
    double start = PMPI_Wtime();
    if (!by_collsim) {
        rc = library_run(c, *a);
    } else {
        collsim_params params = params_of(st, c->rule);
        st->depth++;
        rc = run_algorithm(c, &b, run_count, a->op, &params);
        st->depth--;
    }
    double end = PMPI_Wtime();
    if (rc == MPI_SUCCESS)
        trace_call(st, c, start, end);
    return rc;
}

/* Whether a call is the program's own, on a valid communicator, after
 * MPI_Init: the interposition's business (else straight to the library). */
static rank_state *ours(MPI_Comm comm)
{
    rank_state *st = state();
    if (st == NULL || st->depth > 0 || comm == MPI_COMM_NULL)
        return NULL;
    return st;
}

static int valid_root(MPI_Comm comm, int root)
{
    int size = 0;
    return PMPI_Comm_size(comm, &size) == MPI_SUCCESS && root >= 0 && root < size;
}

static long long type_bytes(MPI_Datatype datatype, long long count)
{
    int size = 0;
    if (datatype == MPI_DATATYPE_NULL || PMPI_Type_size(datatype, &size) != MPI_SUCCESS)
        return 0;
    return count * size;
}

/* --- the collectives of collsim ---------------------------------------------------------- */

int MPI_Allreduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
                  MPI_Comm comm)
{
    const mpi_args a = {.function = F_ALLREDUCE, .sendbuf = sendbuf, .recvbuf = recvbuf,
                        .recvcount = count, .recvtype = datatype, .op = op, .comm = comm};
    rank_state *st = ours(comm);
    if (st == NULL || count < 0)
        return library_call(&a);
    call_info c = {.collective = COLLSIM_ALLREDUCE, .function = a.function, .comm = comm,
                   .root = -1};
    const block_args b = {sendbuf, count, datatype, recvbuf, count, datatype};
    return intercept(st, &c, &a, b, count, datatype);
}

int MPI_Reduce(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               int root, MPI_Comm comm)
{
    const mpi_args a = {.function = F_REDUCE, .sendbuf = sendbuf, .recvbuf = recvbuf,
                        .recvcount = count, .recvtype = datatype, .op = op, .root = root,
                        .comm = comm};
    rank_state *st = ours(comm);
    if (st == NULL || count < 0 || !valid_root(comm, root))
        return library_call(&a);
    call_info c = {.collective = COLLSIM_REDUCE, .function = a.function, .comm = comm,
                   .root = root};
    const block_args b = {sendbuf, count, datatype, recvbuf, count, datatype};
    int rank = 0;
    PMPI_Comm_rank(comm, &rank);
    if (rank != root && sendbuf == MPI_IN_PLACE && st->rules.has_collective[COLLSIM_REDUCE]) {
        int rc = prepare(st, &c, count, datatype, op, &b);
        if (rc != MPI_SUCCESS)
            return rc;
        if (c.rule != NULL && c.rule->algorithm != NULL)
            return refuse(st, &c, MPI_ERR_BUFFER, "takes MPI_IN_PLACE at the root only");
    }
    return intercept(st, &c, &a, b, count, datatype);
}

int MPI_Bcast(void *buffer, int count, MPI_Datatype datatype, int root, MPI_Comm comm)
{
    const mpi_args a = {.function = F_BCAST, .recvbuf = buffer, .recvcount = count,
                        .recvtype = datatype, .op = MPI_OP_NULL, .root = root, .comm = comm};
    rank_state *st = ours(comm);
    if (st == NULL || count < 0 || !valid_root(comm, root))
        return library_call(&a);
    call_info c = {.collective = COLLSIM_BCAST, .function = a.function, .comm = comm,
                   .root = root};
    const block_args b = {buffer, count, datatype, buffer, count, datatype};
    return intercept(st, &c, &a, b, count, datatype);
}

int MPI_Scan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
             MPI_Comm comm)
{
    const mpi_args a = {.function = F_SCAN, .sendbuf = sendbuf, .recvbuf = recvbuf,
                        .recvcount = count, .recvtype = datatype, .op = op, .comm = comm};
    rank_state *st = ours(comm);
    if (st == NULL || count < 0)
        return library_call(&a);
    call_info c = {.collective = COLLSIM_SCAN, .function = a.function, .comm = comm, .root = -1};
    const block_args b = {sendbuf, count, datatype, recvbuf, count, datatype};
    return intercept(st, &c, &a, b, count, datatype);
}

int MPI_Exscan(const void *sendbuf, void *recvbuf, int count, MPI_Datatype datatype, MPI_Op op,
               MPI_Comm comm)
{
    const mpi_args a = {.function = F_EXSCAN, .sendbuf = sendbuf, .recvbuf = recvbuf,
                        .recvcount = count, .recvtype = datatype, .op = op, .comm = comm};
    rank_state *st = ours(comm);
    if (st == NULL || count < 0)
        return library_call(&a);
    call_info c = {.collective = COLLSIM_EXSCAN, .function = a.function, .comm = comm,
                   .root = -1};
    const block_args b = {sendbuf, count, datatype, recvbuf, count, datatype};
    return intercept(st, &c, &a, b, count, datatype);
}

int MPI_Barrier(MPI_Comm comm)
{
    const mpi_args a = {.function = F_BARRIER, .sendtype = MPI_DATATYPE_NULL,
                        .recvtype = MPI_DATATYPE_NULL, .op = MPI_OP_NULL, .comm = comm};
    rank_state *st = ours(comm);
    if (st == NULL)
        return library_call(&a);
    call_info c = {.collective = COLLSIM_BARRIER, .function = a.function, .comm = comm,
                   .root = -1};
    const block_args b = {NULL, 0, MPI_DATATYPE_NULL, NULL, 0, MPI_DATATYPE_NULL};
    return intercept(st, &c, &a, b, 0, MPI_DATATYPE_NULL);
}

int MPI_Reduce_scatter_block(const void *sendbuf, void *recvbuf, int recvcount,
                             MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    const mpi_args a = {.function = F_REDUCE_SCATTER_BLOCK, .sendbuf = sendbuf,
                        .recvbuf = recvbuf, .recvcount = recvcount, .recvtype = datatype,
                        .op = op, .comm = comm};
    rank_state *st = ours(comm);
    if (st == NULL || recvcount < 0)
        return library_call(&a);
    call_info c = {.collective = COLLSIM_REDUCE_SCATTER, .function = a.function, .comm = comm,
                   .root = -1};
    const block_args b = {sendbuf, recvcount, datatype, recvbuf, recvcount, datatype};
    return intercept(st, &c, &a, b, recvcount, datatype);
}

/* allgather, alltoall: one block of sendcount x sendtype (MPI_IN_PLACE: the
 * receive side's) */
static int exchange(mpi_args a, collsim_collective collective)
{
    rank_state *st = ours(a.comm);
    if (st == NULL || a.recvcount < 0 || (a.sendbuf != MPI_IN_PLACE && a.sendcount < 0))
        return library_call(&a);
    call_info c = {.collective = collective, .function = a.function, .comm = a.comm,
                   .root = -1};
    block_args b = {a.sendbuf, a.sendcount, a.sendtype, a.recvbuf, a.recvcount, a.recvtype};
    if (a.sendbuf == MPI_IN_PLACE)
        b.sendcount = a.recvcount, b.sendtype = a.recvtype;
    return intercept(st, &c, &a, b, b.sendcount, b.sendtype);
}

int MPI_Allgather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                  int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    const mpi_args a = {.function = F_ALLGATHER, .sendbuf = sendbuf, .sendcount = sendcount,
                        .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount,
                        .recvtype = recvtype, .op = MPI_OP_NULL, .comm = comm};
    return exchange(a, COLLSIM_ALLGATHER);
}

int MPI_Alltoall(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                 int recvcount, MPI_Datatype recvtype, MPI_Comm comm)
{
    const mpi_args a = {.function = F_ALLTOALL, .sendbuf = sendbuf, .sendcount = sendcount,
                        .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount,
                        .recvtype = recvtype, .op = MPI_OP_NULL, .comm = comm};
    return exchange(a, COLLSIM_ALLTOALL);
}

/* gather, scatter: one block as this rank sees it (the root's receive side in
 * a gather, its send side in a scatter, the other side elsewhere); a
 * non-root's unused side is given its used one. */
static int rooted(mpi_args a, collsim_collective collective)
{
    rank_state *st = ours(a.comm);
    if (st == NULL || !valid_root(a.comm, a.root))
        return library_call(&a);
    int rank = 0;
    PMPI_Comm_rank(a.comm, &rank);
    const int gather = collective == COLLSIM_GATHER;
    block_args b = {a.sendbuf, a.sendcount, a.sendtype, a.recvbuf, a.recvcount, a.recvtype};
    int count;
    MPI_Datatype datatype;
    if (rank == a.root) {
        count = gather ? a.recvcount : a.sendcount;
        datatype = gather ? a.recvtype : a.sendtype;
        if (gather && a.sendbuf == MPI_IN_PLACE)
            b.sendcount = count, b.sendtype = datatype;
        if (!gather && a.recvbuf == MPI_IN_PLACE)
            b.recvcount = count, b.recvtype = datatype;
    } else {
        count = gather ? a.sendcount : a.recvcount;
        datatype = gather ? a.sendtype : a.recvtype;
        b.sendcount = b.recvcount = count;
        b.sendtype = b.recvtype = datatype;
    }
    if (count < 0)
        return library_call(&a);
    call_info c = {.collective = collective, .function = a.function, .comm = a.comm,
                   .root = a.root};
    return intercept(st, &c, &a, b, count, datatype);
}

int MPI_Gather(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
               int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    const mpi_args a = {.function = F_GATHER, .sendbuf = sendbuf, .sendcount = sendcount,
                        .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount,
                        .recvtype = recvtype, .op = MPI_OP_NULL, .root = root, .comm = comm};
    return rooted(a, COLLSIM_GATHER);
}

int MPI_Scatter(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                int recvcount, MPI_Datatype recvtype, int root, MPI_Comm comm)
{
    const mpi_args a = {.function = F_SCATTER, .sendbuf = sendbuf, .sendcount = sendcount,
                        .sendtype = sendtype, .recvbuf = recvbuf, .recvcount = recvcount,
                        .recvtype = recvtype, .op = MPI_OP_NULL, .root = root, .comm = comm};
    return rooted(a, COLLSIM_SCATTER);
}

/* --- the variants with counts: collsim's when every block is as long and they lie one
 * after the other, else the library's, named in the trace ("mpi (not intercepted)") ---- */

/* 1 when counts (size of them) are all equal and displs[i] = i counts[0]
 * (displs NULL: not checked); *count is counts[0] (0 for size 0). */
static int even_blocks(const int *counts, const int *displs, int size, int *count)
{
    *count = size > 0 ? counts[0] : 0;
    for (int i = 0; i < size; i++)
        if (counts[i] != *count || (displs != NULL && displs[i] != i * *count))
            return 0;
    return 1;
}

static int largest(const int *counts, int size)
{
    int most = 0;
    for (int i = 0; counts != NULL && i < size; i++)
        most = counts[i] > most ? counts[i] : most;
    return most;
}

/* A call given to the library as it is, traced with the largest block this
 * rank sends or receives (bytes): why it was not intercepted (the row's
 * algorithm "mpi (not intercepted)"), or NULL where no rule asks for
 * collsim's algorithms ("mpi"). */
static int passed_on(rank_state *st, collsim_collective collective, const mpi_args *a,
                     long long bytes, const char *why)
{
    int rc, inter = 0;
    if (st == NULL || st->trace == NULL || PMPI_Comm_test_inter(a->comm, &inter) != MPI_SUCCESS ||
        inter)
        return library_call(a);
    call_info c = {.collective = collective, .function = a->function, .comm = a->comm,
                   .root = a->root, .passed = why, .commutative = 1};
    PMPI_Comm_size(a->comm, &c.np);
    PMPI_Comm_rank(a->comm, &c.rank);
    c.bytes = bytes;
    double start = PMPI_Wtime();
    rc = library_call(a);
    double end = PMPI_Wtime();
    if (rc == MPI_SUCCESS)
        trace_call(st, &c, start, end);
    return rc;
}

/* Whether every rank's blocks are even, when only some know: the verdict of
 * root (>= 0), or the conjunction of all (root -1), by an untimed PMPI call
 * (made only when the collective has rules: otherwise the library takes the
 * call whatever its counts). */
static int agree(int mine, int root, MPI_Comm comm, int *all)
{
    *all = mine;
    return root >= 0 ? PMPI_Bcast(all, 1, MPI_INT, root, comm)
                     : PMPI_Allreduce(MPI_IN_PLACE, all, 1, MPI_INT, MPI_LAND, comm);
}

int MPI_Allgatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                   const int *recvcounts, const int *displs, MPI_Datatype recvtype, MPI_Comm comm)
{
    const mpi_args a = {.function = F_ALLGATHERV, .sendbuf = sendbuf, .sendcount = sendcount,
                        .sendtype = sendtype, .recvbuf = recvbuf, .recvcounts = recvcounts,
                        .rdispls = displs, .recvtype = recvtype, .op = MPI_OP_NULL,
                        .root = -1, .comm = comm};
    rank_state *st = ours(comm);
    int size = 0, count;
    if (st == NULL || PMPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return library_call(&a);
    const long long most = type_bytes(recvtype, largest(recvcounts, size));
    if (!st->rules.has_collective[COLLSIM_ALLGATHER])
        return passed_on(st, COLLSIM_ALLGATHER, &a, most, NULL);
    if (!even_blocks(recvcounts, displs, size, &count))
        return passed_on(st, COLLSIM_ALLGATHER, &a, most, "uneven blocks");
    mpi_args plain = a;
    plain.recvcount = count;
    call_info c = {.collective = COLLSIM_ALLGATHER, .function = a.function, .comm = comm,
                   .root = -1};
    block_args b = {sendbuf, sendcount, sendtype, recvbuf, count, recvtype};
    if (sendbuf == MPI_IN_PLACE)
        b.sendcount = count, b.sendtype = recvtype;
    return intercept(st, &c, &plain, b, b.sendcount, b.sendtype);
}

int MPI_Alltoallv(const void *sendbuf, const int *sendcounts, const int *sdispls,
                  MPI_Datatype sendtype, void *recvbuf, const int *recvcounts, const int *rdispls,
                  MPI_Datatype recvtype, MPI_Comm comm)
{
    const mpi_args a = {.function = F_ALLTOALLV, .sendbuf = sendbuf, .sendcounts = sendcounts,
                        .sdispls = sdispls, .sendtype = sendtype, .recvbuf = recvbuf,
                        .recvcounts = recvcounts, .rdispls = rdispls, .recvtype = recvtype,
                        .op = MPI_OP_NULL, .root = -1, .comm = comm};
    rank_state *st = ours(comm);
    int size = 0, scount = 0, rcount, even, rc;
    if (st == NULL || PMPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return library_call(&a);
    const long long most = type_bytes(recvtype, largest(recvcounts, size));
    if (!st->rules.has_collective[COLLSIM_ALLTOALL])
        return passed_on(st, COLLSIM_ALLTOALL, &a, most, NULL);
    even = even_blocks(recvcounts, rdispls, size, &rcount) &&
           (sendbuf == MPI_IN_PLACE || even_blocks(sendcounts, sdispls, size, &scount));
    if ((rc = agree(even, -1, comm, &even)) != MPI_SUCCESS)
        return rc;
    if (!even)
        return passed_on(st, COLLSIM_ALLTOALL, &a, most, "uneven blocks");
    call_info c = {.collective = COLLSIM_ALLTOALL, .function = a.function, .comm = comm,
                   .root = -1};
    block_args b = {sendbuf, scount, sendtype, recvbuf, rcount, recvtype};
    if (sendbuf == MPI_IN_PLACE)
        b.sendcount = rcount, b.sendtype = recvtype;
    mpi_args plain = a;
    plain.recvcount = rcount;
    return intercept(st, &c, &plain, b, b.sendcount, b.sendtype);
}

/* MPI_Gatherv and MPI_Scatterv: the root's side (its receive side for a
 * gather, its send side for a scatter) is a vector of counts and
 * displacements, every other side one block.  Intercepted as MPI_Gather /
 * MPI_Scatter when the root's blocks are even (all ranks agree on it), else
 * handed to the library. */
static int rooted_vector_call(const mpi_args *a, collsim_collective collective)
{
    const int gathers = collective == COLLSIM_GATHER;
    /* the root's vector side, and every rank's own block */
    const int *counts = gathers ? a->recvcounts : a->sendcounts;
    const int *displs = gathers ? a->rdispls : a->sdispls;
    const MPI_Datatype vector_type = gathers ? a->recvtype : a->sendtype;
    const int own_count = gathers ? a->sendcount : a->recvcount;
    const MPI_Datatype own_type = gathers ? a->sendtype : a->recvtype;
    const void *own_buf = gathers ? a->sendbuf : a->recvbuf; /* MPI_IN_PLACE at the root */
    rank_state *st = ours(a->comm);
    int size = 0, rank = 0, count = 0, even = 1, rc;
    if (st == NULL || !valid_root(a->comm, a->root) ||
        PMPI_Comm_size(a->comm, &size) != MPI_SUCCESS ||
        PMPI_Comm_rank(a->comm, &rank) != MPI_SUCCESS)
        return library_call(a);
    const int is_root = rank == a->root;
    const long long most = is_root ? type_bytes(vector_type, largest(counts, size))
                                   : type_bytes(own_type, own_count);
    if (!st->rules.has_collective[collective])
        return passed_on(st, collective, a, most, NULL);
    if (is_root)
        even = even_blocks(counts, displs, size, &count);
    if ((rc = agree(even, a->root, a->comm, &even)) != MPI_SUCCESS)
        return rc;
    if (!even)
        return passed_on(st, collective, a, most, "uneven blocks");
    mpi_args plain = *a;
    *(gathers ? &plain.recvcount : &plain.sendcount) = count;
    call_info c = {.collective = collective, .function = a->function, .comm = a->comm,
                   .root = a->root};
    block_args b = {a->sendbuf, a->sendcount, a->sendtype, a->recvbuf, a->recvcount, a->recvtype};
    int *vector_count = gathers ? &b.recvcount : &b.sendcount;
    MPI_Datatype *vector_side_type = gathers ? &b.recvtype : &b.sendtype;
    *vector_count = count;
    if (!is_root) {
        /* a leaf's vector side is unused: its block as the root reads it */
        *vector_count = own_count, *vector_side_type = own_type, count = own_count;
    } else if (own_buf == MPI_IN_PLACE) {
        *(gathers ? &b.sendcount : &b.recvcount) = count;
        *(gathers ? &b.sendtype : &b.recvtype) = vector_type;
    }
    return intercept(st, &c, &plain, b, count, is_root ? vector_type : own_type);
}

int MPI_Gatherv(const void *sendbuf, int sendcount, MPI_Datatype sendtype, void *recvbuf,
                const int *recvcounts, const int *displs, MPI_Datatype recvtype, int root,
                MPI_Comm comm)
{
    const mpi_args a = {.function = F_GATHERV, .sendbuf = sendbuf, .sendcount = sendcount,
                        .sendtype = sendtype, .recvbuf = recvbuf, .recvcounts = recvcounts,
                        .rdispls = displs, .recvtype = recvtype, .op = MPI_OP_NULL,
                        .root = root, .comm = comm};
    return rooted_vector_call(&a, COLLSIM_GATHER);
}

int MPI_Scatterv(const void *sendbuf, const int *sendcounts, const int *displs,
                 MPI_Datatype sendtype, void *recvbuf, int recvcount, MPI_Datatype recvtype,
                 int root, MPI_Comm comm)
{
    const mpi_args a = {.function = F_SCATTERV, .sendbuf = sendbuf, .sendcounts = sendcounts,
                        .sdispls = displs, .sendtype = sendtype, .recvbuf = recvbuf,
                        .recvcount = recvcount, .recvtype = recvtype, .op = MPI_OP_NULL,
                        .root = root, .comm = comm};
    return rooted_vector_call(&a, COLLSIM_SCATTER);
}

int MPI_Reduce_scatter(const void *sendbuf, void *recvbuf, const int *recvcounts,
                       MPI_Datatype datatype, MPI_Op op, MPI_Comm comm)
{
    const mpi_args a = {.function = F_REDUCE_SCATTER, .sendbuf = sendbuf, .recvbuf = recvbuf,
                        .recvcounts = recvcounts, .recvtype = datatype, .op = op, .root = -1,
                        .comm = comm};
    rank_state *st = ours(comm);
    int size = 0, count;
    if (st == NULL || PMPI_Comm_size(comm, &size) != MPI_SUCCESS)
        return library_call(&a);
    const long long most = type_bytes(datatype, largest(recvcounts, size));
    if (!st->rules.has_collective[COLLSIM_REDUCE_SCATTER])
        return passed_on(st, COLLSIM_REDUCE_SCATTER, &a, most, NULL);
    if (!even_blocks(recvcounts, NULL, size, &count))
        return passed_on(st, COLLSIM_REDUCE_SCATTER, &a, most, "uneven blocks");
    call_info c = {.collective = COLLSIM_REDUCE_SCATTER, .function = a.function, .comm = comm,
                   .root = -1};
    const block_args b = {sendbuf, count, datatype, recvbuf, count, datatype};
    collsim_native_library library;
    {
        int rc = prepare(st, &c, count, datatype, op, &b);
        if (rc != MPI_SUCCESS)
            return rc;
        if (c.rule->algorithm != NULL &&
            collsim_native_selector_library(c.rule->algorithm, &library) == 0 &&
            library == COLLSIM_NATIVE_OPENMPI)
            return refuse(st, &c, MPI_ERR_ARG,
                          "decides as MPI_Reduce_scatter_block; Open MPI decides "
                          "MPI_Reduce_scatter by another table, which collsim does not model");
    }
    mpi_args plain = a;
    plain.recvcount = count;
    return intercept(st, &c, &plain, b, count, datatype);
}

int MPI_Alltoallw(const void *sendbuf, const int sendcounts[], const int sdispls[],
                  const MPI_Datatype sendtypes[], void *recvbuf, const int recvcounts[],
                  const int rdispls[], const MPI_Datatype recvtypes[], MPI_Comm comm)
{
    const mpi_args a = {.function = F_ALLTOALLW, .sendbuf = sendbuf, .sendcounts = sendcounts,
                        .sdispls = sdispls, .sendtypes = sendtypes, .recvbuf = recvbuf,
                        .recvcounts = recvcounts, .rdispls = rdispls, .recvtypes = recvtypes,
                        .op = MPI_OP_NULL, .root = -1, .comm = comm};
    rank_state *st = ours(comm);
    int size = 0;
    long long bytes = 0;
    if (st != NULL && PMPI_Comm_size(comm, &size) == MPI_SUCCESS)
        for (int i = 0; i < size; i++) {
            const long long b = type_bytes(recvtypes[i], recvcounts[i]);
            bytes = b > bytes ? b : bytes;
        }
    return passed_on(st, COLLSIM_ALLTOALL, &a, bytes, "one datatype per pair");
}

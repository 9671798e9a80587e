/*
 * collbench: runs one collective algorithm from the registry, times it on the
 * (simulated) clock, checks its result, and prints one JSON object per
 * measurement on rank 0's stdout.
 *
 * Timing: before every measurement all ranks are released at the same
 * instant (under SMPI a SimGrid barrier, which takes no simulated time, at an
 * instant chosen so that the measurement does not depend on what ran before
 * it: sync_start; under a real MPI an MPI_Barrier, which is only
 * approximately simultaneous); the reported time is max over ranks of the end
 * minus min over ranks of the start.  With SMPI's host-code timing off, that
 * time does not depend on the machine running the simulation, so one
 * repetition is enough.
 */
#include "check.h"
#include "clocksync.h"
#include "collsim.h"
#include "common/hier.h"
#include "common/native.h"
#include "common/tree.h"
#include "datagen.h"
#include "exactsum.h"
#include "options.h"
#include "progress.h"

#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef COLLSIM_SMPI
#include <simgrid/actor.h>
#include <simgrid/barrier.h>
#include <simgrid/engine.h>
#include <simgrid/version.h>
#endif

#ifndef COLLSIM_VERSION
#define COLLSIM_VERSION "unknown"
#endif

enum { EXIT_OK = 0, EXIT_WRONG = 1, EXIT_BAD_INPUT = 2, EXIT_MPI_ERROR = 3 };

/* Under SMPI every rank runs on its own stack, and each stack page a rank
 * ever touches stays resident: at 16384 ranks one page per rank is 64 MB.
 * The deepest point of a rank is main's frame plus the deepest call below
 * it, so main keeps only what every rank needs all along; the phases with
 * large locals (parsing and validation with their error texts, the modes
 * rank 0 answers alone) get their own frames, popped before the
 * measurement, instead of being inlined into main's. */
#define OWN_FRAME __attribute__((noinline))

/* Releases all ranks of world at one instant.  Under SMPI every rank is an
 * actor of one process: a SimGrid barrier (no simulated time) releases them,
 * and the harness's own bookkeeping (each rank's start and end, failures,
 * result buffers for the check) goes through memory shared by the ranks, not
 * through messages, so that it takes no simulated time either: a measurement
 * then starts at the same simulated instant whether or not the previous one
 * was checked, and --timing-only gives the checked run's times to the bit.
 * Under a real MPI, an MPI_Barrier and messages. */
typedef struct sync_point {
#ifdef COLLSIM_SMPI
    sg_bar_t barrier;
    struct shared_state *shared;
#else
    int unused;
#endif
} sync_point;

#ifdef COLLSIM_SMPI
typedef struct shared_state {
    double *start_s, *end_s; /* per rank */
    int *failed;             /* per rank */
    const void **result;     /* per rank: its result buffer */
    int any_failed;          /* rank 0's reading of failed[], read by all */
    int status;              /* rank 0's verdict, read by all */
} shared_state;
#endif

static int sync_init(sync_point *sp, MPI_Comm world)
{
#ifdef COLLSIM_SMPI
    int rank, size;
    uint64_t handles[2] = {0, 0};
    MPI_Comm_rank(world, &rank);
    MPI_Comm_size(world, &size);
    /* rank 0 creates the barrier and the shared state and hands their
     * addresses to the others */
    if (rank == 0) {
        shared_state *sh = calloc(1, sizeof *sh);
        if (sh != NULL) {
            sh->start_s = calloc((size_t)size, sizeof *sh->start_s);
            sh->end_s = calloc((size_t)size, sizeof *sh->end_s);
            sh->failed = calloc((size_t)size, sizeof *sh->failed);
            sh->result = calloc((size_t)size, sizeof *sh->result);
            if (!sh->start_s || !sh->end_s || !sh->failed || !sh->result) {
                free(sh->start_s);
                free(sh->end_s);
                free(sh->failed);
                free(sh->result);
                free(sh);
                sh = NULL;
            }
        }
        handles[0] = (uint64_t)(uintptr_t)sg_barrier_init((unsigned)size);
        handles[1] = (uint64_t)(uintptr_t)sh;
    }
    MPI_Bcast(handles, 2, MPI_UINT64_T, 0, world);
    sp->barrier = (sg_bar_t)(uintptr_t)handles[0];
    sp->shared = (shared_state *)(uintptr_t)handles[1];
    return sp->shared != NULL ? MPI_SUCCESS : MPI_ERR_NO_MEM;
#else
    (void)world;
    sp->unused = 0;
    return MPI_SUCCESS;
#endif
}

static void sync_wait(sync_point *sp, MPI_Comm world)
{
#ifdef COLLSIM_SMPI
    (void)world;
    sg_barrier_wait(sp->barrier);
#else
    (void)sp;
    MPI_Barrier(world);
#endif
}

#ifdef COLLSIM_SMPI
/* Where a measurement starts on SimGrid's clock.  SimGrid keeps one absolute
 * clock in a double and rounds every event's date to it (date = now +
 * duration), so the same measurement started at another instant is rounded
 * differently; where ranks share links under eager sends with per-message
 * overheads, the difference grows through the schedule.  Seed 003's dual-root
 * allreduce of 32 MiB on 288 ranks took 69.49 ms from the start, 70.02 ms
 * after a 4-byte allreduce, and 69.69 ms and 69.83 ms after an idle sleep to
 * t = 1 ms and 1 s: not traffic left in flight (every message a call sends
 * is received within it, so the network is idle once all ranks have
 * returned) but the start instant.
 *
 * Between 2^k and 2^(k+1) seconds the doubles are evenly spaced, u = 2^(k-52)
 * apart; shifting a measurement by a multiple of 2u within that range shifts
 * every date it computes by the same amount and rounds nothing differently.
 * So every measurement (and every repetition) starts at a multiple of
 * START_QUANTUM_S, FIRST_START_S or later: a measurement alone and the same
 * one after others are the same to the bit while the command's clock stays
 * below 2 FIRST_START_S, that is for 0.5 s of simulated time (beyond, the
 * grid is twice as coarse, and a cell there matches its time alone only up
 * to rounding).  The price is the grid's: from 0.5 s on dates are 1.1e-16 s
 * apart, which puts a 0.3 us one-way message 6e-10 of its time off its
 * model (from t = 1 s, 1.4e-9); a later first start would cost more. */
#define FIRST_START_S 0.5
#define START_QUANTUM_S 0x1p-20 /* about a microsecond: 2u up to 2^31 s */
#define START_MIN_WAIT_S 1e-9   /* SimGrid lengthens a sleep under its precision */

/* The first instant at which a measurement may start after now_s. */
static double measurement_start_s(double now_s)
{
    double t = now_s + START_MIN_WAIT_S;
    if (t < FIRST_START_S)
        t = FIRST_START_S;
    return ceil(t / START_QUANTUM_S) * START_QUANTUM_S;
}
#endif

/* Releases all ranks of world for a timed call.  Under SMPI: once every rank
 * has returned from the previous call (every message sent in it has then
 * been received, so the network is idle), all sleep to the next start
 * instant (measurement_start_s) and are released there together.  Under a
 * real MPI, an MPI_Barrier. */
static void sync_start(sync_point *sp, MPI_Comm world)
{
#ifdef COLLSIM_SMPI
    sync_wait(sp, world);
    /* Every rank reads the same clock here and sleeps as long: they wake
     * together.  The loop: a sleep from below FIRST_START_S / 2 may end a
     * rounding short of FIRST_START_S, in the range below. */
    for (;;) {
        const double now_s = simgrid_get_clock();
        if (now_s >= FIRST_START_S && now_s == ceil(now_s / START_QUANTUM_S) * START_QUANTUM_S)
            break;
        sg_actor_sleep_for(measurement_start_s(now_s) - now_s);
    }
    sync_wait(sp, world);
#else
    sync_wait(sp, world);
#endif
}

static void sync_destroy(sync_point *sp, MPI_Comm world)
{
#ifdef COLLSIM_SMPI
    int rank;
    sync_wait(sp, world);
    MPI_Comm_rank(world, &rank);
    if (rank == 0) {
        sg_barrier_destroy(sp->barrier);
        if (sp->shared != NULL) {
            free(sp->shared->start_s);
            free(sp->shared->end_s);
            free(sp->shared->failed);
            free(sp->shared->result);
            free(sp->shared);
        }
    }
#else
    (void)sp;
    (void)world;
#endif
}

/* After a measurement: whether any rank failed, and on rank 0 the earliest
 * start and the latest end over the ranks. */
static void gather_times(sync_point *sp, MPI_Comm world, int rank, int failed, double start,
                         double end, const void *result, int *any_failed, double *start_min,
                         double *end_max)
{
#ifdef COLLSIM_SMPI
    shared_state *sh = sp->shared;
    sh->start_s[rank] = start;
    sh->end_s[rank] = end;
    sh->failed[rank] = failed;
    sh->result[rank] = result;
    sync_wait(sp, world);
    if (rank == 0) {
        int size;
        MPI_Comm_size(world, &size);
        sh->any_failed = 0;
        *start_min = sh->start_s[0];
        *end_max = sh->end_s[0];
        for (int r = 0; r < size; r++) {
            sh->any_failed |= sh->failed[r];
            if (sh->start_s[r] < *start_min)
                *start_min = sh->start_s[r];
            if (sh->end_s[r] > *end_max)
                *end_max = sh->end_s[r];
        }
    }
    /* O(p) work on rank 0 only, then every rank reads the failure flag; the
     * next write to sh->any_failed is behind share_status's barriers */
    sync_wait(sp, world);
    *any_failed = sh->any_failed;
#else
    (void)sp;
    (void)result;
    MPI_Allreduce(&failed, any_failed, 1, MPI_INT, MPI_MAX, world);
    if (*any_failed)
        return;
    /* each process's MPI_Wtime has its own zero (Open MPI): on rank 0's clock */
    collsim_clock_sync_once(world);
    start = collsim_clock_global(start);
    end = collsim_clock_global(end);
    MPI_Reduce(&start, start_min, 1, MPI_DOUBLE, MPI_MIN, 0, world);
    MPI_Reduce(&end, end_max, 1, MPI_DOUBLE, MPI_MAX, 0, world);
    (void)rank;
#endif
}

/* Rank 0's verdict to every rank. */
static int share_status(sync_point *sp, MPI_Comm world, int rank, int status)
{
#ifdef COLLSIM_SMPI
    if (rank == 0)
        sp->shared->status = status;
    sync_wait(sp, world);
    status = sp->shared->status;
    /* nobody may go on (and overwrite the shared state, or free a result
     * rank 0 still reads) before every rank has read the verdict */
    sync_wait(sp, world);
    return status;
#else
    (void)sp;
    (void)rank;
    MPI_Bcast(&status, 1, MPI_INT, 0, world);
    return status;
#endif
}

/* The result buffers of all ranks, for a check without messages (SMPI). */
static const void *const *shared_results(const sync_point *sp)
{
#ifdef COLLSIM_SMPI
    return sp->shared->result;
#else
    (void)sp;
    return NULL;
#endif
}

static void library_version(char *buf, size_t len)
{
#ifdef COLLSIM_SMPI
    int major, minor, patch;
    sg_version_get(&major, &minor, &patch);
    snprintf(buf, len, "SimGrid %d.%d.%d", major, minor, patch);
#else
    char version[MPI_MAX_LIBRARY_VERSION_STRING];
    int vlen = 0;
    MPI_Get_library_version(version, &vlen);
    version[vlen < MPI_MAX_LIBRARY_VERSION_STRING ? vlen : MPI_MAX_LIBRARY_VERSION_STRING - 1] = 0;
    char *newline = strchr(version, '\n');
    if (newline)
        *newline = 0;
    for (char *c = version; *c; c++)
        if (*c == '"' || *c == '\\' || (unsigned char)*c < 0x20)
            *c = ' ';
    /* copied by hand: the library string is longer than buf may hold */
    size_t n = strlen(version);
    if (n >= len)
        n = len - 1;
    memcpy(buf, version, n);
    buf[n] = '\0';
#endif
}

/* gamma from the command line, else from the platform's host property. */
static double resolve_gamma(double given_s_per_byte)
{
    return given_s_per_byte >= 0.0 ? given_s_per_byte : collsim_platform_gamma_s_per_byte();
}

/* --list: the registry; with json, one JSON object per entry holding what
 * the C side decides and the Python side reads instead of deciding again:
 * the restrictions (names, and under "requires" the requirement each sets
 * with the sentence a violation gets), the parameters read (and under
 * "takes_no" the sentence for each other one), and a composite algorithm's
 * default inner and outer algorithms.  The datatypes, ops and distributions
 * follow on a line of their own (datagen_print_catalog_json). */
/* One name (and sentence) of a flag, for print_flags. */
typedef struct flag_text {
    unsigned flag;
    const char *name, *sentence;
} flag_text;

/* Prints the items of texts whose flag is in flags, comma-separated: as
 * ["name", ...] or, with sentences, as {"name": "sentence", ...}. */
static void print_flags(const flag_text *texts, size_t n, unsigned flags, int sentences)
{
    const char *sep = "";
    putchar(sentences ? '{' : '[');
    for (size_t k = 0; k < n; k++) {
        if (!(flags & texts[k].flag))
            continue;
        printf("%s\"%s\"", sep, texts[k].name);
        if (sentences)
            printf(": \"%s\"", texts[k].sentence);
        sep = ", ";
    }
    putchar(sentences ? '}' : ']');
}

static void print_registry(int json)
{
    size_t n, nrules, nkinds;
    const collsim_algorithm *reg = collsim_registry(&n);
    const collsim_restriction *rules = collsim_restrictions(&nrules);
    const collsim_parameter *kinds = collsim_parameters(&nkinds);
    /* a flag is one bit of an unsigned: at most 32 of each */
    flag_text restriction_names[32], requirements[32], parameters[32];
    for (size_t k = 0; k < nrules && k < 32; k++) {
        restriction_names[k] = (flag_text){rules[k].flag, rules[k].name, NULL};
        requirements[k] = (flag_text){rules[k].flag, rules[k].requirement, rules[k].sentence};
    }
    for (size_t k = 0; k < nkinds && k < 32; k++)
        parameters[k] = (flag_text){kinds[k].flag, kinds[k].name, kinds[k].sentence};
    for (size_t i = 0; i < n; i++) {
        const collsim_algorithm *a = &reg[i];
        if (!json) {
            printf("%-10s %-20s %s\n", a->collective_name, a->name, a->summary);
            continue;
        }
        printf("{\"collective\": \"%s\", \"algorithm\": \"%s\", \"restrictions\": ",
               a->collective_name, a->name);
        print_flags(restriction_names, nrules, a->restrictions, 0);
        printf(", \"requires\": ");
        print_flags(requirements, nrules, a->restrictions, 1);
        printf(", \"parameters\": ");
        print_flags(parameters, nkinds, a->parameters, 0);
        printf(", \"takes_no\": ");
        print_flags(parameters, nkinds, ~a->parameters, 1);
        /* what 0 stands for, for the parameters read that have one value */
        printf(", \"parameter_defaults\": {");
        const char *sep = "";
        for (size_t k = 0; k < nkinds; k++)
            if ((a->parameters & kinds[k].flag) && kinds[k].default_value >= 0) {
                printf("%s\"%s\": %d", sep, kinds[k].name, kinds[k].default_value);
                sep = ", ";
            }
        printf("}, ");
        /* the defaults, and which level follows the other when one is given:
         * collsim_composite_names asked with one level set to a marker */
        static const char marker[] = "?";
        const collsim_params none = {0};
        const collsim_params only_inner = {.inner_algorithm = marker};
        const collsim_params only_outer = {.outer_algorithm = marker};
        const char *inner, *outer, *inner_given, *outer_follows, *inner_follows, *outer_given;
        if (collsim_composite_names(a, &none, &inner, &outer) == 0) {
            collsim_composite_names(a, &only_inner, &inner_given, &outer_follows);
            collsim_composite_names(a, &only_outer, &inner_follows, &outer_given);
            printf("\"defaults\": {\"inner_algorithm\": \"%s\", \"outer_algorithm\": \"%s\", "
                   "\"outer_from_inner\": %s, \"inner_from_outer\": %s}, ",
                   inner, outer, outer_follows == marker ? "true" : "false",
                   inner_follows == marker ? "true" : "false");
        }
        printf("\"summary\": \"%s\"}\n", a->summary);
    }
}

/* --list --json's last line: the parameter table (algorithms/params.def) as
 * {"parameters": [...]}, one object per parameter with its name (the
 * collsim_params field), option, type, unit, the noun of its errors, the
 * range of a given value (null: none), its group (null: a harness hint),
 * whether the group's parameters are alternatives (at most one given) and
 * its help line, for the Python side to build its options, checks and keys
 * from. */
static void print_parameters(void)
{
    static const char *const type_names[] = {[COLLSIM_PARAMETER_BYTES] = "bytes",
                                             [COLLSIM_PARAMETER_INT] = "int",
                                             [COLLSIM_PARAMETER_NAME] = "name",
                                             [COLLSIM_PARAMETER_BOOL] = "bool",
                                             [COLLSIM_PARAMETER_REAL] = "real"};
    size_t ngroups;
    const collsim_parameter *groups = collsim_parameters(&ngroups);
    const collsim_parameter_spec *specs = collsim_parameter_specs();
    printf("{\"parameters\": [");
    for (size_t i = 0; i < COLLSIM_PARAMETER_COUNT; i++) {
        const collsim_parameter_spec *p = &specs[i];
        const char *group = NULL, *one_of = NULL;
        for (size_t g = 0; g < ngroups; g++)
            if (groups[g].flag == p->group) {
                group = groups[g].name;
                one_of = groups[g].one_of;
            }
        printf("%s{\"name\": \"%s\", \"option\": \"--%s\", \"type\": \"%s\", "
               "\"unit\": \"%s\", \"what\": \"%s\", ",
               i ? ", " : "", p->name, p->option, type_names[p->type], p->unit, p->what);
        if (p->type == COLLSIM_PARAMETER_NAME)
            printf("\"min\": null, \"max\": null, ");
        else if (p->type == COLLSIM_PARAMETER_REAL)
            printf("\"min\": %lld, \"max\": null, ", p->min);
        else
            printf("\"min\": %lld, \"max\": %lld, ", p->min, p->max);
        if (group == NULL)
            printf("\"group\": null, \"exclusive\": false, ");
        else
            printf("\"group\": \"%s\", \"exclusive\": %s, ", group,
                   one_of != NULL ? "true" : "false");
        printf("\"help\": \"%s\"}", p->help);
    }
    printf("]}\n");
}

/* --list --json's line of collectives (algorithms/collectives.def):
 * {"collectives": [...]}, one object per collective with its name, whether it
 * takes an op and a root, its send and receive buffers' blocks, which ranks
 * hold a result, its MPI function and its summary. */
static void print_collectives(void)
{
    static const char *const block_names[] = {
        [COLLSIM_BLOCKS_NONE] = "none", [COLLSIM_BLOCKS_ONE] = "one",
        [COLLSIM_BLOCKS_ONE_AT_ROOT] = "one_at_root", [COLLSIM_BLOCKS_ALL] = "all",
        [COLLSIM_BLOCKS_ALL_AT_ROOT] = "all_at_root"};
    static const char *const holder_names[] = {[COLLSIM_HOLDERS_EVERY] = "every",
                                               [COLLSIM_HOLDERS_ROOT] = "root",
                                               [COLLSIM_HOLDERS_NOT_FIRST] = "not_first"};
    size_t n;
    const collsim_collective_info *info = collsim_collectives(&n);
    printf("{\"collectives\": [");
    for (size_t i = 0; i < n; i++)
        printf("%s{\"name\": \"%s\", \"op\": %s, \"root\": %s, \"send_blocks\": \"%s\", "
               "\"recv_blocks\": \"%s\", \"holders\": \"%s\", \"mpi\": \"%s\", "
               "\"summary\": \"%s\"}",
               i ? ", " : "", info[i].name, info[i].has_op ? "true" : "false",
               info[i].has_root ? "true" : "false", block_names[info[i].send_blocks],
               block_names[info[i].recv_blocks], holder_names[info[i].holders], info[i].mpi,
               info[i].summary);
    printf("]}\n");
}

/* Prints one tree as a JSON object: its kind, np, root and, per rank, the
 * parent (-1 at a root), the children in order, and the depth; a chain with
 * --chain-fanout's fan-out.  Returns an exit status. */
static int dump_tree(const options *opt)
{
    const int kind = collsim_tree_kind_from_name(opt->tree_kind);
    const int root = opt->roots[0];
    if (kind < 0) {
        fprintf(stderr, "collbench: error: unknown tree kind '%s' (binomial, binary, "
                        "in_order_binary, chain, dual_postorder)\n", opt->tree_kind);
        return EXIT_BAD_INPUT;
    }
    if (opt->params.chain_fanout && kind != COLLSIM_TREE_CHAIN) {
        fprintf(stderr, "collbench: error: --chain-fanout shapes the chain tree only\n");
        return EXIT_BAD_INPUT;
    }
    if (opt->nroots != 1 || root < 0 || root >= opt->tree_np) {
        fprintf(stderr, "collbench: error: --dump-tree takes one root in [0, %d)\n",
                opt->tree_np);
        return EXIT_BAD_INPUT;
    }
    printf("{\"tree\": \"%s\", \"np\": %d, \"root\": %d, \"nodes\": [",
           collsim_tree_kind_name((collsim_tree_kind)kind), opt->tree_np, root);
    for (int rank = 0; rank < opt->tree_np; rank++) {
        collsim_tree_node node;
        const int built =
            kind == COLLSIM_TREE_CHAIN
                ? collsim_tree_build_chain(rank, opt->tree_np, root,
                                           collsim_chain_fanout(&opt->params), &node)
                : collsim_tree_build((collsim_tree_kind)kind, rank, opt->tree_np, root, &node);
        if (built != 0)
            return EXIT_BAD_INPUT;
        printf("%s{\"rank\": %d, \"parent\": %d, \"depth\": %d, \"height\": %d, "
               "\"children\": [", rank ? ", " : "", rank, node.parent, node.depth, node.height);
        for (int c = 0; c < node.nchildren; c++)
            printf("%s%d", c ? ", " : "", node.children[c]);
        printf("]}");
    }
    printf("]}\n");
    return EXIT_OK;
}

/* Runs alg once on the prepared buffers: count elements of dt in each block
 * (collectives.def), the same datatype on both sides. */
static int call_algorithm(const collsim_algorithm *alg, const void *sendbuf, void *recvbuf,
                          int count, MPI_Datatype dt, MPI_Op op, int root, MPI_Comm comm,
                          const collsim_params *params)
{
    switch (alg->collective) {
    case COLLSIM_ALLREDUCE:
        return alg->fn.allreduce(sendbuf, recvbuf, count, dt, op, comm, params);
    case COLLSIM_REDUCE:
        return alg->fn.reduce(sendbuf, recvbuf, count, dt, op, root, comm, params);
    case COLLSIM_BCAST:
        return alg->fn.bcast(recvbuf, count, dt, root, comm, params);
    case COLLSIM_ALLGATHER:
        return alg->fn.allgather(sendbuf, count, dt, recvbuf, count, dt, comm, params);
    case COLLSIM_REDUCE_SCATTER:
        return alg->fn.reduce_scatter(sendbuf, recvbuf, count, dt, op, comm, params);
    case COLLSIM_ALLTOALL:
        return alg->fn.alltoall(sendbuf, count, dt, recvbuf, count, dt, comm, params);
    case COLLSIM_GATHER:
        return alg->fn.gather(sendbuf, count, dt, recvbuf, count, dt, root, comm, params);
    case COLLSIM_SCATTER:
        return alg->fn.scatter(sendbuf, count, dt, recvbuf, count, dt, root, comm, params);
    case COLLSIM_BARRIER:
        return alg->fn.barrier(comm, params);
    case COLLSIM_SCAN:
        return alg->fn.scan(sendbuf, recvbuf, count, dt, op, comm, params);
    case COLLSIM_EXSCAN:
        return alg->fn.exscan(sendbuf, recvbuf, count, dt, op, comm, params);
    default:
        return MPI_ERR_OTHER;
    }
}

/* The collectives.def line of alg's collective. */
static const collsim_collective_info *collective_of(const collsim_algorithm *alg)
{
    size_t n;
    return &collsim_collectives(&n)[alg->collective];
}

typedef struct run_context {
    const options *opt;
    const collsim_algorithm *alg;
    collsim_params *params; /* the command line's, finished by set_params */
    MPI_Comm world;     /* harness traffic: checks, timing reductions */
    MPI_Comm coll_comm; /* the algorithm's own communicator */
    sync_point sync;
    check_cache *references; /* rank 0's references, reused across roots (NULL
                              * elsewhere, and without a check) */
    int rank, size;
    char library[256];
    /* a composite algorithm's levels and group count as it resolves them
     * (NULL, 0: not composite), echoed in every row under "resolved" */
    const char *inner_algorithm, *outer_algorithm;
    int group_count;
    progress watcher; /* rank 0's progress reporter */
    char **environment_args; /* the command line from $COLLBENCH_ARGS (NULL: argv's) */
} run_context;

/* Prints "key": number, or "key": null for an infinite number (no bound). */
static void print_json_number_or_null(const char *key, double value)
{
    if (isinf(value) || isnan(value))
        printf("\"%s\": null, ", key);
    else
        printf("\"%s\": %.6g, ", key, value);
}

/* Prints "key": "value", or "key": null; value is a registry-style name
 * (checked to hold only [a-z0-9_] before anything runs). */
static void print_json_string_or_null(const char *key, const char *value)
{
    if (value == NULL)
        printf("\"%s\": null, ", key);
    else
        printf("\"%s\": \"%s\", ", key, value);
}

/* The call a selector sees for one case (ops other than first_nonzero are
 * predefined and commutative in collbench). */
static collsim_native_call native_call(const collsim_algorithm *alg, int comm_size, long long count,
                                       dtype_id dtype, op_id op)
{
    collsim_native_call call = {.collective = alg->collective,
                                .comm_size = comm_size,
                                .count = count,
                                .type_size_bytes = dtype_size(dtype),
                                .commutative = !collective_of(alg)->has_op || op != OP_FIRST_NONZERO,
                                .builtin_op = !collective_of(alg)->has_op || op != OP_FIRST_NONZERO};
    return call;
}

/* For a selector: "selected": the registry entry it runs, and the library's
 * name and id of the algorithm. */
static void print_selection(const run_context *ctx, const check_case *c)
{
    collsim_native_library library;
    if (collsim_native_selector_library(ctx->alg, &library) != 0)
        return;
    const collsim_native_call call = native_call(ctx->alg, ctx->size, c->count, c->dtype, c->op);
    const collsim_native_entry *e = collsim_native_choose(library, &call);
    char buf[256];
    print_json_string_or_null("selected", collsim_native_selected(library, &call, buf, sizeof buf));
    printf("\"native_algorithm\": \"%s\", \"native_id\": %d, ", e->library_name, e->id);
}

/* A row's "params": gamma, then every parameter of algorithms/params.def in
 * its order (a flag only when set, so that the rows of other runs do not
 * grow). */
static void print_params(const collsim_params *params)
{
    printf("{\"gamma_s_per_byte\": %.17g", params->gamma_s_per_byte);
    const collsim_parameter_spec *specs = collsim_parameter_specs();
    for (size_t i = 0; i < COLLSIM_PARAMETER_COUNT; i++) {
        const collsim_parameter_spec *p = &specs[i];
        const void *v = (const char *)params + p->offset;
        switch (p->type) {
        case COLLSIM_PARAMETER_BYTES:
            printf(", \"%s\": %zu", p->name, *(const size_t *)v);
            break;
        case COLLSIM_PARAMETER_INT:
            printf(", \"%s\": %d", p->name, *(const int *)v);
            break;
        case COLLSIM_PARAMETER_REAL:
            printf(", \"%s\": %.17g", p->name, *(const double *)v);
            break;
        case COLLSIM_PARAMETER_NAME: /* checked to hold only [a-z0-9_] before anything runs */
            if (*(const char *const *)v == NULL)
                printf(", \"%s\": null", p->name);
            else
                printf(", \"%s\": \"%s\"", p->name, *(const char *const *)v);
            break;
        case COLLSIM_PARAMETER_BOOL:
            if (*(const int *)v)
                printf(", \"%s\": true", p->name);
            break;
        }
    }
    putchar('}');
}

static OWN_FRAME void print_row(const run_context *ctx, const check_case *c, long long bytes, int rep,
                      double time_s, const check_result *res)
{
    const options *opt = ctx->opt;
    const collsim_params *params = ctx->params;
    printf("{\"collective\": \"%s\", \"algorithm\": \"%s\", \"params\": ",
           ctx->alg->collective_name, ctx->alg->name);
    print_params(params);
    printf(", ");
    if (ctx->inner_algorithm != NULL) {
        printf("\"resolved\": {");
        if (ctx->group_count > 0)
            printf("\"group_count\": %d, ", ctx->group_count);
        printf("\"inner_algorithm\": \"%s\", \"outer_algorithm\": \"%s\"}, ",
               ctx->inner_algorithm, ctx->outer_algorithm);
    }
    printf("\"np\": %d, \"contributors\": %d, \"bytes\": %lld, "
           "\"count\": %d, \"dtype\": \"%s\", ",
           ctx->size, c->contributors, bytes, c->count,
           dtype_names[c->dtype]);
    if (!collective_of(ctx->alg)->has_op)
        printf("\"op\": null, ");
    else
        printf("\"op\": \"%s\", ", op_names[c->op]);
    if (!collective_of(ctx->alg)->has_root)
        printf("\"root\": null, ");
    else
        printf("\"root\": %d, ", c->root);
    print_selection(ctx, c);
    printf("\"seed\": %" PRIu64 ", \"dist\": \"%s\", \"rep\": %d, \"time_s\": %.17g, ",
           c->seed, dist_names[c->dist], rep, time_s);
    if (opt->check) {
        printf("\"check\": \"%s\", \"bitwise_rank_order\": %s, \"ranks_agree\": %s, ",
               res->ok ? "ok" : "wrong", res->bitwise_rank_order ? "true" : "false",
               res->ranks_agree ? "true" : "false");
        /* null: a value that had to match exactly (no error bound) differs */
        print_json_number_or_null("max_error_ratio", res->max_error_ratio);
        print_json_number_or_null("max_ulp_error", res->max_ulp_error);
        if (res->max_error_u_sum_abs < 0)
            printf("\"max_error_u_sum_abs\": null, ");
        else
            print_json_number_or_null("max_error_u_sum_abs", res->max_error_u_sum_abs);
        if (res->max_error_prerounded_ratio < 0)
            printf("\"max_error_prerounded_ratio\": null, ");
        else
            print_json_number_or_null("max_error_prerounded_ratio",
                                      res->max_error_prerounded_ratio);
        printf("\"result_hash\": \"%016" PRIx64 "\", ", res->result_hash);
    } else {
        printf("\"check\": \"skipped\", ");
    }
    if (params->timing_only)
        printf("\"timing_only\": true, ");
    printf("\"collsim_version\": \"%s\", \"library\": \"%s\"}\n", COLLSIM_VERSION, ctx->library);
    fflush(stdout);
}

/* out = x_0 op x_1 op ... op x_{n-1}, left to right (rank order), for the n
 * contributor vectors of x; the work is charged like any local reduction.
 * x is overwritten. */
static int fold_contributors(char *x, char *out, int count, int n, MPI_Datatype dt, int esize,
                             MPI_Op op, const collsim_params *params)
{
    const size_t nbytes = (size_t)count * esize;
    memcpy(out, x, nbytes);
    for (int k = 1; k < n; k++) {
        char *next = x + (size_t)k * nbytes;
        /* next = out op next (out the left operand), then out = next */
        int rc = collsim_reduce_local(out, next, count, dt, op, params);
        if (rc != MPI_SUCCESS)
            return rc;
        memcpy(out, next, nbytes);
    }
    return MPI_SUCCESS;
}

/* The error lines of measure_case, in frames of their own (see OWN_FRAME). */
static OWN_FRAME void report_failure(const run_context *ctx, int rc, long long bytes)
{
    char msg[MPI_MAX_ERROR_STRING];
    int len = 0;
    MPI_Error_string(rc, msg, &len);
    fprintf(stderr, "collbench: error: %s/%s failed on rank %d at %lld bytes: %s\n",
            ctx->alg->collective_name, ctx->alg->name, ctx->rank, bytes, msg);
}

static OWN_FRAME void report_wrong(const run_context *ctx, const check_case *c, long long bytes,
                                   const check_result *res)
{
    char prerounded_note[64] = "";
    if (res->max_error_prerounded_ratio >= 0)
        snprintf(prerounded_note, sizeof prerounded_note, ", error/pre-rounded bound %.3g",
                 res->max_error_prerounded_ratio);
    fprintf(stderr,
            "collbench: error: %s/%s gave a wrong result: np=%d bytes=%lld "
            "dtype=%s op=%s root=%d (error/bound %.3g%s)\n",
            ctx->alg->collective_name, ctx->alg->name, ctx->size, bytes, dtype_names[c->dtype],
            !collective_of(ctx->alg)->has_op ? "-" : op_names[c->op], c->root, res->max_error_ratio,
            prerounded_note);
}

/* How late one rank enters a checked barrier: long against any barrier's time
 * on the simulated machines, and, under a real MPI, against the skew of the
 * ranks' release from the MPI_Barrier that starts a measurement and against
 * the error of the common clock (clocksync.c: half a round trip). */
#ifdef COLLSIM_SMPI
#define BARRIER_DELAY_S 1e-3
#define BARRIER_CLOCK_ERROR_S 0.0 /* one simulated clock */
#else
#define BARRIER_DELAY_S 1e-2
#define BARRIER_CLOCK_ERROR_S 1e-3 /* rank 0's clock, each process's offset measured */
#endif

/* One checked barrier in which rank `late` enters BARRIER_DELAY_S late: how
 * long before the late rank entered the first rank left (<= 0 for a
 * barrier), on one clock (SimGrid's; under a real MPI rank 0's, each
 * process's offset measured by clocksync.c, never one process's raw time
 * against another's); NAN when the algorithm failed somewhere.  Collective
 * over world. */
static double barrier_early_exit_s(run_context *ctx, int late)
{
    sync_start(&ctx->sync, ctx->world);
    double entered = MPI_Wtime();
    if (ctx->rank == late) {
#ifdef COLLSIM_SMPI
        sg_actor_sleep_for(BARRIER_DELAY_S);
#else
        while (MPI_Wtime() - entered < BARRIER_DELAY_S)
            ;
#endif
        entered = MPI_Wtime();
    }
    const int rc = call_algorithm(ctx->alg, NULL, NULL, 0, MPI_BYTE, MPI_OP_NULL, 0,
                                  ctx->coll_comm, ctx->params);
    double left = MPI_Wtime();
#ifndef COLLSIM_SMPI
    collsim_clock_sync_once(ctx->world);
    entered = collsim_clock_global(entered);
    left = collsim_clock_global(left);
#endif
    /* {the late rank's entry, -(this rank's exit), failed}: maxima over the ranks */
    double mine[3] = {ctx->rank == late ? entered : -INFINITY, -left, rc != MPI_SUCCESS}, all[3];
    if (MPI_Allreduce(mine, all, 3, MPI_DOUBLE, MPI_MAX, ctx->world) != MPI_SUCCESS || all[2] > 0)
        return NAN;
    return all[0] + all[1]; /* late entry - first exit */
}

/* Checks a barrier (it has no data to compare): one rank at a time enters
 * it BARRIER_DELAY_S late (every rank up to 128 ranks; beyond, ranks 0,
 * p/2 and p-1), and no rank may leave before it entered (within
 * BARRIER_CLOCK_ERROR_S).  max_error_ratio is the earliest exit before that
 * entry over the delay (0 when none left early).  Collective over world.
 * Returns an exit status. */
static OWN_FRAME int check_barrier(run_context *ctx, check_result *res)
{
    const int all = ctx->size <= 128;
    const int lates[3] = {0, ctx->size / 2, ctx->size - 1};
    res->max_error_ratio = 0.0;
    for (int i = 0; i < (all ? ctx->size : 3); i++) {
        const double early_s = barrier_early_exit_s(ctx, all ? i : lates[i]);
        if (isnan(early_s))
            return EXIT_MPI_ERROR;
        if (early_s > BARRIER_CLOCK_ERROR_S) {
            res->ok = res->bitwise_rank_order = 0;
            if (early_s / BARRIER_DELAY_S > res->max_error_ratio)
                res->max_error_ratio = early_s / BARRIER_DELAY_S;
        }
    }
    return EXIT_OK;
}

/* Measures one (dtype, op, root, size) case for every repetition.  Returns an
 * exit status. */
static OWN_FRAME int measure_case(run_context *ctx, const check_case *c, MPI_Op op, long long bytes)
{
    const int esize = dtype_size(c->dtype);
    const collsim_collective_info *info = collective_of(ctx->alg);
    /* each rank's buffers, in blocks of count elements (collectives.def) */
    const size_t send_bytes =
        (size_t)collsim_block_elements(info->send_blocks, c->count, ctx->rank, c->root, ctx->size) *
        esize;
    const size_t recv_bytes =
        (size_t)collsim_block_elements(info->recv_blocks == COLLSIM_BLOCKS_ONE_AT_ROOT
                                           ? COLLSIM_BLOCKS_ONE /* reduce: a scratch vector */
                                           : info->recv_blocks,
                                       c->count, ctx->rank, c->root, ctx->size) *
        esize;
    const size_t nbytes = (size_t)c->count * esize;
    /* contributors the algorithm does not read itself are summed here first */
    const int folded = c->contributors > 1 && ctx->params->contributors <= 1;
    const collsim_params *params = ctx->params;
    char *sendbuf = collsim_buffer_alloc(send_bytes * (size_t)c->contributors, params);
    char *recvbuf = collsim_buffer_alloc(recv_bytes, params);
    char *local = folded ? collsim_buffer_alloc(nbytes, params) : NULL;
    int status = EXIT_OK;
    if (!sendbuf || !recvbuf || (folded && !local)) {
        if (ctx->rank == 0)
            fprintf(stderr, "collbench: error: out of memory for %lld bytes\n", bytes);
        collsim_buffer_free(sendbuf, params);
        collsim_buffer_free(recvbuf, params);
        collsim_buffer_free(local, params);
        return EXIT_MPI_ERROR;
    }

    /* --cached-comms: rep -1 is the untimed first call in which the algorithm
     * makes the communicators it keeps; it is checked but not reported. */
    const int first_rep = params->cached_comms ? -1 : 0;
    for (int rep = first_rep; rep < ctx->opt->reps && status == EXIT_OK; rep++) {
        /* Non-holders of the input start from a poison pattern, so that a
         * result left unwritten is caught.  Timing only: no data at all. */
        if (!params->timing_only) {
            memset(recvbuf, 0xA5, recv_bytes);
            check_fill_input(c, ctx->rank, ctx->size,
                             info->send_blocks == COLLSIM_BLOCKS_NONE ? recvbuf : sendbuf);
        }

        sync_start(&ctx->sync, ctx->world);
        double start = MPI_Wtime();
        int rc = MPI_SUCCESS;
        const void *input = sendbuf;
        if (folded) {
            rc = fold_contributors(sendbuf, local, c->count, c->contributors, dtype_mpi(c->dtype),
                                   esize, op, ctx->params);
            input = local;
        }
        if (rc == MPI_SUCCESS)
            rc = call_algorithm(ctx->alg, input, recvbuf, c->count, dtype_mpi(c->dtype), op,
                                c->root, ctx->coll_comm, ctx->params);
        double end = MPI_Wtime();

        int failed = rc != MPI_SUCCESS, any_failed = 0;
        double start_min = 0.0, end_max = 0.0;
        gather_times(&ctx->sync, ctx->world, ctx->rank, failed, start, end, recvbuf, &any_failed,
                     &start_min, &end_max);
        if (any_failed) {
            if (failed)
                report_failure(ctx, rc, bytes);
            status = EXIT_MPI_ERROR;
            /* the same verdict everywhere, so that the ranks stop together */
            status = share_status(&ctx->sync, ctx->world, ctx->rank, status);
            break;
        }

        check_result res = {.ok = 1, .bitwise_rank_order = 1, .ranks_agree = 1,
                            .max_error_u_sum_abs = -1.0, .max_error_prerounded_ratio = -1.0};
        const void *const *shared = shared_results(&ctx->sync);
        if (ctx->opt->check && ctx->alg->collective == COLLSIM_BARRIER)
            status = check_barrier(ctx, &res);
        else if (ctx->opt->check && (shared == NULL || ctx->rank == 0) &&
                 check_result_collect(c, recvbuf, ctx->world, shared, ctx->references, &res) !=
                     MPI_SUCCESS)
            status = EXIT_MPI_ERROR;
        if (ctx->rank == 0) {
            if (rep >= 0)
                print_row(ctx, c, bytes, rep, end_max - start_min, &res);
            if (!res.ok) {
                report_wrong(ctx, c, bytes, &res);
                status = EXIT_WRONG;
            }
        }
        status = share_status(&ctx->sync, ctx->world, ctx->rank, status);
    }
    collsim_buffer_free(sendbuf, params);
    collsim_buffer_free(recvbuf, params);
    collsim_buffer_free(local, params);
    return status;
}

/* The parameters the algorithm gets: the command line's, parsed into
 * opt->params, finished in place (gamma resolved; the contributors only for
 * the algorithms that read them, the harness folds for the rest); and what a
 * composite algorithm resolves its defaults to, for the rows. */
static void set_params(run_context *ctx, options *opt)
{
    ctx->params = &opt->params;
    ctx->params->gamma_s_per_byte = resolve_gamma(ctx->params->gamma_s_per_byte);
    ctx->params->contributors =
        ctx->alg != NULL && (ctx->alg->parameters & COLLSIM_PARAM_CONTRIBUTORS)
            ? opt->contributors
            : 0;
    if (ctx->alg != NULL)
        collsim_composite_names(ctx->alg, ctx->params, &ctx->inner_algorithm,
                                &ctx->outer_algorithm);
    if (ctx->alg != NULL && (ctx->alg->parameters & COLLSIM_PARAM_GROUPS))
        ctx->group_count = collsim_hier_group_count(ctx->alg->collective, ctx->size, ctx->params);
}

/* One call a selector meets: a datatype, an op (OP_SUM for a bcast) and a
 * size of the command line, on comm_size ranks. */
typedef struct selector_case {
    dtype_id dtype;
    op_id op;
    long long count;
    collsim_native_call call;
} selector_case;

typedef int (*selector_case_fn)(const collsim_algorithm *alg, const selector_case *c, void *arg);

/* Calls fn on every case of the command line (datatype x op x size) until
 * it returns nonzero; returns that, or 0. */
static int for_each_selector_case(const collsim_algorithm *alg, const options *opt, int comm_size,
                                  selector_case_fn fn, void *arg)
{
    const int has_op = collective_of(alg)->has_op;
    const int nops = has_op ? opt->nops : 1;
    const int nsizes = opt->ncounts > 0 ? opt->ncounts : opt->nbytes;
    for (int d = 0; d < opt->ndtypes; d++) {
        for (int o = 0; o < nops; o++) {
            for (int s = 0; s < nsizes; s++) {
                selector_case c = {.dtype = opt->dtypes[d],
                                   .op = has_op ? opt->ops[o] : OP_SUM};
                c.count = opt->ncounts > 0 ? opt->counts[s] : opt->bytes[s] / dtype_size(c.dtype);
                c.call = native_call(alg, comm_size, c.count, c.dtype, c.op);
                const int rc = fn(alg, &c, arg);
                if (rc != 0)
                    return rc;
            }
        }
    }
    return 0;
}

typedef struct error_text {
    char *text;
    size_t len;
} error_text;

/* A case the selector cannot run: -1 with the sentence naming it. */
static int refuse_selection(const collsim_algorithm *alg, const selector_case *c, void *arg)
{
    error_text *err = arg;
    char buf[400];
    const char *why = collsim_native_check(alg, &c->call, buf, sizeof buf);
    if (why == NULL)
        return 0;
    snprintf(err->text, err->len, "%s/%s %s (np=%d, %lld bytes, %s%s%s)", alg->collective_name,
             alg->name, why, c->call.comm_size, c->count * dtype_size(c->dtype),
             dtype_names[c->dtype], collective_of(alg)->has_op ? ", op " : "",
             collective_of(alg)->has_op ? op_names[c->op] : "");
    return -1;
}

/* A selector that picks, for some case, an algorithm collsim lacks: the
 * sentence naming it.  Returns -1 with err set, or 0. */
static int validate_selection(const collsim_algorithm *alg, const options *opt, int comm_size,
                              char *err, size_t errlen)
{
    error_text text = {err, errlen};
    return for_each_selector_case(alg, opt, comm_size, refuse_selection, &text);
}

/* --native: the lines of algorithms/native.def as JSON Lines. */
static void print_native(void)
{
    size_t ncollectives;
    const collsim_collective_info *collectives = collsim_collectives(&ncollectives);
    size_t n;
    const collsim_native_entry *e = collsim_native_entries(&n);
    for (size_t i = 0; i < n; i++) {
        printf("{\"library\": \"%s\", \"version\": \"%s\", \"collective\": \"%s\", "
               "\"id\": %d, \"name\": \"%s\", ",
               collsim_native_library_name(e[i].library),
               collsim_native_library_version(e[i].library), collectives[e[i].collective].name,
               e[i].id, e[i].library_name);
        print_json_string_or_null("algorithm", e[i].algorithm);
        printf("\"note\": \"%s\"}\n", e[i].note);
    }
}

/* One line of --native-choice. */
static int print_native_choice(const collsim_algorithm *alg, const selector_case *c, void *arg)
{
    collsim_native_library library;
    (void)arg;
    collsim_native_selector_library(alg, &library);
    const collsim_native_entry *e = collsim_native_choose(library, &c->call);
    char buf[400];
    const char *why = collsim_native_check(alg, &c->call, buf, sizeof buf);
    printf("{\"collective\": \"%s\", \"algorithm\": \"%s\", \"np\": %d, "
           "\"bytes\": %lld, \"dtype\": \"%s\", ",
           alg->collective_name, alg->name, c->call.comm_size,
           c->count * dtype_size(c->dtype), dtype_names[c->dtype]);
    if (!collective_of(alg)->has_op)
        printf("\"op\": null, ");
    else
        printf("\"op\": \"%s\", ", op_names[c->op]);
    char selected[256];
    print_json_string_or_null("selected", collsim_native_selected(library, &c->call, selected,
                                                                  sizeof selected));
    printf("\"native_algorithm\": \"%s\", \"native_id\": %d, ", e->library_name, e->id);
    /* what the library runs when a rule names each of its algorithms */
    printf("\"forced\": {");
    size_t n;
    const collsim_native_entry *all = collsim_native_entries(&n);
    int first = 1;
    for (size_t i = 0; i < n; i++) {
        if (all[i].library != library || all[i].collective != alg->collective)
            continue;
        const collsim_native_entry *runs = collsim_native_forced(&all[i], &c->call);
        printf("%s\"%s\": ", first ? "" : ", ", all[i].library_name);
        if (runs == NULL)
            printf("null");
        else
            printf("{\"native_algorithm\": \"%s\", \"native_id\": %d, \"selected\": %s%s%s}",
                   runs->library_name, runs->id, runs->algorithm ? "\"" : "",
                   runs->algorithm ? runs->algorithm : "null",
                   runs->algorithm ? "\"" : "");
        first = 0;
    }
    printf("}, ");
    if (why == NULL)
        printf("\"error\": null}\n");
    else
        printf("\"error\": \"%s/%s %s\"}\n", alg->collective_name, alg->name, why);
    return 0;
}

/* --native-choice: what a selector picks for each case, without running it. */
static int print_native_choices(const options *opt)
{
    const collsim_algorithm *alg = collsim_find_algorithm(opt->collective, opt->algorithm);
    collsim_native_library library;
    if (alg == NULL || collsim_native_selector_library(alg, &library) != 0) {
        fprintf(stderr, "collbench: error: --native-choice takes a selector "
                        "(openmpi_default, mpich_default)\n");
        return EXIT_BAD_INPUT;
    }
    return for_each_selector_case(alg, opt, opt->tree_np, print_native_choice, NULL);
}

static OWN_FRAME int validate(const run_context *ctx, char *err, size_t errlen)
{
    const options *opt = ctx->opt;
    for (int r = 0; r < opt->nroots; r++) {
        if (collective_of(ctx->alg)->has_root && opt->roots[r] >= ctx->size) {
            snprintf(err, errlen, "root %d is outside the communicator (np=%d)", opt->roots[r],
                     ctx->size);
            return -1;
        }
    }
    for (int d = 0; d < opt->ndtypes; d++) {
        for (int s = 0; s < opt->nbytes; s++) {
            if (opt->bytes[s] % dtype_size(opt->dtypes[d]) != 0) {
                snprintf(err, errlen, "%lld bytes is not a whole number of %s elements",
                         opt->bytes[s], dtype_names[opt->dtypes[d]]);
                return -1;
            }
            if (opt->bytes[s] / dtype_size(opt->dtypes[d]) > 0x7fffffffLL) {
                snprintf(err, errlen, "%lld bytes is more than 2^31-1 elements", opt->bytes[s]);
                return -1;
            }
            const collsim_collective_info *info = collective_of(ctx->alg);
            if ((info->send_blocks >= COLLSIM_BLOCKS_ALL || info->recv_blocks >= COLLSIM_BLOCKS_ALL) &&
                opt->bytes[s] / dtype_size(opt->dtypes[d]) * ctx->size > 0x7fffffffLL) {
                snprintf(err, errlen, "%s of %lld bytes on %d ranks is more than 2^31-1 elements "
                         "in one buffer", ctx->alg->collective_name, opt->bytes[s], ctx->size);
                return -1;
            }
        }
        if (collsim_check_segment(ctx->params, dtype_size(opt->dtypes[d]),
                                  dtype_names[opt->dtypes[d]], err, errlen) != NULL)
            return -1;
    }
    const char *unused = collsim_check_parameters(ctx->alg, ctx->params);
    if (unused != NULL) {
        snprintf(err, errlen, "%s/%s %s", ctx->alg->collective_name, ctx->alg->name, unused);
        return -1;
    }
    if (opt->contributors > 1 && ctx->alg->collective != COLLSIM_ALLREDUCE &&
        ctx->alg->collective != COLLSIM_REDUCE) {
        snprintf(err, errlen, "--contributors applies to allreduce and reduce, not to %s",
                 ctx->alg->collective_name);
        return -1;
    }
    if (opt->contributors > 1 && (long long)opt->contributors * ctx->size > 0x3fffffffLL) {
        snprintf(err, errlen, "%d contributors on %d ranks is too many", opt->contributors,
                 ctx->size);
        return -1;
    }
    /* a collective without an op: only the restrictions on the process count apply */
    const int nops = collective_of(ctx->alg)->has_op ? opt->nops : 0;
    for (int o = 0; o < nops; o++) {
        const char *why = collsim_check_restrictions(ctx->alg, ctx->size,
                                                     opt->ops[o] != OP_FIRST_NONZERO);
        if (why != NULL) {
            snprintf(err, errlen, "%s/%s %s (op %s, np=%d)", ctx->alg->collective_name,
                     ctx->alg->name, why, op_names[opt->ops[o]], ctx->size);
            return -1;
        }
    }
    for (int o = 0; o < nops; o++) {
        for (int d = 0; d < opt->ndtypes; d++) {
            MPI_Op op = MPI_OP_NULL;
            int created = 0;
            if (op_create(opt->ops[o], &op, &created) != MPI_SUCCESS)
                return -1;
            const char *why = collsim_check_op_restrictions(ctx->alg, op, dtype_mpi(opt->dtypes[d]));
            if (created)
                MPI_Op_free(&op);
            if (why != NULL) {
                snprintf(err, errlen, "%s/%s %s (op %s, datatype %s)", ctx->alg->collective_name,
                         ctx->alg->name, why, op_names[opt->ops[o]], dtype_names[opt->dtypes[d]]);
                return -1;
            }
        }
    }
    const char *why = collsim_check_restrictions(ctx->alg, ctx->size, 1);
    if (why != NULL) {
        snprintf(err, errlen, "%s/%s %s (np=%d)", ctx->alg->collective_name, ctx->alg->name, why,
                 ctx->size);
        return -1;
    }
    for (int o = 0; o < nops; o++) {
        char buf[256];
        const char *why2 = collsim_check_composition(
            ctx->alg, ctx->size, opt->ops[o] != OP_FIRST_NONZERO, ctx->params, buf, sizeof buf);
        if (why2 != NULL) {
            snprintf(err, errlen, "%s/%s %s (op %s, np=%d)", ctx->alg->collective_name,
                     ctx->alg->name, why2, op_names[opt->ops[o]], ctx->size);
            return -1;
        }
    }
    return 0;
}

static OWN_FRAME int run_measurements(run_context *ctx)
{
    const options *opt = ctx->opt;
    const collsim_collective_info *info = collective_of(ctx->alg);
    const int nops = info->has_op ? opt->nops : 1;
    const int nroots = info->has_root ? opt->nroots : 1;
    int status = EXIT_OK;

    for (int d = 0; d < opt->ndtypes && status == EXIT_OK; d++) {
        for (int o = 0; o < nops && status == EXIT_OK; o++) {
            MPI_Op op = MPI_OP_NULL;
            int created = 0;
            if (info->has_op && op_create(opt->ops[o], &op, &created) != MPI_SUCCESS)
                return EXIT_MPI_ERROR;
            for (int r = 0; r < nroots && status == EXIT_OK; r++) {
                const int nsizes = opt->ncounts > 0 ? opt->ncounts : opt->nbytes;
                for (int s = 0; s < nsizes && status == EXIT_OK; s++) {
                    const int esize = dtype_size(opt->dtypes[d]);
                    const long long count =
                        opt->ncounts > 0 ? opt->counts[s] : opt->bytes[s] / esize;
                    check_case c = {
                        .collective = ctx->alg->collective,
                        .dtype = opt->dtypes[d],
                        .op = info->has_op ? opt->ops[o] : OP_SUM,
                        .root = info->has_root ? opt->roots[r] : 0,
                        .count = (int)count,
                        .seed = opt->seed,
                        .dist = opt->dist,
                        .contributors = opt->contributors > 1 ? opt->contributors : 1,
                        .prerounded_bound = collsim_is_prerounded(ctx->alg),
                    };
                    status = measure_case(ctx, &c, op, count * esize);
                }
            }
            if (created)
                MPI_Op_free(&op);
        }
    }
    return status;
}

/* Prints, on rank 0, the inputs of every rank for --count elements (bits in
 * hex) and, for sums of floating-point types, the correctly rounded exact sum
 * of each element: so that the Python twin of the generator and of the
 * exact sum can be held against this one. */
static OWN_FRAME int run_dump_inputs(run_context *ctx)
{
    const options *opt = ctx->opt;
    const int count = (int)opt->counts[0];
    const dtype_id dtype = opt->dtypes[0];
    const op_id op = opt->ops[0];
    const int size = dtype_size(dtype);
    if (ctx->rank != 0)
        return EXIT_OK;
    for (int i = 0; i < count; i++) {
        exact_sum sum;
        exact_sum_init(&sum);
        printf("{\"index\": %d, \"values\": [", i);
        for (int rank = 0; rank < ctx->size; rank++) {
            unsigned char value[8];
            uint64_t bits = 0;
            datagen_value(opt->seed, rank, (uint64_t)i, dtype, op, opt->dist, value);
            for (int b = size - 1; b >= 0; b--)
                bits = (bits << 8) | value[b];
            printf("%s\"%0*" PRIx64 "\"", rank ? ", " : "", 2 * size, bits);
            if (dtype == DTYPE_DOUBLE) {
                double d;
                memcpy(&d, value, sizeof d);
                exact_sum_add(&sum, d);
            } else if (dtype == DTYPE_FLOAT) {
                float f;
                memcpy(&f, value, sizeof f);
                exact_sum_add(&sum, f);
            }
        }
        printf("]");
        if (dtype_is_float(dtype)) {
            int residual;
            double rounded = exact_sum_round(&sum, &residual);
            if (dtype == DTYPE_FLOAT)
                printf(", \"exact_sum\": %.17g", (double)exact_sum_round_float(rounded, residual));
            else
                printf(", \"exact_sum\": %.17g", rounded);
        }
        printf("}\n");
    }
    fflush(stdout);
    return EXIT_OK;
}

/* One-way message time between rank 0 and opt->peer: half a round trip. */
static OWN_FRAME int run_pingpong(run_context *ctx)
{
    const options *opt = ctx->opt;
    const int peer = opt->peer;
    if (peer >= ctx->size) {
        if (ctx->rank == 0)
            fprintf(stderr, "collbench: error: peer rank %d is outside the communicator (np=%d)\n",
                    peer, ctx->size);
        return EXIT_BAD_INPUT;
    }
    for (int s = 0; s < opt->nbytes; s++) {
        char *buf = malloc((size_t)opt->bytes[s] + 1);
        if (buf == NULL)
            return EXIT_MPI_ERROR;
        memset(buf, 0, (size_t)opt->bytes[s] + 1);
        for (int rep = 0; rep < opt->reps; rep++) {
            sync_start(&ctx->sync, ctx->world);
            double start = MPI_Wtime();
            if (ctx->rank == 0) {
                MPI_Send(buf, (int)opt->bytes[s], MPI_BYTE, peer, 1, ctx->coll_comm);
                MPI_Recv(buf, (int)opt->bytes[s], MPI_BYTE, peer, 1, ctx->coll_comm,
                         MPI_STATUS_IGNORE);
                double one_way = (MPI_Wtime() - start) / 2.0;
                printf("{\"collective\": \"pingpong\", \"np\": %d, \"peer\": %d, \"bytes\": %lld, "
                       "\"rep\": %d, \"time_s\": %.17g, \"collsim_version\": \"%s\", "
                       "\"library\": \"%s\"}\n",
                       ctx->size, peer, opt->bytes[s], rep, one_way, COLLSIM_VERSION,
                       ctx->library);
                fflush(stdout);
            } else if (ctx->rank == peer) {
                MPI_Recv(buf, (int)opt->bytes[s], MPI_BYTE, 0, 1, ctx->coll_comm,
                         MPI_STATUS_IGNORE);
                MPI_Send(buf, (int)opt->bytes[s], MPI_BYTE, 0, 1, ctx->coll_comm);
            }
        }
        free(buf);
    }
    return EXIT_OK;
}

/* The modes rank 0 answers alone, without measuring anything. */
static int answers_alone(run_mode mode)
{
    return mode == MODE_DUMP_TREE || mode == MODE_NATIVE || mode == MODE_NATIVE_CHOICE ||
           mode == MODE_HELP || mode == MODE_LIST;
}

/* Rank 0's answer in such a mode: an exit status. */
static OWN_FRAME int answer_alone(const options *opt)
{
    switch (opt->mode) {
    case MODE_DUMP_TREE:
        return dump_tree(opt);
    case MODE_NATIVE:
        print_native();
        return EXIT_OK;
    case MODE_NATIVE_CHOICE:
        return print_native_choices(opt);
    case MODE_HELP:
        options_usage(stdout);
        return EXIT_OK;
    default:
        print_registry(opt->json);
        if (opt->json) {
            datagen_print_catalog_json();
            print_parameters();
            print_collectives();
        }
        return EXIT_OK;
    }
}

/* Everything before the measurement: the command line parsed into opt, the
 * modes rank 0 answers alone answered, the algorithm found and the case
 * validated, with error texts in this frame rather than main's.  Returns -1
 * to go on measuring, else the exit status (after the error was printed). */
static OWN_FRAME int prepare(run_context *ctx, options *opt, int argc, char **argv)
{
    char err[512];
    int status = EXIT_OK;
    int nargs;
    ctx->environment_args = options_environment_argv(argc, argv, &nargs);
    if (nargs < 0) {
        fprintf(stderr, "collbench: error: out of memory for $%s\n", OPTIONS_ENVIRONMENT);
        return EXIT_MPI_ERROR;
    }
    if (ctx->environment_args != NULL) {
        argc = nargs;
        argv = ctx->environment_args;
    }
    if (options_parse(argc, argv, opt, err, sizeof err) != 0) {
        if (ctx->rank == 0)
            fprintf(stderr, "collbench: error: %s\n", err);
        return EXIT_BAD_INPUT;
    }
    ctx->opt = opt;
    if (answers_alone(opt->mode)) {
        if (ctx->rank == 0)
            status = answer_alone(opt);
        MPI_Bcast(&status, 1, MPI_INT, 0, ctx->world);
        return status;
    }

    if (opt->mode == MODE_MEASURE) {
        ctx->alg = collsim_find_algorithm(opt->collective, opt->algorithm);
        if (ctx->alg == NULL) {
            if (ctx->rank == 0)
                fprintf(stderr, "collbench: error: unknown algorithm '%s' for collective '%s' "
                                "(collbench --list shows the registry)\n",
                        opt->algorithm, opt->collective);
            return EXIT_BAD_INPUT;
        }
    }
    set_params(ctx, opt);
    if (opt->mode == MODE_MEASURE) {
        if (validate(ctx, err, sizeof err) != 0 ||
            validate_selection(ctx->alg, opt, ctx->size, err, sizeof err) != 0) {
            if (ctx->rank == 0)
                fprintf(stderr, "collbench: error: %s\n", err);
            return EXIT_BAD_INPUT;
        }
    }
    if (ctx->rank == 0) /* the one rank that prints rows: snprintf is deep */
        library_version(ctx->library, sizeof ctx->library);
    return -1;
}

/* The harness's state shared by the ranks (sync_point) and rank 0's cache of
 * references.  Returns an MPI error code. */
static OWN_FRAME int harness_init(run_context *ctx)
{
    if (sync_init(&ctx->sync, ctx->world) != MPI_SUCCESS)
        return MPI_ERR_NO_MEM;
    /* only rank 0 compares results (the others send theirs, or, under SMPI,
     * rank 0 reads them in place) */
    if (ctx->rank == 0 && ctx->opt->check) {
        ctx->references = malloc(sizeof *ctx->references);
        if (ctx->references == NULL)
            return MPI_ERR_NO_MEM;
        check_cache_init(ctx->references);
    }
    return MPI_SUCCESS;
}

/* One rank's run after MPI_Init: returns the exit status. */
static OWN_FRAME int run(run_context *ctx, options *opt, int argc, char **argv)
{
    ctx->world = MPI_COMM_WORLD;
    MPI_Comm_rank(ctx->world, &ctx->rank);
    MPI_Comm_size(ctx->world, &ctx->size);

    int status = prepare(ctx, opt, argc, argv);
    if (status >= 0)
        return status;
    /* The algorithm's own communicator.  Under SMPI the harness sends no
     * message on world while algorithms run (its bookkeeping goes through
     * shared memory, see sync_point), so the algorithms get world itself:
     * SMPI's MPI_Comm_dup copies the group on every rank, p^2 words in all
     * (4 GB at 16384 ranks).  Under a real MPI, a duplicate keeps the
     * harness's messages apart from the algorithm's. */
#ifdef COLLSIM_SMPI
    ctx->coll_comm = ctx->world;
#else
    MPI_Comm_dup(ctx->world, &ctx->coll_comm);
#endif
    if (harness_init(ctx) != MPI_SUCCESS) {
        if (ctx->rank == 0)
            fprintf(stderr, "collbench: error: out of memory for the harness of %d ranks\n",
                    ctx->size);
        return EXIT_MPI_ERROR;
    }

    if (ctx->rank == 0)
        progress_start(&ctx->watcher);
    if (opt->mode == MODE_PINGPONG)
        status = run_pingpong(ctx);
    else if (opt->mode == MODE_DUMP_INPUTS)
        status = run_dump_inputs(ctx);
    else
        status = run_measurements(ctx);
    if (ctx->references != NULL) {
        check_cache_free(ctx->references);
        free(ctx->references);
    }
    if (ctx->rank == 0)
        progress_stop(&ctx->watcher);

    sync_destroy(&ctx->sync, ctx->world);
#ifndef COLLSIM_SMPI
    MPI_Comm_free(&ctx->coll_comm);
#endif
    return status;
}

int main(int argc, char **argv)
{
    MPI_Init(&argc, &argv);
    /* the options and the run's state on the heap, not in main's frame (see
     * OWN_FRAME): 2 KB a rank instead of a stack page */
    struct {
        options opt;
        run_context ctx;
    } *state = calloc(1, sizeof *state);
    int status = EXIT_MPI_ERROR;
    if (state != NULL)
        status = run(&state->ctx, &state->opt, argc, argv);
    else
        fprintf(stderr, "collbench: error: out of memory\n");
    if (state != NULL)
        free(state->ctx.environment_args);
    free(state);
    MPI_Finalize();
    return status;
}

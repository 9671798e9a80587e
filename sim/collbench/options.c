/*
 * options.c: collbench's command line.  One table names every option once:
 * its argument, the parser that checks the value and stores it in struct
 * options, and its help line; getopt_long reads argv with it, and
 * options_usage() prints it.
 */
#include "options.h"

#include <errno.h>
#include <getopt.h>
#include <limits.h>
#include <math.h>
#include <stdlib.h>
#include <string.h>

typedef struct option_spec option_spec;

/* Checks value and stores it; 0, or -1 with a one-line reason in err. */
typedef int (*option_parser)(const option_spec *spec, const char *value, options *opt,
                             char *err, size_t errlen);

struct option_spec {
    const char *name;    /* without the leading "--" */
    const char *arg;     /* the value's placeholder; NULL for a flag */
    option_parser parse;
    size_t field;        /* offsetof(options, ...) of what parse stores */
    size_t width;        /* its sizeof, for set_whole */
    double min, max;     /* numbers: the accepted range; mode flags: the mode */
    const char *what;    /* for messages: "segment size" */
    const char *help;
};

static int fail(char *err, size_t errlen, const char *fmt, const char *what)
{
    snprintf(err, errlen, fmt, what);
    return -1;
}

static void *field(options *opt, const option_spec *spec)
{
    return (char *)opt + spec->field;
}

static int parse_ll(const char *text, long long *out)
{
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || end == text || *end != '\0')
        return -1;
    *out = v;
    return 0;
}

_Static_assert(sizeof(size_t) == sizeof(uint64_t), "set_whole stores size_t fields as 64 bits");

/* A whole number in [min, max], stored as the field's type (sizeof tells
 * int from 64 bits: size_t, uint64_t); the message names what and the range. */
static int set_whole(const option_spec *spec, const char *value, options *opt, char *err,
                     size_t errlen)
{
    long long v = 0;
    if (parse_ll(value, &v) != 0 || v < spec->min || v > spec->max) {
        char range[64];
        if (spec->max >= (double)LLONG_MAX)
            snprintf(range, sizeof range, ">= %.0f", spec->min);
        else
            snprintf(range, sizeof range, "%.0f..%.0f", spec->min, spec->max);
        snprintf(err, errlen, "malformed %s '%s' (%s)", spec->what, value, range);
        return -1;
    }
    if (spec->width == sizeof(int))
        *(int *)field(opt, spec) = (int)v;
    else
        *(uint64_t *)field(opt, spec) = (uint64_t)v;
    return 0;
}

static int set_double(const option_spec *spec, const char *value, options *opt, char *err,
                      size_t errlen)
{
    char *end;
    errno = 0;
    double v = strtod(value, &end);
    if (errno != 0 || end == value || *end != '\0' || !(v >= spec->min) || v > spec->max) {
        snprintf(err, errlen, "malformed %s '%s' (>= 0)", spec->what, value);
        return -1;
    }
    *(double *)field(opt, spec) = v;
    return 0;
}

static int set_string(const option_spec *spec, const char *value, options *opt, char *err,
                      size_t errlen)
{
    (void)err;
    (void)errlen;
    *(const char **)field(opt, spec) = value;
    return 0;
}

static int set_flag(const option_spec *spec, const char *value, options *opt, char *err,
                    size_t errlen)
{
    (void)value;
    (void)err;
    (void)errlen;
    *(int *)field(opt, spec) = (int)spec->max;
    return 0;
}

static int set_mode(const option_spec *spec, const char *value, options *opt, char *err,
                    size_t errlen)
{
    (void)value;
    (void)err;
    (void)errlen;
    opt->mode = (run_mode)spec->min;
    return 0;
}

static int set_timing_only(const option_spec *spec, const char *value, options *opt, char *err,
                           size_t errlen)
{
    opt->check = 0;
    return set_flag(spec, value, opt, err, errlen);
}

static int set_dump_tree(const option_spec *spec, const char *value, options *opt, char *err,
                         size_t errlen)
{
    opt->mode = MODE_DUMP_TREE;
    return set_string(spec, value, opt, err, errlen);
}

/* A parameter of algorithms/params.def (spec->field: its index there),
 * parsed and checked by the registry's one parser. */
static int set_parameter(const option_spec *spec, const char *value, options *opt, char *err,
                         size_t errlen)
{
    char label[64];
    snprintf(label, sizeof label, "--%s", spec->name);
    return collsim_parameter_parse(&collsim_parameter_specs()[spec->field], value, label,
                                   &opt->params, err, errlen);
}

/* A parameter's placeholder in the usage text, by its type; a BOOL is a flag. */
#define PARAMETER_ARG_BYTES "B"
#define PARAMETER_ARG_INT "K"
#define PARAMETER_ARG_NAME "A"
#define PARAMETER_ARG_BOOL NULL
#define PARAMETER_ARG_REAL "R"

/* The index of name in names[0..n), or -1. */
static int name_index(const char *name, const char *const *names, int n)
{
    for (int i = 0; i < n; i++)
        if (strcmp(name, names[i]) == 0)
            return i;
    return -1;
}

/* "<what> '<item>' (a, b, c)": an unknown name, with the known ones of names[0..n)
 * (datagen.def's). */
static int fail_unknown(char *err, size_t errlen, const char *what, const char *item,
                        const char *const *names, int n)
{
    size_t used = (size_t)snprintf(err, errlen, "%s '%s' (", what, item);
    for (int i = 0; i < n && used < errlen; i++)
        used += (size_t)snprintf(err + used, errlen - used, "%s%s", i ? ", " : "", names[i]);
    if (used < errlen)
        snprintf(err + used, errlen - used, ")");
    return -1;
}

static int set_dist(const option_spec *spec, const char *value, options *opt, char *err,
                    size_t errlen)
{
    (void)spec;
    const int d = name_index(value, dist_names, DIST_COUNT);
    if (d < 0)
        return fail_unknown(err, errlen, "unknown distribution", value, dist_names, DIST_COUNT);
    opt->dist = (dist_id)d;
    return 0;
}

/* Comma-separated lists: item() on each item, copied into a buffer. */
typedef int (*item_fn)(const char *item, options *opt, char *err, size_t errlen);

static int for_each_item(const char *list, item_fn item, options *opt, char *err, size_t errlen)
{
    const char *start = list;
    for (;;) {
        const char *comma = strchr(start, ',');
        size_t len = comma ? (size_t)(comma - start) : strlen(start);
        char buf[64];
        if (len == 0)
            return fail(err, errlen, "empty item in list '%s'", list);
        if (len >= sizeof buf)
            return fail(err, errlen, "item too long in list '%s'", list);
        memcpy(buf, start, len);
        buf[len] = '\0';
        if (item(buf, opt, err, errlen) != 0)
            return -1;
        if (!comma)
            return 0;
        start = comma + 1;
    }
}

/* Appends a whole number in [0, max] to list (n of OPTIONS_MAX_SIZES used). */
static int append_whole(const char *item, long long max, const char *what, long long *list,
                        int *n, char *err, size_t errlen)
{
    long long v = 0;
    if (parse_ll(item, &v) != 0 || v < 0 || v > max) {
        snprintf(err, errlen, "malformed %s '%s' (a whole number 0..%lld)", what, item, max);
        return -1;
    }
    if (*n == OPTIONS_MAX_SIZES) {
        snprintf(err, errlen, "too many %ss (at most %d)", what, OPTIONS_MAX_SIZES);
        return -1;
    }
    list[(*n)++] = v;
    return 0;
}

static int add_size(const char *item, options *opt, char *err, size_t errlen)
{
    return append_whole(item, LLONG_MAX, "size", opt->bytes, &opt->nbytes, err, errlen);
}

static int add_count(const char *item, options *opt, char *err, size_t errlen)
{
    return append_whole(item, 0x7fffffffLL, "count", opt->counts, &opt->ncounts, err, errlen);
}

static int add_dtype(const char *item, options *opt, char *err, size_t errlen)
{
    const int d = name_index(item, dtype_names, DTYPE_COUNT);
    if (d < 0 || opt->ndtypes == DTYPE_COUNT)
        return fail_unknown(err, errlen, "unknown datatype in", item, dtype_names, DTYPE_COUNT);
    opt->dtypes[opt->ndtypes++] = (dtype_id)d;
    return 0;
}

static int add_op(const char *item, options *opt, char *err, size_t errlen)
{
    const int o = name_index(item, op_names, OP_COUNT);
    if (o < 0 || opt->nops == OP_COUNT)
        return fail_unknown(err, errlen, "unknown op in", item, op_names, OP_COUNT);
    opt->ops[opt->nops++] = (op_id)o;
    return 0;
}

static int add_root(const char *item, options *opt, char *err, size_t errlen)
{
    long long v = 0;
    if (parse_ll(item, &v) != 0 || v < 0 || v > 1000000000)
        return fail(err, errlen, "malformed root '%s' (a rank number expected)", item);
    if (opt->nroots == OPTIONS_MAX_ROOTS)
        return fail(err, errlen, "%s", "too many roots (at most 64)");
    opt->roots[opt->nroots++] = (int)v;
    return 0;
}

#define LIST_PARSER(fn, item)                                                               \
    static int fn(const option_spec *spec, const char *value, options *opt, char *err,     \
                  size_t errlen)                                                            \
    {                                                                                       \
        (void)spec;                                                                         \
        return for_each_item(value, item, opt, err, errlen);                                \
    }
LIST_PARSER(set_sizes, add_size)
LIST_PARSER(set_counts, add_count)
LIST_PARSER(set_dtypes, add_dtype)
LIST_PARSER(set_ops, add_op)
LIST_PARSER(set_roots, add_root)
#undef LIST_PARSER

#define AT(member) offsetof(options, member), sizeof(((options *)0)->member)
#define NO_RANGE 0, 0
#define ANY_COUNT 0, (double)LLONG_MAX

static const option_spec option_table[] = {
    /* what to do */
    {"list", NULL, set_mode, 0, 0, MODE_LIST, 0, NULL, "print the registry (--json: JSON Lines)"},
    {"json", NULL, set_flag, AT(json), 0, 1, NULL, "--list as JSON Lines"},
    {"pingpong", NULL, set_mode, 0, 0, MODE_PINGPONG, 0, NULL,
     "one-way time between rank 0 and --peer R (default 1), per --bytes"},
    {"dump-inputs", NULL, set_mode, 0, 0, MODE_DUMP_INPUTS, 0, NULL,
     "every rank's inputs for one --count (bits in hex) and their exact sums"},
    {"dump-tree", "KIND", set_dump_tree, AT(tree_kind), NO_RANGE, NULL,
     "one tree as JSON: binomial binary in_order_binary chain dual_postorder (with --np, --root)"},
    {"native", NULL, set_mode, 0, 0, MODE_NATIVE, 0, NULL, "algorithms/native.def as JSON Lines"},
    {"native-choice", NULL, set_mode, 0, 0, MODE_NATIVE_CHOICE, 0, NULL,
     "what a selector (--alg openmpi_default|mpich_default) picks on --np P, without running"},
    {"help", NULL, set_mode, 0, 0, MODE_HELP, 0, NULL, "this text"},
    /* the measurement */
    {"coll", "C", set_string, AT(collective), NO_RANGE, NULL, "a collective of collsim list (allreduce, allgather, barrier, ...)"},
    {"alg", "A", set_string, AT(algorithm), NO_RANGE, NULL, "a registry name (--list)"},
    {"bytes", "N[,N...]", set_sizes, 0, 0, NO_RANGE, NULL, "sizes per rank in bytes, multiples of T"},
    {"count", "K[,K...]", set_counts, 0, 0, NO_RANGE, NULL, "sizes in elements (instead of --bytes)"},
    /* the names of datagen.def, one string */
    {"dtype", "T[,T...]", set_dtypes, 0, 0, NO_RANGE, NULL,
#define COLLBENCH_DTYPE(ID, name, size_bytes, is_float, mpi_datatype) name " "
#include "datagen.def"
#undef COLLBENCH_DTYPE
     "(default double)"},
    {"op", "O[,O...]", set_ops, 0, 0, NO_RANGE, NULL,
#define COLLBENCH_OP(ID, name, commutative, builtin_mpi_op, summary) name " "
#include "datagen.def"
#undef COLLBENCH_OP
     "(default sum)"},
    {"root", "R[,R...]", set_roots, 0, 0, NO_RANGE, NULL, "root ranks (default 0)"},
    {"seed", "S", set_whole, AT(seed), ANY_COUNT, "seed", "seed of the inputs (default 1)"},
    {"dist", "D", set_dist, 0, 0, NO_RANGE, NULL,
#define COLLBENCH_DIST(ID, name, summary) name " "
#include "datagen.def"
#undef COLLBENCH_DIST
     "(default uniform): floating-point inputs"},
    {"reps", "K", set_whole, AT(reps), 1, 1000000, "repetition count", "repetitions (default 1)"},
    {"np", "P", set_whole, AT(tree_np), 1, 16777216, "tree size",
     "ranks of --dump-tree and --native-choice"},
    {"peer", "R", set_whole, AT(peer), 1, 1000000000, "peer rank", "--pingpong's partner of rank 0"},
    {"no-check", NULL, set_flag, AT(check), 0, 0, NULL, "do not check the results"},
    {"timing-only", NULL, set_timing_only, AT(params.timing_only), 0, 1, NULL,
     "buffers shared by all ranks (SMPI's shared malloc), no input data, no local reductions "
     "computed (only charged), no check: the same simulated time in a fraction of the memory"},
    /* the algorithm's parameters (0: its default) */
    {"gamma-s-per-byte", "G", set_double, AT(params.gamma_s_per_byte), 0, INFINITY, "gamma",
     "seconds per byte of a local reduction (default: the platform's host property "
     "gamma_s_per_byte, else 0)"},
    /* every parameter of algorithms/params.def; field: its index there */
#define COLLSIM_PARAMETER_GROUP(group, name, takes_no, one_of, default_value)
#define COLLSIM_PARAMETER(name, option, type, unit, what, min, max, group, help) \
    {option, PARAMETER_ARG_##type, set_parameter, COLLSIM_PARAMETER_INDEX_##name, 0, NO_RANGE, \
     NULL, help},
#include "params.def"
#undef COLLSIM_PARAMETER_GROUP
#undef COLLSIM_PARAMETER
    {"contributors", "N", set_whole, AT(contributors), 1, 1000000, "contributor count",
     "virtual contributors per rank: rank r holds the inputs of virtual ranks r N .. r N + N - 1 "
     "and the result covers all np N of them; algorithms that do not read N get the rank's "
     "contributors combined in order first"},
};

#define OPTION_COUNT (sizeof option_table / sizeof option_table[0])

void options_usage(FILE *out)
{
    fputs("usage: collbench --list [--json]\n"
          "       collbench --coll C --alg A (--bytes N[,N...] | --count K[,K...]) [options]\n"
          "       collbench --pingpong --bytes N[,N...] [--peer R] [--reps K]\n"
          "       collbench --dump-inputs --count K [--dtype T] [--op O] [--dist D] [--seed S]\n"
          "       collbench --dump-tree KIND --np P [--root R] [--chain-fanout F]\n"
          "       collbench --native | --native-choice --coll C --alg A --np P --bytes N\n",
          out);
    for (size_t i = 0; i < OPTION_COUNT; i++) {
        const option_spec *o = &option_table[i];
        char head[64];
        snprintf(head, sizeof head, "--%s%s%s", o->name, o->arg ? " " : "", o->arg ? o->arg : "");
        fprintf(out, "  %-28s %s\n", head, o->help);
    }
    fputs("One JSON object per measurement on stdout; exit 0 ok, 1 wrong result, 2 bad input,\n"
          "3 MPI error.\n",
          out);
}

static void set_defaults(options *opt)
{
    memset(opt, 0, sizeof *opt);
    opt->mode = MODE_MEASURE;
    opt->seed = 1;
    opt->dist = DIST_UNIFORM;
    opt->reps = 1;
    opt->check = 1;
    opt->params.gamma_s_per_byte = -1.0;
    opt->peer = 1;
}

/* What the options given together must satisfy. */
static int check_combination(options *opt, char *err, size_t errlen)
{
    if (opt->ndtypes == 0)
        opt->dtypes[opt->ndtypes++] = DTYPE_DOUBLE;
    if (opt->nops == 0)
        opt->ops[opt->nops++] = OP_SUM;
    if (opt->nroots == 0)
        opt->roots[opt->nroots++] = 0;
    if (opt->mode == MODE_MEASURE || opt->mode == MODE_NATIVE_CHOICE) {
        if (opt->collective == NULL)
            return fail(err, errlen, "%s", "--coll is required");
        if (opt->algorithm == NULL)
            return fail(err, errlen, "%s", "--alg is required");
    }
    if (opt->nbytes > 0 && opt->ncounts > 0)
        return fail(err, errlen, "%s", "give --bytes or --count, not both");
    if (opt->mode == MODE_DUMP_INPUTS && opt->ncounts != 1)
        return fail(err, errlen, "%s", "--dump-inputs needs one --count");
    if (opt->mode == MODE_DUMP_TREE && opt->tree_np == 0)
        return fail(err, errlen, "%s", "--dump-tree needs --np");
    if (opt->mode == MODE_NATIVE_CHOICE && opt->tree_np == 0)
        return fail(err, errlen, "%s", "--native-choice needs --np");
    if (opt->mode == MODE_NATIVE_CHOICE && opt->nbytes == 0 && opt->ncounts == 0)
        return fail(err, errlen, "%s", "--bytes or --count is required");
    if (opt->mode == MODE_PINGPONG && opt->nbytes == 0)
        return fail(err, errlen, "%s", "--bytes is required");
    if (opt->mode == MODE_MEASURE && opt->nbytes == 0 && opt->ncounts == 0)
        return fail(err, errlen, "%s", "--bytes or --count is required");
    return 0;
}

char **options_environment_argv(int argc, char **argv, int *nargs)
{
    const char *text = argc == 1 ? getenv(OPTIONS_ENVIRONMENT) : NULL;
    *nargs = 0;
    if (text == NULL)
        return NULL;
    size_t count = 1 + (*text != '\0'); /* the name, and the first line */
    for (const char *c = text; *c != '\0'; c++)
        count += *c == '\n';
    const size_t len = strlen(text) + 1;
    char **args = malloc((count + 1) * sizeof *args + len);
    if (args == NULL) {
        *nargs = -1;
        return NULL;
    }
    char *lines = (char *)(args + count + 1);
    memcpy(lines, text, len);
    int n = 0;
    args[n++] = argv[0];
    if (*lines != '\0')
        args[n++] = lines;
    for (char *c = lines; *c != '\0'; c++) {
        if (*c == '\n') {
            *c = '\0';
            args[n++] = c + 1;
        }
    }
    args[n] = NULL;
    *nargs = n;
    return args;
}

int options_parse(int argc, char **argv, options *opt, char *err, size_t errlen)
{
    struct option longopts[OPTION_COUNT + 1];
    for (size_t i = 0; i < OPTION_COUNT; i++)
        longopts[i] = (struct option){option_table[i].name,
                                      option_table[i].arg ? required_argument : no_argument,
                                      NULL, (int)(256 + i)};
    longopts[OPTION_COUNT] = (struct option){NULL, 0, NULL, 0};
    set_defaults(opt);

    /* "+": stop at the first non-option (argv is never permuted, so ranks
     * sharing it read the same); ":": a missing value is told apart */
    optind = 0; /* glibc: a full reset, for the next rank's parse */
    opterr = 0;
    int c;
    while ((c = getopt_long(argc, argv, "+:h", longopts, NULL)) != -1) {
        if (c == 'h') {
            opt->mode = MODE_HELP;
        } else if (c == ':') {
            return fail(err, errlen, "option %s needs a value", argv[optind - 1]);
        } else if (c == '?') {
            return fail(err, errlen, "unknown option '%s'", argv[optind - 1]);
        } else {
            const option_spec *spec = &option_table[c - 256];
            if (spec->parse(spec, optarg, opt, err, errlen) != 0)
                return -1;
        }
    }
    if (optind < argc)
        return fail(err, errlen, "unexpected argument '%s'", argv[optind]);
    return check_combination(opt, err, errlen);
}

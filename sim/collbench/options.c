/*
 * options.c: parsing of collbench's command line.
 */
#include "options.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

const char options_usage[] =
    "usage: collbench --list [--json]\n"
    "       collbench --coll C --alg A (--bytes N[,N...] | --count K[,K...])\n"
    "                 [--dtype T[,T...]] [--op O[,O...]]\n"
    "                 [--root R[,R...]] [--seed S] [--reps K] [--gamma-s-per-byte G]\n"
    "                 [--segment-bytes B] [--blocks K] [--groups G] [--inner A] [--outer A]\n"
    "                 [--node-size K] [--contributors N] [--alpha-over-beta-bytes R]\n"
    "                 [--no-check] [--timing-only]\n"
    "       collbench --pingpong --bytes N[,N...] [--peer R] [--reps K]\n"
    "       collbench --dump-inputs --count K [--dtype T] [--op O] [--dist D] [--seed S]\n"
    "       collbench --dump-tree KIND --np P [--root R]\n"
    "       collbench --native                  (algorithms/native.def, JSON Lines)\n"
    "       collbench --native-choice --coll C --alg openmpi_default|mpich_default --np P\n"
    "                 (--bytes N[,N...] | --count K[,K...]) [--dtype T[,T...]] [--op O[,O...]]\n"
    "  KIND: binomial binary in_order_binary chain dual_postorder (one JSON object).\n"
    "  C: allreduce | reduce | bcast; T: int32 int64 float double (default double);\n"
    "  O: sum prod max min first_nonzero (default sum); sizes in bytes, multiples of T;\n"
    "  D: uniform lognormal illcond (default uniform), for floating-point inputs;\n"
    "  G defaults to the host property gamma_s_per_byte of the platform (else 0);\n"
    "  R: the network's alpha/beta in bytes, for the default block counts (0: nominal).\n"
    "  N: virtual contributors per rank: rank r holds the inputs of virtual ranks\n"
    "  r N .. r N + N - 1 and the result covers all np N of them (the same data on\n"
    "  np N / N' ranks with N' contributors); algorithms that do not read N get the\n"
    "  rank's contributors summed in order first.\n"
    "  --timing-only: buffers shared by all ranks (SMPI's shared malloc), no input data,\n"
    "  no local reductions computed (only charged), no check: the same simulated time\n"
    "  in a fraction of the memory.\n"
    "  One JSON object per measurement on stdout; exit 0 ok, 1 wrong result, 2 bad input,\n"
    "  3 MPI error.\n";

static int fail(char *err, size_t errlen, const char *fmt, const char *what)
{
    snprintf(err, errlen, fmt, what);
    return -1;
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

/* Splits a comma-separated list in place-free fashion; calls item() on each. */
typedef int (*item_fn)(const char *item, size_t len, options *opt, char *err, size_t errlen);

static int for_each_item(const char *list, item_fn item, options *opt, char *err, size_t errlen)
{
    const char *start = list;
    for (;;) {
        const char *comma = strchr(start, ',');
        size_t len = comma ? (size_t)(comma - start) : strlen(start);
        if (len == 0)
            return fail(err, errlen, "empty item in list '%s'", list);
        if (item(start, len, opt, err, errlen) != 0)
            return -1;
        if (!comma)
            return 0;
        start = comma + 1;
    }
}

static int copy_item(const char *item, size_t len, char *buf, size_t buflen)
{
    if (len >= buflen)
        return -1;
    memcpy(buf, item, len);
    buf[len] = '\0';
    return 0;
}

static int add_size(const char *item, size_t len, options *opt, char *err, size_t errlen)
{
    char buf[64];
    long long v;
    if (copy_item(item, len, buf, sizeof buf) != 0 || parse_ll(buf, &v) != 0)
        return fail(err, errlen, "malformed size '%s' (plain bytes expected)", item);
    if (v < 0)
        return fail(err, errlen, "negative size '%s'", buf);
    if (opt->nbytes == OPTIONS_MAX_SIZES)
        return fail(err, errlen, "%s", "too many sizes (at most 64)");
    opt->bytes[opt->nbytes++] = v;
    return 0;
}

static int add_count(const char *item, size_t len, options *opt, char *err, size_t errlen)
{
    char buf[64];
    long long v;
    if (copy_item(item, len, buf, sizeof buf) != 0 || parse_ll(buf, &v) != 0)
        return fail(err, errlen, "malformed count '%s' (a number of elements expected)", item);
    if (v < 0 || v > 0x7fffffffLL)
        return fail(err, errlen, "count '%s' out of range (0 .. 2^31-1)", buf);
    if (opt->ncounts == OPTIONS_MAX_SIZES)
        return fail(err, errlen, "%s", "too many counts (at most 64)");
    opt->counts[opt->ncounts++] = v;
    return 0;
}

static int add_dtype(const char *item, size_t len, options *opt, char *err, size_t errlen)
{
    char buf[32];
    if (copy_item(item, len, buf, sizeof buf) == 0) {
        for (int d = 0; d < DTYPE_COUNT; d++) {
            if (strcmp(buf, dtype_names[d]) == 0 && opt->ndtypes < DTYPE_COUNT) {
                opt->dtypes[opt->ndtypes++] = (dtype_id)d;
                return 0;
            }
        }
    }
    return fail(err, errlen, "unknown datatype in '%s' (int32, int64, float, double)", item);
}

static int add_op(const char *item, size_t len, options *opt, char *err, size_t errlen)
{
    char buf[32];
    if (copy_item(item, len, buf, sizeof buf) == 0) {
        for (int o = 0; o < OP_COUNT; o++) {
            if (strcmp(buf, op_names[o]) == 0 && opt->nops < OP_COUNT) {
                opt->ops[opt->nops++] = (op_id)o;
                return 0;
            }
        }
    }
    return fail(err, errlen, "unknown op in '%s' (sum, prod, max, min, first_nonzero)", item);
}

static int add_root(const char *item, size_t len, options *opt, char *err, size_t errlen)
{
    char buf[32];
    long long v;
    if (copy_item(item, len, buf, sizeof buf) != 0 || parse_ll(buf, &v) != 0 || v < 0 ||
        v > 1000000000)
        return fail(err, errlen, "malformed root '%s' (a rank number expected)", item);
    if (opt->nroots == OPTIONS_MAX_ROOTS)
        return fail(err, errlen, "%s", "too many roots (at most 64)");
    opt->roots[opt->nroots++] = (int)v;
    return 0;
}

int options_parse(int argc, char **argv, options *opt, char *err, size_t errlen)
{
    memset(opt, 0, sizeof *opt);
    opt->mode = MODE_MEASURE;
    opt->seed = 1;
    opt->dist = DIST_UNIFORM;
    opt->reps = 1;
    opt->check = 1;
    opt->gamma_s_per_byte = -1.0;
    opt->peer = 1;

    for (int i = 1; i < argc; i++) {
        const char *arg = argv[i];
        const char *value = (i + 1 < argc) ? argv[i + 1] : NULL;
        long long v;
        int takes_value = 1;
        if (strcmp(arg, "--list") == 0) {
            opt->mode = MODE_LIST;
            takes_value = 0;
        } else if (strcmp(arg, "--json") == 0) {
            opt->json = 1;
            takes_value = 0;
        } else if (strcmp(arg, "--dump-inputs") == 0) {
            opt->mode = MODE_DUMP_INPUTS;
            takes_value = 0;
        } else if (strcmp(arg, "--native") == 0) {
            opt->mode = MODE_NATIVE;
            takes_value = 0;
        } else if (strcmp(arg, "--native-choice") == 0) {
            opt->mode = MODE_NATIVE_CHOICE;
            takes_value = 0;
        } else if (strcmp(arg, "--pingpong") == 0) {
            opt->mode = MODE_PINGPONG;
            takes_value = 0;
        } else if (strcmp(arg, "--no-check") == 0) {
            opt->check = 0;
            takes_value = 0;
        } else if (strcmp(arg, "--timing-only") == 0) {
            opt->timing_only = 1;
            opt->check = 0;
            takes_value = 0;
        } else if (strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0) {
            opt->mode = MODE_HELP;
            takes_value = 0;
        } else if (value == NULL) {
            if (strncmp(arg, "--", 2) != 0)
                return fail(err, errlen, "unexpected argument '%s'", arg);
            return fail(err, errlen, "option %s needs a value (or is unknown)", arg);
        } else if (strcmp(arg, "--dump-tree") == 0) {
            opt->mode = MODE_DUMP_TREE;
            opt->tree_kind = value;
        } else if (strcmp(arg, "--np") == 0) {
            if (parse_ll(value, &v) != 0 || v < 1 || v > 1000000)
                return fail(err, errlen, "malformed tree size '%s' (1..1000000)", value);
            opt->tree_np = (int)v;
        } else if (strcmp(arg, "--coll") == 0) {
            opt->collective = value;
        } else if (strcmp(arg, "--alg") == 0) {
            opt->algorithm = value;
        } else if (strcmp(arg, "--bytes") == 0) {
            if (for_each_item(value, add_size, opt, err, errlen) != 0)
                return -1;
        } else if (strcmp(arg, "--count") == 0) {
            if (for_each_item(value, add_count, opt, err, errlen) != 0)
                return -1;
        } else if (strcmp(arg, "--dtype") == 0) {
            if (for_each_item(value, add_dtype, opt, err, errlen) != 0)
                return -1;
        } else if (strcmp(arg, "--op") == 0) {
            if (for_each_item(value, add_op, opt, err, errlen) != 0)
                return -1;
        } else if (strcmp(arg, "--root") == 0) {
            if (for_each_item(value, add_root, opt, err, errlen) != 0)
                return -1;
        } else if (strcmp(arg, "--dist") == 0) {
            int found = 0;
            for (int d = 0; d < DIST_COUNT; d++) {
                if (strcmp(value, dist_names[d]) == 0) {
                    opt->dist = (dist_id)d;
                    found = 1;
                }
            }
            if (!found)
                return fail(err, errlen, "unknown distribution '%s' (uniform, lognormal, illcond)",
                            value);
        } else if (strcmp(arg, "--seed") == 0) {
            if (parse_ll(value, &v) != 0 || v < 0)
                return fail(err, errlen, "malformed seed '%s'", value);
            opt->seed = (uint64_t)v;
        } else if (strcmp(arg, "--reps") == 0) {
            if (parse_ll(value, &v) != 0 || v < 1 || v > 1000000)
                return fail(err, errlen, "malformed repetition count '%s' (>= 1)", value);
            opt->reps = (int)v;
        } else if (strcmp(arg, "--peer") == 0) {
            if (parse_ll(value, &v) != 0 || v < 1 || v > 1000000000)
                return fail(err, errlen, "malformed peer rank '%s' (>= 1)", value);
            opt->peer = (int)v;
        } else if (strcmp(arg, "--segment-bytes") == 0) {
            if (parse_ll(value, &v) != 0 || v < 0)
                return fail(err, errlen, "malformed segment size '%s'", value);
            opt->segment_bytes = v;
        } else if (strcmp(arg, "--blocks") == 0) {
            if (parse_ll(value, &v) != 0 || v < 0 || v > 0x7fffffffLL)
                return fail(err, errlen, "malformed block count '%s' (0 = default)", value);
            opt->block_count = (int)v;
        } else if (strcmp(arg, "--groups") == 0) {
            if (parse_ll(value, &v) != 0 || v < 0 || v > 0x7fffffffLL)
                return fail(err, errlen, "malformed group count '%s' (0 = default)", value);
            opt->group_count = (int)v;
        } else if (strcmp(arg, "--node-size") == 0) {
            if (parse_ll(value, &v) != 0 || v < 0 || v > 0x7fffffffLL)
                return fail(err, errlen, "malformed node size '%s' (0 = the real node)", value);
            opt->node_size = (int)v;
        } else if (strcmp(arg, "--contributors") == 0) {
            if (parse_ll(value, &v) != 0 || v < 1 || v > 1000000)
                return fail(err, errlen, "malformed contributor count '%s' (>= 1)", value);
            opt->contributors = (int)v;
        } else if (strcmp(arg, "--inner") == 0) {
            opt->inner_algorithm = value;
        } else if (strcmp(arg, "--outer") == 0) {
            opt->outer_algorithm = value;
        } else if (strcmp(arg, "--alpha-over-beta-bytes") == 0) {
            char *end;
            errno = 0;
            double r = strtod(value, &end);
            if (errno != 0 || end == value || *end != '\0' || !(r >= 0.0) || r > 1e300)
                return fail(err, errlen, "malformed alpha/beta ratio '%s' (bytes, >= 0)", value);
            opt->alpha_over_beta_bytes = r;
        } else if (strcmp(arg, "--gamma-s-per-byte") == 0) {
            char *end;
            errno = 0;
            double g = strtod(value, &end);
            if (errno != 0 || end == value || *end != '\0' || !(g >= 0.0))
                return fail(err, errlen, "malformed gamma '%s' (seconds per byte, >= 0)", value);
            opt->gamma_s_per_byte = g;
        } else {
            return fail(err, errlen, "unknown option '%s'", arg);
        }
        if (takes_value)
            i++;
    }

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

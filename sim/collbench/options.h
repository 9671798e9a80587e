/*
 * options.h: collbench's command line.  The parser keeps no state outside
 * the struct it fills (no getopt: under SMPI without privatization every rank
 * parses in the same process).
 */
#ifndef COLLBENCH_OPTIONS_H
#define COLLBENCH_OPTIONS_H

#include "datagen.h"

#include <stddef.h>
#include <stdint.h>

#define OPTIONS_MAX_SIZES 64
#define OPTIONS_MAX_ROOTS 64

typedef enum {
    MODE_MEASURE,
    MODE_LIST,
    MODE_PINGPONG,
    MODE_DUMP_INPUTS,
    MODE_DUMP_TREE,
    MODE_NATIVE,        /* --native: the mapping of algorithms/native.def */
    MODE_NATIVE_CHOICE, /* --native-choice: what a selector picks, without running */
    MODE_HELP
} run_mode;

typedef struct options {
    run_mode mode;
    int json;                    /* --list output as JSON Lines */
    const char *collective;      /* --coll */
    const char *algorithm;       /* --alg */
    long long bytes[OPTIONS_MAX_SIZES];  /* --bytes: sizes per rank in bytes */
    int nbytes;
    long long counts[OPTIONS_MAX_SIZES]; /* --count: sizes in elements (instead of --bytes) */
    int ncounts;
    dtype_id dtypes[DTYPE_COUNT];
    int ndtypes;
    op_id ops[OP_COUNT];
    int nops;
    int roots[OPTIONS_MAX_ROOTS];
    int nroots;
    uint64_t seed;
    dist_id dist;                /* --dist: distribution of floating-point inputs */
    int reps;
    int check;                   /* 0 with --no-check or --timing-only */
    int timing_only;             /* --timing-only: shared buffers, no data, no check */
    double gamma_s_per_byte;     /* < 0: take it from the platform */
    long long segment_bytes;     /* --segment-bytes */
    int block_count;             /* --blocks */
    double alpha_over_beta_bytes; /* --alpha-over-beta-bytes (0: nominal) */
    int group_count;             /* --groups */
    const char *inner_algorithm; /* --inner */
    const char *outer_algorithm; /* --outer */
    int node_size;               /* --node-size */
    int contributors;            /* --contributors (0: one per rank) */
    int peer;                    /* --pingpong partner of rank 0 */
    const char *tree_kind;       /* --dump-tree KIND */
    int tree_np;                 /* --np: ranks in the dumped tree */
} options;

/* Fills opt from argv.  Returns 0, or -1 with a one-line reason in err. */
int options_parse(int argc, char **argv, options *opt, char *err, size_t errlen);

extern const char options_usage[];

#endif

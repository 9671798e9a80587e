/*
 * options.h: collbench's command line, parsed by getopt_long from one table
 * (options.c) that also writes the usage text.  Under SMPI without
 * privatization every rank parses in the same process: getopt's globals are
 * reset before each parse, and a parse never yields to another rank (it makes
 * no MPI call), so the ranks parse one after the other.
 */
#ifndef COLLBENCH_OPTIONS_H
#define COLLBENCH_OPTIONS_H

#include "collsim.h"
#include "datagen.h"

#include <stddef.h>
#include <stdio.h>
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
    /* --gamma-s-per-byte (< 0: take it from the platform), --segment-bytes,
     * --blocks, --alpha-over-beta-bytes, --groups, --inner, --outer,
     * --node-size, --timing-only: parsed straight into the struct the
     * algorithms read (contributors: see below). */
    collsim_params params;
    int contributors;            /* --contributors (0: one per rank) */
    int peer;                    /* --pingpong partner of rank 0 */
    const char *tree_kind;       /* --dump-tree KIND */
    int tree_np;                 /* --np: ranks in the dumped tree */
} options;

/* The environment variable that can hold the command line instead of argv,
 * one argument a line (collsim's harness passes it so): SMPI keeps a copy
 * of argv for every rank, about 100 bytes an argument, 36 MB for collsim's
 * 22 arguments at 16384 ranks; the environment is the process's, one copy. */
#define OPTIONS_ENVIRONMENT "COLLBENCH_ARGS"

/* With argv holding the program's name alone and $COLLBENCH_ARGS set: a new
 * argv (the name, then one argument per line of the variable, then NULL) in
 * one allocation for free(), and its length in *nargs.  Otherwise NULL, with
 * *nargs 0 (argv is the command line), or -1 when out of memory. */
char **options_environment_argv(int argc, char **argv, int *nargs);

/* Fills opt from argv.  Returns 0, or -1 with a one-line reason in err. */
int options_parse(int argc, char **argv, options *opt, char *err, size_t errlen);

/* Writes the usage text, generated from the option table, to out. */
void options_usage(FILE *out);

#endif

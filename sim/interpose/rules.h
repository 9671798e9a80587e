/*
 * rules.h: the rules file that tells the interposition library which collsim
 * algorithm takes which call.  The format is defined once, in
 * sim/collsim/rules.py (its docstring is the reference); this is its C reader.
 *
 *   collsim-rules 1
 *   # collective  algorithm  [np=LO-HI] [bytes=LO-HI] [parameter=value ...]
 *   allreduce  recursive_doubling  bytes=0-65535
 *   allreduce  ring
 *   bcast      pipeline  np=8-  segment_bytes=32768
 *   alltoall   bruck     bytes=0-1023
 *   reduce     mpi
 *
 * The first rule of a collective (collectives.def) whose ranges hold the
 * call's process count and the bytes of one block (a row's bytes) takes the
 * call; "mpi" is the MPI library's own algorithm.
 */
#ifndef COLLSIM_INTERPOSE_RULES_H
#define COLLSIM_INTERPOSE_RULES_H

#include "collsim.h"

#include <stddef.h>

#define COLLSIM_RULES_VERSION_LINE "collsim-rules 1"

typedef struct collsim_rule {
    collsim_collective collective;
    const collsim_algorithm *algorithm; /* NULL: the MPI library's own ("mpi") */
    long long np_min, np_max;           /* inclusive; np_max -1: no upper bound */
    long long bytes_min, bytes_max;     /* inclusive; bytes_max -1: no upper bound */
    collsim_params params;              /* as given; gamma and alpha/beta filled at run time */
    /* storage for the NAME parameters (inner_algorithm, ...), by params.def index */
    char names[COLLSIM_PARAMETER_COUNT][COLLSIM_NAME_MAX];
    int line;                           /* line number in the file */
} collsim_rule;

typedef struct collsim_rules {
    collsim_rule *rules;
    size_t count;
    int has_collective[COLLSIM_COLLECTIVE_COUNT]; /* by collsim_collective: any rule for it */
} collsim_rules;

/* Reads path into *out.  Returns 0, or -1 with a sentence "PATH:LINE: what is
 * wrong" in err. */
int collsim_rules_read(const char *path, collsim_rules *out, char *err, size_t errlen);

/* The first rule for (collective, np, bytes), or NULL when none holds them. */
const collsim_rule *collsim_rules_match(const collsim_rules *rules, collsim_collective collective,
                                        long long np, long long bytes);

void collsim_rules_free(collsim_rules *rules);

#endif /* COLLSIM_INTERPOSE_RULES_H */

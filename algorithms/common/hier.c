/*
 * hier.c: what the two-level algorithms share: their group counts, the
 * algorithms they run inside and between groups, the check of both against
 * their restrictions; and what every algorithm that runs others uses: the
 * creation and release of sub-communicators and the parameters passed to a
 * sub-algorithm.  A rank's node is nodes.c's.
 *
 * A two-level algorithm never substitutes an algorithm for another: an
 * inner or outer algorithm that is unknown, of another collective, itself
 * two-level, or whose restrictions the groups violate is an error naming it.
 */
#include "common/internal.h"
#include "common/hier.h"
#include "common/prerounding.h"

#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* The defaults of the composite algorithms, the one place that keeps them
 * (see reduce_hierarchical.c and allreduce_hierarchical.c for why these).
 * inner: used when no inner algorithm is given (for `hierarchical`: when
 * neither is given; one given serves both levels); outer: NULL = the inner. */
static const struct composite {
    collsim_collective collective;
    const char *algorithm;
    const char *inner, *outer;
    int inner_from_outer; /* a given outer algorithm is the inner one too */
} composites[] = {
    {COLLSIM_ALLREDUCE, "hierarchical", "recursive_doubling", NULL, 1},
    {COLLSIM_REDUCE, "hierarchical", "linear", NULL, 1},
    {COLLSIM_ALLREDUCE, "prerounded", "recursive_doubling", NULL, 0},
    {COLLSIM_REDUCE, "prerounded", "binomial", "recursive_doubling", 0},
};

int collsim_composite_names(const collsim_algorithm *alg, const collsim_params *params,
                            const char **inner, const char **outer)
{
    *inner = *outer = NULL;
    for (size_t i = 0; i < sizeof composites / sizeof composites[0]; i++) {
        const struct composite *c = &composites[i];
        if (c->collective != alg->collective || strcmp(c->algorithm, alg->name) != 0)
            continue;
        *inner = params->inner_algorithm                          ? params->inner_algorithm
                 : c->inner_from_outer && params->outer_algorithm ? params->outer_algorithm
                                                                  : c->inner;
        *outer = params->outer_algorithm ? params->outer_algorithm
                 : c->outer              ? c->outer
                                         : *inner;
        return 0;
    }
    return -1;
}

int collsim_hier_group_count(collsim_collective coll, int size, const collsim_params *params)
{
    if (params->group_count > 0)
        return params->group_count;
    /* seed 004 (9): the flat and pipelined transforms are fastest at
     * G = sqrt(p); allreduce needs equal groups, so a divisor of p. */
    const double root = sqrt((double)size);
    if (coll == COLLSIM_REDUCE) {
        int g = (int)floor(root + 0.5);
        return g < 1 ? 1 : g;
    }
    int best = 1;
    for (int g = 1; g <= size; g++)
        if (size % g == 0 && fabs(g - root) < fabs(best - root))
            best = g;
    return best;
}

void collsim_sub_params(const collsim_algorithm *sub, const collsim_params *params,
                        collsim_params *out)
{
    memset(out, 0, sizeof *out);
    out->gamma_s_per_byte = params->gamma_s_per_byte;
    out->timing_only = params->timing_only;
    if (sub->parameters & COLLSIM_PARAM_SEGMENTS) {
        out->segment_bytes = params->segment_bytes;
        out->block_count = params->block_count;
    }
}

/* Looks up one level's algorithm and checks it on every group size in
 * [smallest, largest]; writes the problem into why. */
static const collsim_algorithm *level_algorithm(const collsim_algorithm *alg, const char *role,
                                                const char *name, int smallest, int largest,
                                                int op_is_commutative, char *why, size_t len)
{
    const collsim_algorithm *sub = collsim_find_algorithm(alg->collective_name, name);
    if (sub == NULL) {
        snprintf(why, len, "has no %s algorithm '%s' (collbench --list shows the %s algorithms)",
                 role, name, alg->collective_name);
        return NULL;
    }
    if (sub->parameters & (COLLSIM_PARAM_GROUPS | COLLSIM_PARAM_INNER_OUTER |
                           COLLSIM_PARAM_NODE_SIZE)) {
        snprintf(why, len, "cannot use the two-level %s/%s as its %s algorithm",
                 sub->collective_name, sub->name, role);
        return NULL;
    }
    for (int q = smallest; q <= largest; q++) {
        if (q < 2)
            continue; /* a level of one process runs nothing */
        const char *r = collsim_check_restrictions(sub, q, op_is_commutative);
        if (r != NULL) {
            snprintf(why, len, "%s algorithm %s/%s %s (on %d processes)", role,
                     sub->collective_name, sub->name, r, q);
            return NULL;
        }
    }
    return sub;
}

int collsim_hier_levels(const collsim_algorithm *alg, int size, int op_is_commutative,
                        const collsim_params *params, const collsim_algorithm **inner,
                        const collsim_algorithm **outer, char *why, size_t len)
{
    const char *inner_name, *outer_name;
    const int groups = collsim_hier_group_count(alg->collective, size, params);
    why[0] = '\0';
    if (groups > size) {
        snprintf(why, len, "has %d groups but only %d processes (the group count must be 1..p)",
                 groups, size);
        return -1;
    }
    if (alg->collective == COLLSIM_ALLREDUCE && size % groups != 0) {
        snprintf(why, len, "needs a group count that divides p (%d groups, %d processes)", groups,
                 size);
        return -1;
    }
    collsim_composite_names(alg, params, &inner_name, &outer_name);
    const int smallest = size / groups, largest = (size + groups - 1) / groups;
    *inner = level_algorithm(alg, "inner", inner_name, groups == size ? 1 : smallest,
                             groups == size ? 1 : largest, op_is_commutative, why, len);
    if (*inner == NULL)
        return -1;
    *outer = level_algorithm(alg, "outer", outer_name, groups, groups, op_is_commutative, why,
                             len);
    if (*outer == NULL)
        return -1;
    if ((params->segment_bytes || params->block_count) &&
        !(((*inner)->parameters | (*outer)->parameters) & COLLSIM_PARAM_SEGMENTS)) {
        snprintf(why, len, "was given a segment size but neither %s nor %s takes one",
                 (*inner)->name, (*outer)->name);
        return -1;
    }
    return 0;
}

int collsim_hier_prepare(collsim_collective coll, MPI_Comm comm, MPI_Datatype datatype, MPI_Op op,
                         const collsim_params *params, collsim_hier_setup *setup)
{
    int rc, commutative;
    MPI_Aint lb;
    char why[256];
    const collsim_algorithm *self =
        collsim_find_algorithm(coll == COLLSIM_ALLREDUCE ? "allreduce" : "reduce", "hierarchical");

    if ((rc = MPI_Comm_rank(comm, &setup->rank)) != MPI_SUCCESS ||
        (rc = MPI_Comm_size(comm, &setup->size)) != MPI_SUCCESS ||
        (rc = MPI_Op_commutative(op, &commutative)) != MPI_SUCCESS ||
        (rc = MPI_Type_get_extent(datatype, &lb, &setup->extent)) != MPI_SUCCESS)
        return rc;
    if (self == NULL || collsim_hier_levels(self, setup->size, commutative, params, &setup->inner,
                                            &setup->outer, why, sizeof why) != 0)
        return MPI_ERR_ARG;
    collsim_sub_params(setup->inner, params, &setup->inner_params);
    collsim_sub_params(setup->outer, params, &setup->outer_params);
    setup->groups = collsim_hier_group_count(coll, setup->size, params);
    return MPI_SUCCESS;
}

const char *collsim_check_composition(const collsim_algorithm *alg, int comm_size,
                                      int op_is_commutative, const collsim_params *params,
                                      char *buf, size_t len)
{
    if (alg->parameters & COLLSIM_PARAM_GROUPS) {
        const collsim_algorithm *inner, *outer;
        if (collsim_hier_levels(alg, comm_size, op_is_commutative, params, &inner, &outer, buf,
                                len) != 0)
            return buf;
    }
    if (collsim_is_prerounded(alg) &&
        collsim_preround_levels(alg->collective, comm_size, params, NULL, NULL, buf, len) != 0)
        return buf;
    return NULL;
}

/* Frees the groups of a cleanup path that were made. */
static void free_groups(MPI_Group *a, MPI_Group *b)
{
    if (*a != MPI_GROUP_NULL)
        MPI_Group_free(a);
    if (*b != MPI_GROUP_NULL)
        MPI_Group_free(b);
}

int collsim_create_subcomm(MPI_Comm comm, const int *ranks, int n, int tag, MPI_Comm *sub)
{
    int rc = MPI_SUCCESS;
    MPI_Group world = MPI_GROUP_NULL, group = MPI_GROUP_NULL;
    *sub = MPI_COMM_NULL;
    if (n < 2)
        return MPI_SUCCESS;
    COLLSIM_CHECK(MPI_Comm_group(comm, &world));
    COLLSIM_CHECK(MPI_Group_incl(world, n, ranks, &group));
    COLLSIM_CHECK(MPI_Comm_create_group(comm, group, tag, sub));
cleanup:
    free_groups(&group, &world);
    return rc;
}

void collsim_comm_release(MPI_Comm *comm)
{
    if (*comm != MPI_COMM_NULL)
        MPI_Comm_free(comm);
}

void collsim_plain_params(const collsim_params *params, collsim_params *out)
{
    memset(out, 0, sizeof *out);
    out->gamma_s_per_byte = params->gamma_s_per_byte;
    out->timing_only = params->timing_only;
}

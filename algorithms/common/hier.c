/*
 * hier.c: what the two-level algorithms share: their group counts, the
 * algorithms they run inside and between groups, the check of both against
 * their restrictions, and the creation of the sub-communicators.
 *
 * A two-level algorithm never substitutes an algorithm for another: an
 * inner or outer algorithm that is unknown, of another collective, itself
 * two-level, or whose restrictions the groups violate is an error naming it.
 */
#include "common/internal.h"

#include <math.h>
#include <stdio.h>

/* Default algorithms inside and between groups of `hierarchical` (see
 * reduce_hierarchical.c and allreduce_hierarchical.c for why). */
static const char *default_inner(collsim_collective coll)
{
    return coll == COLLSIM_REDUCE ? "linear" : "recursive_doubling";
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

void collsim_hier_names(collsim_collective coll, const collsim_params *params,
                        const char **inner, const char **outer)
{
    *inner = params->inner_algorithm ? params->inner_algorithm
             : params->outer_algorithm ? params->outer_algorithm
                                       : default_inner(coll);
    *outer = params->outer_algorithm ? params->outer_algorithm : *inner;
}

void collsim_sub_params(const collsim_algorithm *sub, const collsim_params *params,
                        collsim_params *out)
{
    memset(out, 0, sizeof *out);
    out->gamma_s_per_byte = params->gamma_s_per_byte;
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
    collsim_hier_names(alg->collective, params, &inner_name, &outer_name);
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
    if ((alg->parameters & COLLSIM_PARAM_NODE_SIZE) && params->node_size > comm_size) {
        snprintf(buf, len, "has node size %d but only %d processes", params->node_size,
                 comm_size);
        return buf;
    }
    return NULL;
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
    if (group != MPI_GROUP_NULL)
        MPI_Group_free(&group);
    if (world != MPI_GROUP_NULL)
        MPI_Group_free(&world);
    return rc;
}

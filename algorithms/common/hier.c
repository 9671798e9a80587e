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
#include "common/prerounding.h"

#include <math.h>
#include <stdio.h>

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

int collsim_node_split(MPI_Comm comm, int root, int node_size, collsim_nodes *nodes)
{
    int rc = MPI_SUCCESS, rank, size;
    MPI_Group world = MPI_GROUP_NULL, local = MPI_GROUP_NULL;
    int *members = NULL, *world_ranks = NULL;

    nodes->node = MPI_COMM_NULL;
    nodes->leaders = MPI_COMM_NULL;
    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));

    if (node_size > 0) {
        /* exposed nodes: k consecutive ranks each; leaders in node order */
        const int node = rank / node_size, first = node * node_size;
        const int n = (first + node_size <= size ? node_size : size - first);
        const int count = (size + node_size - 1) / node_size;
        members = malloc((size_t)(n > count ? n : count) * sizeof *members);
        if (members == NULL) {
            rc = MPI_ERR_NO_MEM;
            goto cleanup;
        }
        for (int i = 0; i < n; i++)
            members[i] = first + i;
        COLLSIM_CHECK(collsim_create_subcomm(comm, members, n, COLLSIM_TAG_INNER_COMM,
                                             &nodes->node));
        nodes->node_size = n;
        nodes->node_rank = rank - first;
        nodes->leader_in_node = 0;
        nodes->root_in_node = (root >= first && root < first + n) ? root - first : -1;
        nodes->is_leader = rank == first;
        nodes->node_count = count;
        nodes->root_node = root >= 0 ? root / node_size : 0;
        nodes->leaders_made = 0;
    } else {
        /* real nodes: SMPI groups by host and ignores the key, so the
         * members' ranks in comm are looked up rather than assumed */
        COLLSIM_CHECK(MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL,
                                          &nodes->node));
        COLLSIM_CHECK(MPI_Comm_size(nodes->node, &nodes->node_size));
        COLLSIM_CHECK(MPI_Comm_rank(nodes->node, &nodes->node_rank));
        const int n = nodes->node_size;
        members = malloc((size_t)n * sizeof *members);
        world_ranks = malloc((size_t)n * sizeof *world_ranks);
        if (members == NULL || world_ranks == NULL) {
            rc = MPI_ERR_NO_MEM;
            goto cleanup;
        }
        for (int i = 0; i < n; i++)
            members[i] = i;
        COLLSIM_CHECK(MPI_Comm_group(comm, &world));
        COLLSIM_CHECK(MPI_Comm_group(nodes->node, &local));
        COLLSIM_CHECK(MPI_Group_translate_ranks(local, n, members, world, world_ranks));
        nodes->leader_in_node = 0;
        nodes->root_in_node = -1;
        for (int i = 0; i < n; i++) {
            if (world_ranks[i] < world_ranks[nodes->leader_in_node])
                nodes->leader_in_node = i;
            if (world_ranks[i] == root)
                nodes->root_in_node = i;
        }
        nodes->is_leader = nodes->node_rank == nodes->leader_in_node;
        /* The leaders learn of each other only by communicating: one
         * MPI_Comm_split over comm.  The root's node's leader gets key -1, so
         * it is rank 0 of the leaders. */
        COLLSIM_CHECK(MPI_Comm_split(comm, nodes->is_leader ? 0 : MPI_UNDEFINED,
                                     nodes->root_in_node >= 0 ? -1 : rank, &nodes->leaders));
        nodes->node_count = -1; /* only the leaders know it */
        if (nodes->leaders != MPI_COMM_NULL)
            COLLSIM_CHECK(MPI_Comm_size(nodes->leaders, &nodes->node_count));
        nodes->root_node = 0;
        nodes->leaders_made = 1;
    }

cleanup:
    free_groups(&local, &world);
    free(members);
    free(world_ranks);
    return rc;
}

int collsim_node_leaders(MPI_Comm comm, int node_size, collsim_nodes *nodes)
{
    int rc = MPI_SUCCESS, size;
    int *members = NULL;
    if (nodes->leaders_made || !nodes->is_leader)
        return MPI_SUCCESS;
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    members = malloc((size_t)nodes->node_count * sizeof *members);
    if (members == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < nodes->node_count; i++)
        members[i] = i * node_size;
    COLLSIM_CHECK(collsim_create_subcomm(comm, members, nodes->node_count,
                                         COLLSIM_TAG_OUTER_COMM, &nodes->leaders));
    nodes->leaders_made = 1;
cleanup:
    free(members);
    return rc;
}

void collsim_node_free(collsim_nodes *nodes)
{
    if (nodes->node != MPI_COMM_NULL)
        MPI_Comm_free(&nodes->node);
    if (nodes->leaders != MPI_COMM_NULL)
        MPI_Comm_free(&nodes->leaders);
}

const collsim_algorithm *collsim_mpich_reduce(long long bytes, int size)
{
    const int power_of_two = (size & (size - 1)) == 0;
    return collsim_find_algorithm("reduce",
                                  bytes < 2048 || !power_of_two ? "binomial" : "rabenseifner");
}

const collsim_algorithm *collsim_mpich_allreduce(long long bytes, int count, int size)
{
    return collsim_find_algorithm("allreduce",
                                  bytes < 2048 || count < collsim_pow2_floor(size)
                                      ? "recursive_doubling"
                                      : "rabenseifner");
}

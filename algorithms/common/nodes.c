/*
 * nodes.c: a rank's node, the one meaning of "node" in collsim: the
 * node-aware algorithms' nodes and leaders (collsim_node_split) and
 * fixed_order's node members (collsim_node_members) both come from
 * real_node_comm or, with params->node_size k, from k consecutive ranks;
 * and MPICH's choice of the flat algorithm at each level of node_aware.
 */
#include "common/internal.h"
#include "common/hier.h"
#include "common/nodes.h"

#include <stdlib.h>

#ifdef COLLSIM_SMPI
#include <simgrid/host.h>
#endif

/* The ranks' real node, as a communicator: SMPI's MPI_Comm_split_type(SHARED)
 * groups the ranks of a SimGrid host (no simulated cost); where a node is
 * several hosts (collsim's multicore platforms: one host per socket, each
 * carrying the properties "node" and "socket"), the ranks are split by the
 * host's "node" instead, an MPI_Comm_split of comm. */
static int real_node_comm(MPI_Comm comm, int rank, MPI_Comm *node)
{
#ifdef COLLSIM_SMPI
    const char *node_id = sg_host_get_property_value(sg_host_self(), "node");
    if (node_id != NULL && sg_host_get_property_value(sg_host_self(), "socket") != NULL)
        return MPI_Comm_split(comm, atoi(node_id), rank, node);
#endif
    return MPI_Comm_split_type(comm, MPI_COMM_TYPE_SHARED, rank, MPI_INFO_NULL, node);
}

/* The world ranks (ranks in comm) of the members of node, in node order. */
static int node_world_ranks(MPI_Comm comm, MPI_Comm node, int n, int *world_ranks)
{
    int rc = MPI_SUCCESS;
    MPI_Group world = MPI_GROUP_NULL, local = MPI_GROUP_NULL;
    int *members = malloc((size_t)n * sizeof *members);
    if (members == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < n; i++)
        members[i] = i;
    COLLSIM_CHECK(MPI_Comm_group(comm, &world));
    COLLSIM_CHECK(MPI_Comm_group(node, &local));
    COLLSIM_CHECK(MPI_Group_translate_ranks(local, n, members, world, world_ranks));
cleanup:
    if (local != MPI_GROUP_NULL)
        MPI_Group_free(&local);
    if (world != MPI_GROUP_NULL)
        MPI_Group_free(&world);
    free(members);
    return rc;
}

/* Finds the calling rank's node (node size k: k consecutive ranks; 0: the real
 * node) and makes its communicator: nodes->node, node_size, node_rank,
 * leader_in_node (the member lowest in comm), is_leader and, for exposed
 * nodes, node_count (-1 for real nodes: only the leaders learn it).
 * *world_ranks (malloc'd, the caller frees it): the members' ranks in comm,
 * in node order, looked up for real nodes (SMPI groups by host and ignores
 * the key). */
static int find_node(MPI_Comm comm, int rank, int size, int k, collsim_nodes *nodes,
                     int **world_ranks)
{
    int rc = MPI_SUCCESS;
    if (k > 0) {
        const int first = rank / k * k, n = first + k <= size ? k : size - first;
        *world_ranks = malloc((size_t)n * sizeof **world_ranks);
        if (*world_ranks == NULL)
            return MPI_ERR_NO_MEM;
        for (int i = 0; i < n; i++)
            (*world_ranks)[i] = first + i;
        COLLSIM_CHECK(collsim_create_subcomm(comm, *world_ranks, n, COLLSIM_TAG_INNER_COMM,
                                             &nodes->node));
        nodes->node_size = n;
        nodes->node_rank = rank - first;
        nodes->leader_in_node = 0;
        nodes->node_count = (size + k - 1) / k;
    } else {
        COLLSIM_CHECK(real_node_comm(comm, rank, &nodes->node));
        COLLSIM_CHECK(MPI_Comm_size(nodes->node, &nodes->node_size));
        COLLSIM_CHECK(MPI_Comm_rank(nodes->node, &nodes->node_rank));
        const int n = nodes->node_size;
        *world_ranks = malloc((size_t)n * sizeof **world_ranks);
        if (*world_ranks == NULL)
            return MPI_ERR_NO_MEM;
        COLLSIM_CHECK(node_world_ranks(comm, nodes->node, n, *world_ranks));
        nodes->leader_in_node = 0;
        for (int i = 0; i < n; i++)
            if ((*world_ranks)[i] < (*world_ranks)[nodes->leader_in_node])
                nodes->leader_in_node = i;
        nodes->node_count = -1;
    }
    nodes->is_leader = nodes->node_rank == nodes->leader_in_node;
cleanup:
    return rc;
}

int collsim_node_members(MPI_Comm comm, int node_size, int *members, int *count)
{
    int rc = MPI_SUCCESS, rank, size, n;
    MPI_Comm node = MPI_COMM_NULL;
    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    if (node_size > 0) {
        const int first = rank / node_size * node_size;
        *count = 0;
        for (int r = first; r < first + node_size && r < size; r++)
            members[(*count)++] = r;
        return MPI_SUCCESS;
    }
    COLLSIM_CHECK(real_node_comm(comm, rank, &node));
    COLLSIM_CHECK(MPI_Comm_size(node, &n));
    COLLSIM_CHECK(node_world_ranks(comm, node, n, members));
    /* ascending (SMPI's MPI_Comm_split_type ignores the key) */
    for (int i = 1; i < n; i++)
        for (int j = i; j > 0 && members[j - 1] > members[j]; j--) {
            const int t = members[j];
            members[j] = members[j - 1];
            members[j - 1] = t;
        }
    *count = n;
cleanup:
    if (node != MPI_COMM_NULL)
        MPI_Comm_free(&node);
    return rc;
}

/* The node rank of root among the n members world_ranks, -1 when elsewhere. */
static int root_in(const int *world_ranks, int n, int root)
{
    for (int i = 0; i < n; i++)
        if (world_ranks[i] == root)
            return i;
    return -1;
}

/* The leaders of exposed nodes of k ranks, count of them, by
 * MPI_Comm_create_group: called by the leaders only. */
static int exposed_leaders(MPI_Comm comm, int k, int count, MPI_Comm *leaders)
{
    int *members = malloc((size_t)count * sizeof *members);
    if (members == NULL)
        return MPI_ERR_NO_MEM;
    for (int i = 0; i < count; i++)
        members[i] = i * k;
    const int rc = collsim_create_subcomm(comm, members, count, COLLSIM_TAG_OUTER_COMM, leaders);
    free(members);
    return rc;
}

/* Made in every call (params->cached_comms 0): the layout of the first
 * version, whose cost the models count. */
static int node_split_per_call(MPI_Comm comm, int root, int k, collsim_nodes *nodes)
{
    int rc = MPI_SUCCESS, rank, size;
    int *world_ranks = NULL;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    COLLSIM_CHECK(find_node(comm, rank, size, k, nodes, &world_ranks));
    nodes->root_in_node = root_in(world_ranks, nodes->node_size, root);
    if (k > 0) {
        /* the leaders' communicator: later, collsim_node_leaders */
        nodes->root_node = root >= 0 ? root / k : 0;
        nodes->leaders_made = 0;
    } else {
        /* The leaders learn of each other only by communicating: one
         * MPI_Comm_split over comm.  The root's node's leader gets key -1, so
         * it is rank 0 of the leaders. */
        COLLSIM_CHECK(MPI_Comm_split(comm, nodes->is_leader ? 0 : MPI_UNDEFINED,
                                     nodes->root_in_node >= 0 ? -1 : rank, &nodes->leaders));
        if (nodes->leaders != MPI_COMM_NULL)
            COLLSIM_CHECK(MPI_Comm_size(nodes->leaders, &nodes->node_count));
        nodes->root_node = 0;
        nodes->leaders_made = 1;
    }

cleanup:
    free(world_ranks);
    return rc;
}

/* Made once per communicator (params->cached_comms 1): what does not depend
 * on the root, kept in a list on the communicator (an MPI attribute), one
 * entry per node size. */
typedef struct node_layout {
    struct node_layout *next;
    int node_size_param;  /* the key: params->node_size */
    collsim_nodes nodes;  /* root_in_node, root_node: unset */
    int *world_ranks;     /* the node's members' ranks in comm, node order */
    int *node_of;         /* real nodes, leaders only: the leaders' rank of every rank's node */
} node_layout;

/* The attribute: one list per rank of the communicator.  Under SMPI a
 * communicator such as MPI_COMM_WORLD is one object shared by its ranks (and
 * so are its attributes); under a real MPI each process has its own, with
 * only its own slot used. */
typedef struct node_layouts {
    int size;
    node_layout **by_rank;
} node_layouts;

static int layout_keyval = MPI_KEYVAL_INVALID;

static void layout_free(node_layout *layout)
{
    while (layout != NULL) {
        node_layout *next = layout->next;
        if (layout->nodes.node != MPI_COMM_NULL)
            MPI_Comm_free(&layout->nodes.node);
        if (layout->nodes.leaders != MPI_COMM_NULL)
            MPI_Comm_free(&layout->nodes.leaders);
        free(layout->world_ranks);
        free(layout->node_of);
        free(layout);
        layout = next;
    }
}

static int layout_delete(MPI_Comm comm, int keyval, void *value, void *extra)
{
    (void)comm;
    (void)keyval;
    (void)extra;
    node_layouts *all = value;
    for (int r = 0; r < all->size; r++)
        layout_free(all->by_rank[r]);
    free(all->by_rank);
    free(all);
    return MPI_SUCCESS;
}

/* The leaders of real nodes learn which leader holds any rank of comm:
 * layout->node_of, exchanged among the leaders only (an allgather over comm
 * costs SimGrid's solver more than the rest of the run) and around a ring of
 * them: each leader passes on the member list it received last, [leader,
 * members...], to the next one, so it talks to its two neighbours only.
 * SMPI's own MPI_Allgather(v) sends between every pair of leaders, and SimGrid
 * routes each pair on its own: 5.7 s of wall time for 128 leaders on
 * seed000_qdr320's routed zone, 17 s of a 1,024-rank run (no simulated time:
 * this is the untimed first call). */
static int leaders_exchange(node_layout *layout, int size)
{
    const collsim_nodes *nodes = &layout->nodes;
    const int count = nodes->node_count, n = nodes->node_size;
    int rc = MPI_SUCCESS, me;
    int *record = malloc((size_t)(size + 1) * sizeof *record);
    int *incoming = malloc((size_t)(size + 1) * sizeof *incoming);
    layout->node_of = malloc((size_t)size * sizeof *layout->node_of);
    if (record == NULL || incoming == NULL || layout->node_of == NULL) {
        rc = MPI_ERR_NO_MEM;
        goto cleanup;
    }
    COLLSIM_CHECK(MPI_Comm_rank(nodes->leaders, &me));
    record[0] = me;
    for (int j = 0; j < n; j++) {
        record[j + 1] = layout->world_ranks[j];
        layout->node_of[layout->world_ranks[j]] = me;
    }
    int length = n + 1;
    const int right = (me + 1) % count, left = (me + count - 1) % count;
    for (int step = 1; step < count; step++) {
        MPI_Status status;
        COLLSIM_CHECK(MPI_Sendrecv(record, length, MPI_INT, right, COLLSIM_TAG_LEADERS_EXCHANGE,
                                   incoming, size + 1, MPI_INT, left,
                                   COLLSIM_TAG_LEADERS_EXCHANGE, nodes->leaders, &status));
        COLLSIM_CHECK(MPI_Get_count(&status, MPI_INT, &length));
        for (int j = 1; j < length; j++)
            layout->node_of[incoming[j]] = incoming[0];
        int *passed = record;
        record = incoming;
        incoming = passed;
    }
cleanup:
    free(record);
    free(incoming);
    return rc;
}

/* Builds the layout of node size k on comm: every rank of comm takes part. */
static int layout_make(MPI_Comm comm, int k, node_layout *layout)
{
    int rc = MPI_SUCCESS, rank, size;
    collsim_nodes *nodes = &layout->nodes;
    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    COLLSIM_CHECK(find_node(comm, rank, size, k, nodes, &layout->world_ranks));
    if (k > 0) {
        if (nodes->is_leader)
            COLLSIM_CHECK(exposed_leaders(comm, k, nodes->node_count, &nodes->leaders));
    } else {
        /* leaders in the order of their ranks in comm */
        COLLSIM_CHECK(MPI_Comm_split(comm, nodes->is_leader ? 0 : MPI_UNDEFINED, rank,
                                     &nodes->leaders));
        if (nodes->leaders != MPI_COMM_NULL) {
            COLLSIM_CHECK(MPI_Comm_size(nodes->leaders, &nodes->node_count));
            COLLSIM_CHECK(leaders_exchange(layout, size));
        }
    }
    nodes->leaders_made = 1;
cleanup:
    return rc;
}

/* The cached layout of node size k on comm, made on first use. */
static int layout_find(MPI_Comm comm, int k, node_layout **out)
{
    int rc = MPI_SUCCESS, found = 0, rank, size;
    node_layouts *all = NULL;
    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    if (layout_keyval == MPI_KEYVAL_INVALID)
        COLLSIM_CHECK(MPI_Comm_create_keyval(MPI_COMM_NULL_COPY_FN, layout_delete,
                                             &layout_keyval, NULL));
    COLLSIM_CHECK(MPI_Comm_get_attr(comm, layout_keyval, &all, &found));
    if (!found) {
        all = malloc(sizeof *all);
        if (all == NULL)
            return MPI_ERR_NO_MEM;
        all->size = size;
        all->by_rank = calloc((size_t)size, sizeof *all->by_rank);
        if (all->by_rank == NULL) {
            free(all);
            return MPI_ERR_NO_MEM;
        }
        COLLSIM_CHECK(MPI_Comm_set_attr(comm, layout_keyval, all));
    }
    for (node_layout *l = all->by_rank[rank]; l != NULL; l = l->next)
        if (l->node_size_param == k) {
            *out = l;
            return MPI_SUCCESS;
        }
    node_layout *layout = calloc(1, sizeof *layout);
    if (layout == NULL)
        return MPI_ERR_NO_MEM;
    layout->node_size_param = k;
    layout->nodes.node = layout->nodes.leaders = MPI_COMM_NULL;
    rc = layout_make(comm, k, layout);
    if (rc != MPI_SUCCESS) {
        layout_free(layout);
        return rc;
    }
    layout->next = all->by_rank[rank];
    all->by_rank[rank] = layout;
    *out = layout;
cleanup:
    return rc;
}

int collsim_node_split(MPI_Comm comm, int root, const collsim_params *params,
                       collsim_nodes *nodes)
{
    nodes->node = MPI_COMM_NULL;
    nodes->leaders = MPI_COMM_NULL;
    nodes->cached = 0;
    if (!params->cached_comms)
        return node_split_per_call(comm, root, params->node_size, nodes);
    node_layout *layout = NULL;
    int rc = layout_find(comm, params->node_size, &layout);
    if (rc != MPI_SUCCESS)
        return rc;
    *nodes = layout->nodes;
    nodes->cached = 1;
    nodes->root_in_node = root_in(layout->world_ranks, nodes->node_size, root);
    /* the root's node among the leaders: known to the leaders, who need it */
    nodes->root_node = root < 0                   ? 0
                       : params->node_size > 0    ? root / params->node_size
                       : layout->node_of != NULL  ? layout->node_of[root]
                                                  : 0;
    return MPI_SUCCESS;
}

int collsim_node_leaders(MPI_Comm comm, int node_size, collsim_nodes *nodes)
{
    if (nodes->leaders_made || !nodes->is_leader)
        return MPI_SUCCESS;
    const int rc = exposed_leaders(comm, node_size, nodes->node_count, &nodes->leaders);
    nodes->leaders_made = rc == MPI_SUCCESS;
    return rc;
}

void collsim_node_free(collsim_nodes *nodes)
{
    if (nodes->cached)
        return; /* the communicator's, freed with it */
    if (nodes->node != MPI_COMM_NULL)
        MPI_Comm_free(&nodes->node);
    if (nodes->leaders != MPI_COMM_NULL)
        MPI_Comm_free(&nodes->leaders);
}

const collsim_algorithm *collsim_mpich_reduce(long long bytes, int count, int size)
{
    return collsim_find_algorithm("reduce", bytes > 2048 && count >= collsim_pow2_floor(size)
                                                ? "rabenseifner"
                                                : "binomial");
}

const collsim_algorithm *collsim_mpich_allreduce(long long bytes, int count, int size)
{
    return collsim_find_algorithm("allreduce",
                                  bytes <= 2048 || count < collsim_pow2_floor(size)
                                      ? "recursive_doubling"
                                      : "rabenseifner");
}

const collsim_algorithm *collsim_mpich_bcast(long long bytes, int size)
{
    if (bytes < 12288 || size < 8)
        return collsim_find_algorithm("bcast", "binomial");
    return collsim_find_algorithm("bcast", bytes < 524288 && collsim_pow2_floor(size) == size
                                               ? "scatter_recursive_doubling_allgather"
                                               : "scatter_allgather");
}

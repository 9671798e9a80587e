/*
 * fixed_order.c: a reduction whose combination order is fixed by rank alone
 * while its messages follow the machine's nodes (the idea behind ReproRed,
 * Stelz et al. 2026: separate the communication tree from the summation tree).
 *
 * The summation tree: the dyadic tree over ranks 0 .. P-1 (P = the next
 * power of two >= p).  The value of a tree node covering [lo, lo + 2^level) is
 * left op right of its two children, in that order; a child whose range lies
 * entirely at or above p is empty and the node takes the other child's value
 * as is.  That value is a function of the inputs alone.
 *
 *       [0,8)                 p = 6: [6,8) is empty, so
 *      /     \                [4,8) = [4,6), and
 *   [0,4)   [4,8)             [0,8) = [0,4) op [4,6)
 *   /  \     /  \
 *  ... ...  [4,6) [6,8)
 *
 * The communication: the ranks of each node (collsim_node_members: the real
 * node, the hosts of one "node" property, as the node-aware algorithms group
 * them, or node_size consecutive ranks), in ascending order, run a binomial
 * tree rooted at the lowest, the node's leader (lg k steps for k ranks, not k - 1
 * receives at the leader); the leaders then run a binomial tree over their
 * ranks in ascending order; the top leader sends the result to the root if
 * it is not the root.  On aligned power-of-two nodes the two trees together
 * are the binomial tree over all ranks.  Every message carries a set of summation-tree
 * nodes (a header of (level, index) pairs, then their values); a process
 * merges what it receives into its set, combining two siblings as soon as it
 * holds both.  Whatever the mapping, every tree node is computed the same
 * way, so the result has the same bits on every placement; what the mapping
 * changes is how many values a message carries (one per message when nodes
 * hold aligned blocks of consecutive ranks, up to one per rank of the node
 * when they hold ranks far apart).
 *
 * Leaders are found with a dissemination (Bruck) allgather of one byte per
 * rank: ceil(lg p) rounds.
 *
 * With N virtual contributors per rank (collsim_params.contributors), the
 * leaves are the p N contributors, rank r holding r N .. r N + N - 1: each
 * rank first adds its N leaves to its set (combining the siblings it holds:
 * one tree node when N is a power of two, at most about 2 lg N otherwise),
 * then communicates as above.  The summation tree is the dyadic tree over
 * the p N contributors whatever p, so the same data spread over any number
 * of processes gives the same bits.
 */
#include "fixed_order.h"

#include "internal.h"
#include "nodes.h"

#define FIXED_ORDER_TAG_HEADER 7201
#define FIXED_ORDER_TAG_VALUES 7202

/* A set of summation-tree nodes with their values. */
typedef struct node_set {
    int count;     /* number of tree nodes held */
    int capacity;
    int *level;    /* level[k], index[k]: the node covers [index << level, (index + 1) << level) */
    int *index;
    char *values;  /* capacity * elems * extent bytes */
} node_set;

typedef struct context {
    int p;         /* leaves of the summation tree: ranks times contributors */
    int elems;
    MPI_Aint extent;
    MPI_Datatype datatype;
    MPI_Op op;
    const collsim_params *params;
    int top_level; /* ceil(lg p) */
} context;

static void *value_at(const context *ctx, const node_set *set, int k)
{
    return set->values + (size_t)k * (size_t)ctx->elems * (size_t)ctx->extent;
}

/* Makes room for at least `capacity` tree nodes (memory grows with what a
 * process actually holds, not with p). */
static int set_reserve(const context *ctx, node_set *set, int capacity)
{
    if (capacity <= set->capacity)
        return MPI_SUCCESS;
    int *level = realloc(set->level, sizeof(int) * (size_t)capacity);
    if (level == NULL)
        return MPI_ERR_NO_MEM;
    set->level = level;
    int *index = realloc(set->index, sizeof(int) * (size_t)capacity);
    if (index == NULL)
        return MPI_ERR_NO_MEM;
    set->index = index;
    char *values = realloc(set->values,
                           (size_t)capacity * (size_t)ctx->elems * (size_t)ctx->extent + 1);
    if (values == NULL)
        return MPI_ERR_NO_MEM;
    set->values = values;
    set->capacity = capacity;
    return MPI_SUCCESS;
}

static void set_free(node_set *set)
{
    free(set->level);
    free(set->index);
    free(set->values);
}

static int find(const node_set *set, int level, int index)
{
    for (int k = 0; k < set->count; k++)
        if (set->level[k] == level && set->index[k] == index)
            return k;
    return -1;
}

static void remove_at(const context *ctx, node_set *set, int k)
{
    const int last = set->count - 1;
    if (k != last) {
        set->level[k] = set->level[last];
        set->index[k] = set->index[last];
        collsim_copy(value_at(ctx, set, k), value_at(ctx, set, last), ctx->elems, ctx->extent);
    }
    set->count--;
}

/* Adds tree node (level, index) with the value at `value` (scratch space of
 * elems elements that this function may overwrite) and combines upward. */
static int set_add(const context *ctx, node_set *set, int level, int index, void *value)
{
    for (;;) {
        if (level >= ctx->top_level)
            break;
        const int sibling = index ^ 1;
        if ((sibling << level) >= ctx->p) { /* an empty sibling: promote as is */
            level++;
            index >>= 1;
            continue;
        }
        const int k = find(set, level, sibling);
        if (k < 0)
            break;
        if (sibling < index) { /* value = sibling op value */
            int rc = collsim_reduce_local(value_at(ctx, set, k), value, ctx->elems, ctx->datatype,
                                          ctx->op, ctx->params);
            if (rc != MPI_SUCCESS)
                return rc;
        } else { /* value = value op sibling */
            void *right = value_at(ctx, set, k);
            int rc = collsim_reduce_local(value, right, ctx->elems, ctx->datatype, ctx->op,
                                          ctx->params);
            if (rc != MPI_SUCCESS)
                return rc;
            collsim_copy(value, right, ctx->elems, ctx->extent);
        }
        remove_at(ctx, set, k);
        level++;
        index >>= 1;
    }
    if (set->count == set->capacity) {
        int rc = set_reserve(ctx, set, 2 * set->capacity + 1);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    set->level[set->count] = level;
    set->index[set->count] = index;
    collsim_copy(value_at(ctx, set, set->count), value, ctx->elems, ctx->extent);
    set->count++;
    return MPI_SUCCESS;
}

/* Sends the whole set: a header (count, then level/index pairs), then the values. */
static int send_set(const context *ctx, const node_set *set, int *header, int dest, MPI_Comm comm)
{
    header[0] = set->count;
    for (int k = 0; k < set->count; k++) {
        header[1 + 2 * k] = set->level[k];
        header[2 + 2 * k] = set->index[k];
    }
    int rc = MPI_Send(header, 1 + 2 * set->count, MPI_INT, dest, FIXED_ORDER_TAG_HEADER, comm);
    if (rc != MPI_SUCCESS)
        return rc;
    return MPI_Send(set->values, set->count * ctx->elems, ctx->datatype, dest,
                    FIXED_ORDER_TAG_VALUES, comm);
}

/* Receives a set from src and merges it into `set`. */
static int receive_set(const context *ctx, node_set *set, node_set *incoming, int *header,
                       int header_capacity, int src, MPI_Comm comm)
{
    int rc = MPI_Recv(header, header_capacity, MPI_INT, src, FIXED_ORDER_TAG_HEADER, comm,
                      MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return rc;
    const int count = header[0];
    if (count < 0 || 1 + 2 * count > header_capacity)
        return MPI_ERR_INTERN;
    rc = set_reserve(ctx, incoming, count);
    if (rc != MPI_SUCCESS)
        return rc;
    rc = MPI_Recv(incoming->values, count * ctx->elems, ctx->datatype, src, FIXED_ORDER_TAG_VALUES,
                  comm, MPI_STATUS_IGNORE);
    if (rc != MPI_SUCCESS)
        return rc;
    for (int k = 0; k < count; k++) {
        rc = set_add(ctx, set, header[1 + 2 * k], header[2 + 2 * k], value_at(ctx, incoming, k));
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

/* The binomial tree over positions 0 .. n-1 of ranks[] (ascending), rooted at
 * position 0: my position receives the sets of pos + 1, pos + 2, pos + 4, ...
 * then sends its own to the position that differs in its lowest set bit.
 * Leaves the set empty on every position but 0. */
static int binomial_gather(const context *ctx, node_set *set, node_set *incoming, int *header,
                           int header_capacity, const int *ranks, int n, int pos, MPI_Comm comm)
{
    for (int mask = 1; mask < n; mask <<= 1) {
        if (pos & mask) {
            int rc = send_set(ctx, set, header, ranks[pos - mask], comm);
            set->count = 0;
            return rc;
        }
        if (pos + mask < n) {
            int rc = receive_set(ctx, set, incoming, header, header_capacity, ranks[pos + mask],
                                 comm);
            if (rc != MPI_SUCCESS)
                return rc;
        }
    }
    return MPI_SUCCESS;
}

/* is_leader[r] for every rank r, by a dissemination allgather of one byte. */
static int gather_leader_flags(int rank, int p, char my_flag, char *flags, MPI_Comm comm)
{
    /* flags is used rotated: slot j holds the flag of rank (rank + j) mod p */
    char *rotated = malloc((size_t)p);
    if (rotated == NULL)
        return MPI_ERR_NO_MEM;
    rotated[0] = my_flag;
    int have = 1, rc = MPI_SUCCESS;
    for (int distance = 1; distance < p; distance <<= 1) {
        const int amount = have < p - have ? have : p - have;
        const int to = (rank - distance + p) % p, from = (rank + distance) % p;
        rc = MPI_Sendrecv(rotated, amount, MPI_CHAR, to, FIXED_ORDER_TAG_HEADER, rotated + have,
                          amount, MPI_CHAR, from, FIXED_ORDER_TAG_HEADER, comm, MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            break;
        have += amount;
    }
    for (int j = 0; j < p && rc == MPI_SUCCESS; j++)
        flags[(rank + j) % p] = rotated[j];
    free(rotated);
    return rc;
}

int collsim_fixed_order_reduce(const void *sendbuf, void *recvbuf, int count,
                               MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                               const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, p, nmembers = 0, nleaders = 0;
    MPI_Aint lb, extent;
    node_set set = {0}, incoming = {0};
    int *members = NULL, *leaders = NULL, *header = NULL;
    char *flags = NULL;
    void *scratch = NULL;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &p));
    COLLSIM_CHECK(MPI_Type_get_extent(datatype, &lb, &extent));
    if (count == 0)
        return MPI_SUCCESS;
    if (p == 1 && collsim_contributors(params) == 1) {
        collsim_copy(recvbuf, sendbuf, count, extent);
        return MPI_SUCCESS;
    }

    const int contributors = collsim_contributors(params);
    if ((long long)p * contributors > 0x3fffffff)
        return MPI_ERR_ARG;
    context ctx = {p * contributors, count, extent, datatype, op, params, 0};
    while ((1 << ctx.top_level) < ctx.p)
        ctx.top_level++;
    /* a set never holds more tree nodes than there are leaves */
    const int header_capacity = 1 + 2 * ctx.p;
    members = malloc(sizeof(int) * (size_t)p);
    leaders = malloc(sizeof(int) * (size_t)p);
    header = malloc(sizeof(int) * (size_t)header_capacity);
    flags = malloc((size_t)p);
    scratch = collsim_buffer_alloc((size_t)count * (size_t)extent + 1, params);
    if (!members || !leaders || !header || !flags || !scratch) {
        rc = MPI_ERR_NO_MEM;
        goto cleanup;
    }

    COLLSIM_CHECK(collsim_node_members(comm, params->node_size, members, &nmembers));
    const int leader = members[0];
    COLLSIM_CHECK(gather_leader_flags(rank, p, (char)(rank == leader), flags, comm));
    for (int r = 0; r < p; r++)
        if (flags[r])
            leaders[nleaders++] = r;

    /* the own inputs as leaves of the summation tree */
    for (int k = 0; k < contributors; k++) {
        collsim_copy(scratch, (const char *)sendbuf + (size_t)k * count * extent, count, extent);
        COLLSIM_CHECK(set_add(&ctx, &set, 0, rank * contributors + k, scratch));
    }

    /* inside the node, then between the leaders: binomial trees rooted at the lowest */
    int in_node = 0;
    while (members[in_node] != rank)
        in_node++;
    COLLSIM_CHECK(binomial_gather(&ctx, &set, &incoming, header, header_capacity, members,
                                  nmembers, in_node, comm));
    if (rank == leader) {
        int me = 0;
        while (leaders[me] != rank)
            me++;
        COLLSIM_CHECK(binomial_gather(&ctx, &set, &incoming, header, header_capacity, leaders,
                                      nleaders, me, comm));
    }

    /* the lowest leader (rank 0) holds the root of the summation tree */
    if (rank == 0) {
        if (set.count != 1 || set.level[0] != ctx.top_level) {
            rc = MPI_ERR_INTERN;
            goto cleanup;
        }
        if (root == 0)
            collsim_copy(recvbuf, value_at(&ctx, &set, 0), count, extent);
        else
            COLLSIM_CHECK(MPI_Send(value_at(&ctx, &set, 0), count, datatype, root,
                                   FIXED_ORDER_TAG_VALUES, comm));
    } else if (rank == root) {
        COLLSIM_CHECK(MPI_Recv(recvbuf, count, datatype, 0, FIXED_ORDER_TAG_VALUES, comm,
                               MPI_STATUS_IGNORE));
    }

cleanup:
    set_free(&set);
    set_free(&incoming);
    free(members);
    free(leaders);
    free(header);
    free(flags);
    collsim_buffer_free(scratch, params);
    return rc;
}

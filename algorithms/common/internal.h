/*
 * internal.h: helpers shared by the algorithm files; not part of the public API.
 */
#ifndef COLLSIM_INTERNAL_H
#define COLLSIM_INTERNAL_H

#include "../collsim.h"

#include <stdlib.h>
#include <string.h>

/* The scatter + allgather broadcasts (common/scatter.c): the elements of
 * chunks [first, last) of count elements cut into chunks of c (offset of the
 * first in *offset), and the binomial scatter that leaves chunk
 * (rank - root) mod size on each rank. */
int collsim_chunk_span(int count, int c, int first, int last, int *offset);
int collsim_binomial_scatter(void *buffer, int count, MPI_Datatype datatype, MPI_Aint extent,
                             int root, int rank, int size, MPI_Comm comm);

/* Tags: the harness runs every algorithm on a communicator of its own, so one
 * tag per collective is enough to keep phases apart. */
#define COLLSIM_TAG_ALLREDUCE 7101
#define COLLSIM_TAG_REDUCE 7102
#define COLLSIM_TAG_BCAST 7103

/* Jumps to the function's cleanup label with rc set when an MPI call fails. */
#define COLLSIM_CHECK(call)            \
    do {                               \
        int collsim_err_ = (call);     \
        if (collsim_err_ != MPI_SUCCESS) { \
            rc = collsim_err_;         \
            goto cleanup;              \
        }                              \
    } while (0)

/* Elements in block i when count elements are cut into nblocks blocks: the
 * first count % nblocks blocks hold one element more than the others. */
static inline int collsim_block_count(int count, int nblocks, int i)
{
    return count / nblocks + (i < count % nblocks ? 1 : 0);
}

/* Index of the first element of block i (same partition). */
static inline int collsim_block_offset(int count, int nblocks, int i)
{
    int rem = count % nblocks;
    return i * (count / nblocks) + (i < rem ? i : rem);
}

/* Largest power of two that is <= n (n >= 1). */
static inline int collsim_pow2_floor(int n)
{
    int p = 1;
    while (p * 2 <= n)
        p *= 2;
    return p;
}

/* Address of element index in buf for a datatype of the given extent. */
static inline void *collsim_elem(void *buf, MPI_Aint extent, int index)
{
    return (char *)buf + (MPI_Aint)index * extent;
}

/* Copies count elements (contiguous, builtin datatype). */
static inline void collsim_copy(void *dst, const void *src, int count, MPI_Aint extent)
{
    if (count > 0 && dst != src)
        memcpy(dst, src, (size_t)count * (size_t)extent);
}

/* Two-level algorithms (common/hier.c). */

/* Tags for creating sub-communicators with MPI_Comm_create_group. */
#define COLLSIM_TAG_INNER_COMM 7201
#define COLLSIM_TAG_OUTER_COMM 7202

/* The group count G of a hierarchical algorithm on size processes: the given
 * one, else the one seed 004 (9) finds optimal for the flat algorithm,
 * round(sqrt(p)) (allreduce: the divisor of p nearest sqrt(p)). */
int collsim_hier_group_count(collsim_collective coll, int size, const collsim_params *params);

/* Names of the inner and outer algorithms: the given ones; one given = both
 * the same; none given = the collective's default. */
void collsim_hier_names(collsim_collective coll, const collsim_params *params,
                        const char **inner, const char **outer);

/* Looks up and checks the inner and outer algorithms of a hierarchical
 * algorithm on size processes; 0, or -1 with the problem in why. */
int collsim_hier_levels(const collsim_algorithm *alg, int size, int op_is_commutative,
                        const collsim_params *params, const collsim_algorithm **inner,
                        const collsim_algorithm **outer, char *why, size_t len);

/* What a hierarchical algorithm knows before it runs its levels. */
typedef struct collsim_hier_setup {
    int rank, size;
    MPI_Aint extent;
    int groups;                             /* G, from collsim_hier_group_count */
    const collsim_algorithm *inner, *outer; /* checked by collsim_hier_levels */
    collsim_params inner_params, outer_params;
} collsim_hier_setup;

/* Fills setup for the hierarchical algorithm of collective coll on comm:
 * MPI_SUCCESS, MPI_ERR_ARG when its levels are not valid on comm (the
 * harness checks this first and names the problem), or an MPI error. */
int collsim_hier_prepare(collsim_collective coll, MPI_Comm comm, MPI_Datatype datatype, MPI_Op op,
                         const collsim_params *params, collsim_hier_setup *setup);

/* The parameters passed on to a sub-algorithm: gamma, and the segment size
 * or block count when the sub-algorithm takes them. */
void collsim_sub_params(const collsim_algorithm *sub, const collsim_params *params,
                        collsim_params *out);

/* A communicator of the n ranks of comm listed in ranks (in that order),
 * made by MPI_Comm_create_group, so only those ranks take part; MPI_COMM_NULL
 * when n < 2.  Under SMPI 3.32 it costs ceil(lg n) messages of 4 bytes (a
 * broadcast of the context id inside the new group; measured). */
int collsim_create_subcomm(MPI_Comm comm, const int *ranks, int n, int tag, MPI_Comm *sub);

/* Node-aware algorithms: a rank's node and the node leaders. */
typedef struct collsim_nodes {
    MPI_Comm node;       /* the ranks of my node (size 1 included) */
    MPI_Comm leaders;    /* the leaders, MPI_COMM_NULL elsewhere / before made */
    int node_size, node_rank;
    int leader_in_node;  /* node rank of the leader: the lowest rank in comm */
    int root_in_node;    /* node rank of the root, -1 when it is elsewhere */
    int is_leader;
    int node_count;      /* number of nodes (exposed nodes: known to all) */
    int root_node;       /* rank of the root's node's leader among the leaders */
    int leaders_made;
} collsim_nodes;

/* Finds the nodes of comm: node_size > 0, k consecutive ranks each (the node
 * communicators by MPI_Comm_create_group; the leaders' communicator is made
 * later by collsim_node_leaders, so that the leaders who are done with their
 * node make it); node_size 0, the real nodes by MPI_Comm_split_type(SHARED)
 * (free under SMPI) and the leaders by one MPI_Comm_split over comm, made at
 * once because every rank of comm takes part.  root < 0: no root. */
int collsim_node_split(MPI_Comm comm, int root, int node_size, collsim_nodes *nodes);

/* Makes the leaders' communicator when it is not made yet (exposed nodes). */
int collsim_node_leaders(MPI_Comm comm, int node_size, collsim_nodes *nodes);

void collsim_node_free(collsim_nodes *nodes);

/* MPICH's choice of a non-topology-aware algorithm (seed 000 sec. III):
 * reduce: binomial below 2 KiB or on a process count that is not a power of
 * two, else reduce-scatter + gather (rabenseifner); allreduce: recursive
 * doubling below 2 KiB or when the count is below the largest power of two
 * <= p, else reduce-scatter + allgather (rabenseifner). */
const collsim_algorithm *collsim_mpich_reduce(long long bytes, int size);
const collsim_algorithm *collsim_mpich_allreduce(long long bytes, int count, int size);

#endif /* COLLSIM_INTERNAL_H */

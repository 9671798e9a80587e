/*
 * hier.h: the two-level algorithms' group counts and levels (common/hier.c;
 * their default levels: collsim_composite_names, collsim.h), and what every
 * algorithm that runs others uses: sub-communicators and the parameters
 * passed to a sub-algorithm.
 * Users: allreduce_hierarchical.c, reduce_hierarchical.c,
 * allreduce_node_aware.c and reduce_node_aware.c (collsim_plain_params),
 * common/hier.c, common/nodes.c (collsim_create_subcomm and its tags),
 * sim/collbench/main.c (the group count a row reports).
 */
#ifndef COLLSIM_HIER_H
#define COLLSIM_HIER_H

#include "../collsim.h"

/* Two-level algorithms (common/hier.c). */

/* Tags for creating sub-communicators with MPI_Comm_create_group. */
#define COLLSIM_TAG_INNER_COMM 7201
#define COLLSIM_TAG_OUTER_COMM 7202
#define COLLSIM_TAG_LEADERS_EXCHANGE 7203

/* The group count G of a hierarchical algorithm on size processes: the given
 * one, else the one seed 004 (9) finds optimal for the flat algorithm,
 * round(sqrt(p)) (allreduce: the divisor of p nearest sqrt(p)). */
int collsim_hier_group_count(collsim_collective coll, int size, const collsim_params *params);

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

/* Frees *comm unless it is MPI_COMM_NULL (a sub-communicator that was not
 * made).  Used in the cleanup of the hierarchical algorithms. */
void collsim_comm_release(MPI_Comm *comm);

/* The parameters of a sub-algorithm that takes none of its own: gamma and
 * timing_only, every other field zero.  Used by the node-aware algorithms
 * for the algorithms MPICH picks inside them. */
void collsim_plain_params(const collsim_params *params, collsim_params *out);

#endif /* COLLSIM_HIER_H */

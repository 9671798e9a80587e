/*
 * nodes.h: a rank's node, one meaning for every algorithm (common/nodes.c):
 * params->node_size k > 0, k consecutive ranks; 0, the real node, the ranks
 * on hosts of the same "node" property (a SimGrid host where hosts carry no
 * "socket"); the node-aware algorithms' nodes and leaders, and MPICH's
 * choice of the flat algorithm they run at each level.
 * Users: allreduce_node_aware.c, reduce_node_aware.c, common/fixed_order.c,
 * common/nodes.c.
 */
#ifndef COLLSIM_NODES_H
#define COLLSIM_NODES_H

#include "../collsim.h"

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
    int cached;          /* the communicator's (params->cached_comms): not freed */
} collsim_nodes;

/* Finds the nodes of comm (params->node_size):  k > 0, k consecutive ranks
 * each; 0, the real nodes (MPI_Comm_split_type(SHARED), free under SMPI, which
 * groups a SimGrid host; on hosts that are sockets of a node, an MPI_Comm_split
 * by the host's "node" property).  root < 0: no root.
 * params->cached_comms 0: made in this call (exposed nodes by
 * MPI_Comm_create_group, the leaders' communicator later by
 * collsim_node_leaders, so that the leaders who are done with their node make
 * it; real nodes: the leaders by one MPI_Comm_split with the root's leader
 * first) and freed by collsim_node_free.  1: made by every rank of comm on the
 * first call for that node size, kept on comm (an attribute, freed with it),
 * and only the root's node looked up in later calls: no communication. */
int collsim_node_split(MPI_Comm comm, int root, const collsim_params *params,
                       collsim_nodes *nodes);

/* The ranks in comm of the calling rank's node, ascending, into members
 * (room for the size of comm), their number into *count: the nodes of
 * collsim_node_split, without keeping a communicator (node_size k > 0: no
 * communication; 0: the split of real_node_comm, freed again). */
int collsim_node_members(MPI_Comm comm, int node_size, int *members, int *count);

/* Makes the leaders' communicator when it is not made yet (exposed nodes). */
int collsim_node_leaders(MPI_Comm comm, int node_size, collsim_nodes *nodes);

void collsim_node_free(collsim_nodes *nodes);

/* MPICH's choice of a non-topology-aware algorithm inside node_aware (seed
 * 000 sec. III; MPICH 3.0's MPIR_Reduce_intra, MPIR_Allreduce_intra and
 * MPIR_Bcast_intra with their default thresholds, src/util/param/params.yml),
 * pof2 the largest power of two <= size:
 * reduce: reduce-scatter + gather (rabenseifner) above 2048 bytes when
 *   count >= pof2, else binomial;
 * allreduce: recursive doubling up to 2048 bytes or when count < pof2, else
 *   reduce-scatter + allgather (rabenseifner);
 * bcast: binomial below 12288 bytes or on fewer than 8 ranks, else scatter +
 *   recursive-doubling allgather below 524288 bytes on a power of two, else
 *   scatter + ring allgather. */
const collsim_algorithm *collsim_mpich_reduce(long long bytes, int count, int size);
const collsim_algorithm *collsim_mpich_allreduce(long long bytes, int count, int size);
const collsim_algorithm *collsim_mpich_bcast(long long bytes, int size);

#endif /* COLLSIM_NODES_H */

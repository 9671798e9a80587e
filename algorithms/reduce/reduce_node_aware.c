/*
 * reduce_node_aware.c: MPICH's topology-aware (SMP) reduce, as seed 000
 * describes it: a reduction inside every node except the root's, to the
 * node's leader; a reduction of the leaders' partial results onto the root's
 * node; and a reduction inside the root's node, where the leader contributes
 * the result from the other nodes.
 *
 *     4 nodes of 4, root 5:   node 0: 0..3 -> 0   node 2: 8..11 -> 8   node 3 -> 12
 *                             leaders 0, 4, 8, 12 -> 4 (4 with its own input only)
 *                             node 1: 4 (others' result), 5, 6, 7 -> 5
 *
 * A node is the real node (node_size 0: MPI_Comm_split_type SHARED, which
 * SMPI groups by SimGrid host) or an exposed group of k consecutive ranks
 * (node_size k: the x1/x2/x4/x8 exposure of seed 000).  The leader of a node
 * is its lowest rank.  Every reduction inside a node and between the leaders
 * is the non-topology-aware algorithm MPICH 3.0 picks for it (reduce-scatter
 * + gather = `rabenseifner` above 2 KiB when the count is at least the
 * largest power of two <= the process count, else binomial; see
 * common/nodes.h), run on a sub-communicator.
 *
 * Sub-communicators: exposed nodes, by MPI_Comm_create_group (the nodes first,
 * the leaders after the first reduction); real nodes, MPI_Comm_split_type
 * (no simulated cost in SMPI) and one MPI_Comm_split of comm for the leaders
 * (made before anything else: every rank takes part).  All are freed before
 * returning.  MPICH builds them once per communicator; here each call makes
 * them, and the model counts them.
 *
 * Operand order: the leaders combine in an order set by the nodes, so the
 * result depends on the topology (seed 000's point); hence commutative ops
 * only, as in MPICH.
 *
 * Restrictions: commutative op.
 * Reference: P. Balaji, D. Kimpe, "On the reproducibility of MPI reduction
 *            operations", HPCC 2013 (seed 000), sec. III-A; MPICH
 *            MPIR_Reduce_intra_smp.
 * Cost:      T(k) + C + T_reduce(N) + T_reduce(k), N nodes of k ranks,
 *            T_reduce the chosen algorithm (e.g. binomial ceil(lg k)(alpha +
 *            n beta + n gamma)), C the sub-communicators (see the model)
 */
#include "common/internal.h"
#include "common/nodes.h"
#include "common/opening.h"
#include "common/scratch.h"
#include "common/hier.h"

int collsim_reduce_node_aware(const void *sendbuf, void *recvbuf, int count,
                              MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                              const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, type_size;
    MPI_Aint extent;
    collsim_nodes nodes = {MPI_COMM_NULL, MPI_COMM_NULL, 0, 0, 0, -1, 0, 0, 0, 0, 0};
    void *partial = NULL, *from_nodes = NULL;
    collsim_params sub;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    COLLSIM_CHECK(MPI_Type_size(datatype, &type_size));
    if (count == 0)
        return MPI_SUCCESS;
    collsim_plain_params(params, &sub);
    const long long bytes = (long long)count * type_size;

    COLLSIM_CHECK(collsim_buffer_pair(count, extent, params, &partial, &from_nodes));
    COLLSIM_CHECK(collsim_node_split(comm, root, params, &nodes));
    const int on_root_node = nodes.root_in_node >= 0;

    /* 1. every node but the root's reduces to its leader */
    const void *contribution = sendbuf;
    if (!on_root_node && nodes.node_size > 1) {
        const collsim_algorithm *alg = collsim_mpich_reduce(bytes, count, nodes.node_size);
        COLLSIM_CHECK(alg->fn.reduce(sendbuf, partial, count, datatype, op,
                                     nodes.leader_in_node, nodes.node, &sub));
        contribution = partial;
    }

    /* 2. the leaders reduce onto the root's node's leader */
    const void *root_node_input = sendbuf;
    if (nodes.is_leader) {
        COLLSIM_CHECK(collsim_node_leaders(comm, params->node_size, &nodes));
        if (nodes.node_count > 1) {
            const collsim_algorithm *alg = collsim_mpich_reduce(bytes, count, nodes.node_count);
            void *out = !on_root_node ? partial : (rank == root ? recvbuf : from_nodes);
            COLLSIM_CHECK(alg->fn.reduce(contribution, out, count, datatype, op, nodes.root_node,
                                         nodes.leaders, &sub));
            if (on_root_node)
                root_node_input = out;
        }
    }

    /* 3. the root's node reduces to the root, its leader bringing the rest */
    if (on_root_node) {
        if (nodes.node_size > 1) {
            const collsim_algorithm *alg = collsim_mpich_reduce(bytes, count, nodes.node_size);
            if (rank == root && root_node_input == recvbuf) {
                /* the root is the leader and holds the other nodes' result */
                collsim_copy(from_nodes, recvbuf, count, extent);
                root_node_input = from_nodes;
            }
            COLLSIM_CHECK(alg->fn.reduce(root_node_input, recvbuf, count, datatype, op,
                                         nodes.root_in_node, nodes.node, &sub));
        } else if (root_node_input != recvbuf) {
            collsim_copy(recvbuf, root_node_input, count, extent);
        }
    }

cleanup:
    collsim_node_free(&nodes);
    collsim_buffer_free(partial, params);
    collsim_buffer_free(from_nodes, params);
    return rc;
}

/*
 * allreduce_node_aware.c: MPICH's topology-aware (SMP) allreduce, as seed 000
 * describes it: a reduction inside every node to its leader, an allreduce
 * among the node leaders, and a broadcast inside every node.
 *
 *     4 nodes of 4:   node i: 4i..4i+3 -> 4i       (reduce, in parallel)
 *                     leaders 0, 4, 8, 12          (allreduce)
 *                     node i: 4i -> 4i+1..4i+3     (broadcast, in parallel)
 *
 * A node is the real node (node_size 0: MPI_Comm_split_type SHARED, which
 * SMPI groups by SimGrid host) or k consecutive ranks (node_size k: seed
 * 000's x1/x2/x4/x8 exposure).  The leader of a node is its lowest rank.  The
 * reductions and the broadcast are the algorithms MPICH 3.0 picks
 * (common/nodes.h: reduce binomial or rabenseifner, allreduce
 * recursive_doubling or rabenseifner, bcast binomial below 12 KiB or 8 ranks,
 * else scatter + recursive-doubling or ring allgather).
 * Sub-communicators as in reduce_node_aware.c, freed before returning.
 *
 * Restrictions: commutative op (the order of combination follows the nodes).
 * Reference: P. Balaji, D. Kimpe, HPCC 2013 (seed 000), sec. III-B; MPICH
 *            MPIR_Allreduce_intra_smp.
 * Cost:      C + T_reduce(k) + T_allreduce(N) + T_bcast(k), N nodes of k ranks
 *            (binomial bcast: ceil(lg k)(alpha + n beta); scatter + allgather:
 *            see the bcast models)
 */
#include "common/internal.h"
#include "common/nodes.h"
#include "common/opening.h"
#include "common/hier.h"

int collsim_allreduce_node_aware(const void *sendbuf, void *recvbuf, int count,
                                 MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                 const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, type_size;
    MPI_Aint extent;
    collsim_nodes nodes = {MPI_COMM_NULL, MPI_COMM_NULL, 0, 0, 0, -1, 0, 0, 0, 0, 0};
    void *partial = NULL;
    collsim_params sub;

    COLLSIM_CHECK(collsim_open(comm, datatype, &rank, &size, &extent));
    COLLSIM_CHECK(MPI_Type_size(datatype, &type_size));
    if (count == 0)
        return MPI_SUCCESS;
    collsim_plain_params(params, &sub);
    const long long bytes = (long long)count * type_size;

    partial = collsim_buffer_alloc((size_t)count * (size_t)extent, params);
    if (partial == NULL) {
        rc = MPI_ERR_NO_MEM;
        goto cleanup;
    }
    COLLSIM_CHECK(collsim_node_split(comm, -1, params, &nodes));

    /* 1. every node reduces to its leader */
    const void *contribution = sendbuf;
    if (nodes.node_size > 1) {
        const collsim_algorithm *alg = collsim_mpich_reduce(bytes, count, nodes.node_size);
        COLLSIM_CHECK(alg->fn.reduce(sendbuf, partial, count, datatype, op,
                                     nodes.leader_in_node, nodes.node, &sub));
        contribution = partial;
    }

    /* 2. the leaders allreduce */
    if (nodes.is_leader) {
        COLLSIM_CHECK(collsim_node_leaders(comm, params->node_size, &nodes));
        if (nodes.node_count > 1) {
            const collsim_algorithm *alg =
                collsim_mpich_allreduce(bytes, count, nodes.node_count);
            COLLSIM_CHECK(alg->fn.allreduce(contribution, recvbuf, count, datatype, op,
                                            nodes.leaders, &sub));
        } else {
            collsim_copy(recvbuf, contribution, count, extent);
        }
    }

    /* 3. every leader broadcasts inside its node */
    if (nodes.node_size > 1) {
        const collsim_algorithm *bcast = collsim_mpich_bcast(bytes, nodes.node_size);
        COLLSIM_CHECK(bcast->fn.bcast(recvbuf, count, datatype, nodes.leader_in_node, nodes.node,
                                      &sub));
    }

cleanup:
    collsim_node_free(&nodes);
    collsim_buffer_free(partial, params);
    return rc;
}

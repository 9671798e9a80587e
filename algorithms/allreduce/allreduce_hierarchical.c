/*
 * allreduce_hierarchical.c: the topology-oblivious two-level transform of an
 * allreduce algorithm (seed 004's transform, applied to allreduce).
 *
 * The p ranks form a G x q grid, q = p / G: group g holds the consecutive
 * ranks g q .. g q + q - 1, and column j the ranks with index j in their group
 * (j, q + j, 2q + j, ...).  Every group runs the inner allreduce, after which
 * each of its members holds the group's partial result; then every column
 * runs the outer allreduce over those partials, after which every rank holds
 * the total.
 *
 *     p = 6, G = 2, q = 3:   groups   [0 1 2] [3 4 5]     (inner, in parallel)
 *                            columns  [0 3] [1 4] [2 5]   (outer, in parallel)
 *
 * G = 1 and G = p are the inner and the outer algorithm on all ranks: both
 * call that algorithm on the communicator itself, with no sub-communicator.
 *
 * Inner and outer algorithm: any allreduce of the registry by name (the same
 * when only one is given).  Default: `recursive_doubling` at both levels: it
 * keeps rank order and accepts any p, so every op and every group size work;
 * its cost lg q + lg G = lg p steps does not change with G (as for the trees
 * of seed 004 sec. 3.3-3.4), so the default is the plain algorithm's cost
 * plus the sub-communicators.  `ring` is the allreduce the transform speeds
 * up (its 2 (p - 1) latencies become 2 (q - 1) + 2 (G - 1), least at
 * G = sqrt(p)), but it needs a commutative op.  Default G: the divisor of p
 * nearest sqrt(p).
 *
 * Operand order: groups are consecutive and columns are ordered by group, so
 * when both levels keep rank order so does the whole.
 *
 * Sub-communicators: made with MPI_Comm_create_group (groups first, then
 * columns, each before its level runs) and freed before returning; each
 * costs ceil(lg size) 4-byte messages under SMPI 3.32 (see common/hier.c).
 *
 * Restrictions: G must divide p; those of the inner and outer algorithm.
 * Reference: K. Hasanov, A. Lastovetsky, PaCT 2015 (seed 004), sec. 3.
 * Cost:      C(q) + T_inner(q, n) + C(G) + T_outer(G, n),
 *            C(q) = ceil(lg q)(alpha + 4 beta)
 */
#include "common/internal.h"
#include "common/hier.h"

int collsim_allreduce_hierarchical(const void *sendbuf, void *recvbuf, int count,
                                   MPI_Datatype datatype, MPI_Op op, MPI_Comm comm,
                                   const collsim_params *params)
{
    int rc = MPI_SUCCESS;
    MPI_Comm inner_comm = MPI_COMM_NULL, outer_comm = MPI_COMM_NULL;
    void *partial = NULL;
    int *ranks = NULL;
    collsim_hier_setup h;

    if ((rc = collsim_hier_prepare(COLLSIM_ALLREDUCE, comm, datatype, op, params, &h)) !=
        MPI_SUCCESS)
        return rc;
    const int rank = h.rank, size = h.size, groups = h.groups;
    if (groups == 1)
        return h.inner->fn.allreduce(sendbuf, recvbuf, count, datatype, op, comm,
                                     &h.inner_params);
    if (groups == size)
        return h.outer->fn.allreduce(sendbuf, recvbuf, count, datatype, op, comm,
                                     &h.outer_params);
    if (count == 0)
        return MPI_SUCCESS;

    const int q = size / groups, group = rank / q, column = rank % q;
    ranks = malloc((size_t)(q > groups ? q : groups) * sizeof *ranks);
    partial = collsim_buffer_alloc((size_t)count * (size_t)h.extent, params);
    if (ranks == NULL || partial == NULL) {
        rc = MPI_ERR_NO_MEM;
        goto cleanup;
    }

    for (int i = 0; i < q; i++)
        ranks[i] = group * q + i;
    COLLSIM_CHECK(collsim_create_subcomm(comm, ranks, q, COLLSIM_TAG_INNER_COMM, &inner_comm));
    COLLSIM_CHECK(h.inner->fn.allreduce(sendbuf, partial, count, datatype, op, inner_comm,
                                        &h.inner_params));

    for (int g = 0; g < groups; g++)
        ranks[g] = g * q + column;
    COLLSIM_CHECK(collsim_create_subcomm(comm, ranks, groups, COLLSIM_TAG_OUTER_COMM,
                                         &outer_comm));
    COLLSIM_CHECK(h.outer->fn.allreduce(partial, recvbuf, count, datatype, op, outer_comm,
                                        &h.outer_params));

cleanup:
    collsim_comm_release(&inner_comm);
    collsim_comm_release(&outer_comm);
    free(ranks);
    collsim_buffer_free(partial, params);
    return rc;
}

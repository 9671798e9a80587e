/*
 * reduce_hierarchical.c: the topology-oblivious two-level transform of a
 * reduce algorithm (seed 004, Algorithm 1).
 *
 * The p ranks are cut into G groups of consecutive ranks (G = the group
 * count; when G does not divide p the first p mod G groups hold one rank
 * more).  Each group reduces to its leader with the inner algorithm (the
 * leader is the group's first rank, or the root in the root's group); then
 * the G leaders, numbered in group order, reduce to the root with the outer
 * algorithm.
 *
 *     p = 8, G = 2, root 0:   inner  [0 1 2 3] -> 0    [4 5 6 7] -> 4
 *                             outer  [0 4] -> 0
 *
 * G = 1 is the inner algorithm on all p ranks and G = p the outer one: both
 * call that algorithm on the communicator itself, so they are the plain
 * algorithm exactly, with no sub-communicator made.
 *
 * Inner and outer algorithm: any reduce of the registry by name (the same
 * when only one is given).  Default: `linear` at both levels, because it is
 * the algorithm the transform is for: seed 004 (8)-(9) bring its p - 1 steps
 * down to 2 sqrt(p) - 2, while tree algorithms such as `binomial` keep their
 * cost (sec. 3.3-3.4), and it keeps rank order, so every op works.  Default G:
 * round(sqrt(p)), the optimum of (8).  The inner and outer algorithm must
 * accept the group sizes and the op (their restrictions are checked, never
 * worked around).
 *
 * Operand order: groups are consecutive and the leaders are ordered by group,
 * so when both levels keep rank order so does the whole.
 *
 * Sub-communicators are made with MPI_Comm_create_group by their members only
 * (inner: every group; outer: the leaders, after the inner reduce) and freed
 * before returning.  Under SMPI 3.32 a new communicator of q ranks costs
 * ceil(lg q) messages of 4 bytes; MPI_Comm_split, which seed 004 uses, costs
 * more (a gather to rank 0 and one message per member: 4.0 / 12.0 / 18.2 us
 * for p = 2 / 8 / 64 on the 2 us crossbar, against 0 / 2.0 / 8.0 us here).
 *
 * Restrictions: none of its own; those of the inner and outer algorithm.
 * Reference: K. Hasanov, A. Lastovetsky, "Hierarchical optimization of MPI
 *            reduce algorithms", PaCT 2015 (seed 004), sec. 3, Algorithm 1.
 * Cost:      C(q) + T_inner(q, n) + C(G) + T_outer(G, n), q = ceil(p/G),
 *            C(q) = ceil(lg q)(alpha + 4 beta); linear: (G + p/G - 2)
 *            (alpha + n beta + n gamma) + C (seed 004 (8))
 */
#include "common/internal.h"
#include "common/hier.h"

int collsim_reduce_hierarchical(const void *sendbuf, void *recvbuf, int count,
                                MPI_Datatype datatype, MPI_Op op, int root, MPI_Comm comm,
                                const collsim_params *params)
{
    int rc = MPI_SUCCESS;
    MPI_Comm inner_comm = MPI_COMM_NULL, outer_comm = MPI_COMM_NULL;
    void *partial = NULL, *scratch = NULL;
    int *ranks = NULL;
    collsim_hier_setup h;

    if ((rc = collsim_hier_prepare(COLLSIM_REDUCE, comm, datatype, op, params, &h)) !=
        MPI_SUCCESS)
        return rc;
    const int rank = h.rank, size = h.size, groups = h.groups;
    const MPI_Aint extent = h.extent;
    if (groups == 1)
        return h.inner->fn.reduce(sendbuf, recvbuf, count, datatype, op, root, comm,
                                  &h.inner_params);
    if (groups == size)
        return h.outer->fn.reduce(sendbuf, recvbuf, count, datatype, op, root, comm,
                                  &h.outer_params);
    if (count == 0)
        return MPI_SUCCESS;

    /* my group, its first rank and size; the root's group */
    int group = 0, root_group = 0;
    for (int g = 0; g < groups; g++) {
        const int first = collsim_block_offset(size, groups, g);
        const int n = collsim_block_count(size, groups, g);
        if (rank >= first && rank < first + n)
            group = g;
        if (root >= first && root < first + n)
            root_group = g;
    }
    const int first = collsim_block_offset(size, groups, group);
    const int members = collsim_block_count(size, groups, group);
    const int leader = group == root_group ? root : first;

    ranks = malloc((size_t)(members > groups ? members : groups) * sizeof *ranks);
    partial = collsim_buffer_alloc((size_t)count * (size_t)extent, params);
    scratch = collsim_buffer_alloc((size_t)count * (size_t)extent, params);
    if (ranks == NULL || partial == NULL || scratch == NULL) {
        rc = MPI_ERR_NO_MEM;
        goto cleanup;
    }

    /* inner level: the group reduces to its leader */
    const void *group_result = sendbuf;
    if (members > 1) {
        for (int i = 0; i < members; i++)
            ranks[i] = first + i;
        COLLSIM_CHECK(collsim_create_subcomm(comm, ranks, members, COLLSIM_TAG_INNER_COMM,
                                             &inner_comm));
        COLLSIM_CHECK(h.inner->fn.reduce(sendbuf, partial, count, datatype, op, leader - first,
                                         inner_comm, &h.inner_params));
        group_result = partial;
    }

    /* outer level: the leaders, in group order, reduce to the root */
    if (rank == leader) {
        for (int g = 0; g < groups; g++)
            ranks[g] = g == root_group ? root : collsim_block_offset(size, groups, g);
        COLLSIM_CHECK(collsim_create_subcomm(comm, ranks, groups, COLLSIM_TAG_OUTER_COMM,
                                             &outer_comm));
        COLLSIM_CHECK(h.outer->fn.reduce(group_result, rank == root ? recvbuf : scratch, count,
                                         datatype, op, root_group, outer_comm,
                                         &h.outer_params));
    }

cleanup:
    collsim_comm_release(&inner_comm);
    collsim_comm_release(&outer_comm);
    free(ranks);
    collsim_buffer_free(partial, params);
    collsim_buffer_free(scratch, params);
    return rc;
}

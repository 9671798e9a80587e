/*
 * bcast_concurrent_binomial.c: Open MPI's binomial broadcast (coll/tuned id 6,
 * unsegmented as its fixed rules run it): a binomial tree in which every rank,
 * once it has the vector, sends it to all its children at once.
 *
 * Ranks relative to the root, v = (rank - root) mod p.  Open MPI's tree
 * (ompi_coll_base_topo_build_bmtree): the parent of v is v without its highest
 * set bit; its children are v + 2^j for every 2^j > v with v + 2^j < p.  A
 * rank posts one MPI_Isend per child and waits for all of them
 * (ompi_coll_base_bcast_intra_generic; common/generic_tree.c): the k sends
 * share its link, as in bcast_linear.c.
 *
 *     p = 8, root 0:   0 -> {1, 2, 4} at once;  1 -> {3, 5};  2 -> {6};  3 -> {7}
 *
 * Restrictions: none.
 * Reference: Open MPI v4.1.4, ompi/mca/coll/base/coll_base_bcast.c
 *            (ompi_coll_base_bcast_intra_binomial) and coll_base_topo.c.
 * Cost:      along the path to the last rank, per parent with k children
 *            alpha + k n beta (its k sends share its link).
 */
#include "common/generic_tree.h"
#include "common/internal.h"

int collsim_bcast_concurrent_binomial(void *buffer, int count, MPI_Datatype datatype, int root,
                                      MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size, nchildren = 0;
    int children[COLLSIM_GENERIC_TREE_MAX_CHILDREN];
    (void)params;
    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    const int v = (rank - root + size) % size;
    int high = 1; /* the smallest power of two > v */
    while (high <= v)
        high <<= 1;
    const int parent = v ^ (high >> 1);
    for (int mask = high; mask < size && v + mask < size; mask <<= 1)
        children[nchildren++] = v + mask;
    return collsim_generic_tree_bcast(buffer, count, datatype, root, comm, parent, children,
                                      nchildren);
cleanup:
    return rc;
}

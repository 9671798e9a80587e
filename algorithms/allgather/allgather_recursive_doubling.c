/*
 * allgather_recursive_doubling.c: recursive-doubling allgather, any p
 * (MPICH's, with its tree for the blocks a non-power-of-two p leaves out).
 *
 * Step k (mask m = 2^k): the ranks are cut into subtrees of m consecutive
 * ranks (root r & ~(m - 1)), each rank holding its subtree's blocks; rank r
 * exchanges them with rank r ^ m (MPI_Sendrecv), both now holding the
 * 2m-subtree's.  A rank holds min(m, p - root) blocks of its subtree.
 *
 *     p = 8:  step 0:  0 <-> 1  2 <-> 3  4 <-> 5  6 <-> 7   1 block each way
 *             step 1:  0 <-> 2  1 <-> 3  4 <-> 6  5 <-> 7   2 blocks
 *             step 2:  0 <-> 4  1 <-> 5  2 <-> 6  3 <-> 7   4 blocks
 *
 * When p is not a power of two, the partner subtree of a full subtree may
 * be truncated: only its first c = p - root - m ranks had a partner, and
 * they pass the partner subtree's c blocks on to the others of their
 * subtree by recursive halving (a binomial tree): for h = m/2, m/4, .., 1,
 * rank r, among the first c of its 2h-aligned group, sends the c blocks to
 * r + h when r + h is not (MPI_Send / MPI_Recv).  p = 6, step 2: 0 <-> 4,
 * 1 <-> 5, then 0 -> 2 and 1 -> 3 (2 blocks each).
 *
 * Restrictions: none.  Steps: lg p exchanges for p a power of two; else
 * ceil(lg p) exchange steps plus up to lg m forwarding steps after the step
 * of mask m whose partner subtree is truncated.
 * Reference: Thakur, Rabenseifner & Gropp, IJHPCA 19(1), 2005, sec. 3.1
 *            (the non-power-of-two tree); MPICH 4.0
 *            MPIR_Allgather_intra_recursive_doubling (its "experimental"
 *            non-power-of-two part, unreachable there because MPICH picks
 *            this algorithm only for powers of two).  Open MPI 4.1's
 *            ompi_coll_base_allgather_intra_recursivedoubling runs Bruck for
 *            p not a power of two instead; collsim does not.
 * Cost:      lg p alpha + (p - 1) n beta for p a power of two (n: one
 *            block); otherwise up to (2 ceil(lg p) - 1) alpha (p = 2^k - 1)
 *            and up to 2.25 (p - 1) n beta (p = 9), replayed by the model
 *            (collsim.analysis.models.allgather.recursive_doubling).
 */
#include "common/blockcopy.h"
#include "common/internal.h"

#include <limits.h>

/* After the exchange of mask: the first `have` ranks of this rank's subtree
 * (root `base`, mask ranks) hold the partner subtree's `have` blocks, which
 * start at block base + mask; they hand them on to the others, halving. */
static int pass_on(char *recvbuf, int recvcount, MPI_Datatype recvtype, MPI_Aint block,
                   int rank, int base, int mask, int have, MPI_Comm comm)
{
    char *blocks = recvbuf + (MPI_Aint)(base + mask) * block;
    for (int half = mask >> 1; half > 0; half >>= 1) {
        const int peer = rank ^ half;
        const int group = rank & ~(2 * half - 1); /* this 2*half-aligned group's first */
        const int rank_has = rank < group + have, peer_has = peer < group + have;
        int rc = MPI_SUCCESS;
        if (peer > rank && rank_has && !peer_has)
            rc = MPI_Send(blocks, have * recvcount, recvtype, peer, COLLSIM_TAG_ALLGATHER, comm);
        else if (peer < rank && peer_has && !rank_has)
            rc = MPI_Recv(blocks, have * recvcount, recvtype, peer, COLLSIM_TAG_ALLGATHER, comm,
                          MPI_STATUS_IGNORE);
        if (rc != MPI_SUCCESS)
            return rc;
    }
    return MPI_SUCCESS;
}

int collsim_allgather_recursive_doubling(const void *sendbuf, int sendcount,
                                         MPI_Datatype sendtype, void *recvbuf, int recvcount,
                                         MPI_Datatype recvtype, MPI_Comm comm,
                                         const collsim_params *params)
{
    int rc = MPI_SUCCESS, rank, size;
    (void)params;

    COLLSIM_CHECK(MPI_Comm_rank(comm, &rank));
    COLLSIM_CHECK(MPI_Comm_size(comm, &size));
    const MPI_Aint block = collsim_block_extent(recvcount, recvtype);
    COLLSIM_CHECK(collsim_block_copy(sendbuf, sendcount, sendtype,
                                     (char *)recvbuf + (MPI_Aint)rank * block, recvcount,
                                     recvtype));
    if (recvcount == 0 || size == 1)
        return MPI_SUCCESS;
    if ((long long)size * recvcount > INT_MAX)
        return MPI_ERR_COUNT;
    for (int mask = 1; mask < size; mask <<= 1) {
        const int partner = rank ^ mask;
        const int base = rank & ~(mask - 1), partner_base = partner & ~(mask - 1);
        if (partner < size) {
            const int mine = mask < size - base ? mask : size - base;
            const int theirs = mask < size - partner_base ? mask : size - partner_base;
            COLLSIM_CHECK(MPI_Sendrecv((char *)recvbuf + (MPI_Aint)base * block, mine * recvcount,
                                       recvtype, partner, COLLSIM_TAG_ALLGATHER,
                                       (char *)recvbuf + (MPI_Aint)partner_base * block,
                                       theirs * recvcount, recvtype, partner,
                                       COLLSIM_TAG_ALLGATHER, comm, MPI_STATUS_IGNORE));
        }
        /* the partner subtree (the upper one) truncated, but not empty */
        const int have = size - partner_base;
        if (!(rank & mask) && have > 0 && have < mask)
            COLLSIM_CHECK(pass_on(recvbuf, recvcount, recvtype, block, rank, base, mask, have,
                                  comm));
    }

cleanup:
    return rc;
}

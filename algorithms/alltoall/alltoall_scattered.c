/*
 * alltoall_scattered.c: nonblocking alltoall in batches, MPICH's scattered.
 *
 * Each rank copies its own block, then takes the offsets 0 .. p - 1 in
 * batches of COLLSIM_ALLTOALL_THROTTLE: for the offsets i of a batch it
 * posts the receives from rank + i, then the sends to rank - i (mod p), and
 * waits for all of them before the next batch.  Offset 0 is the rank
 * itself: MPICH sends that block to itself inside the first batch, here it
 * is the local copy, so the first batch has one message fewer each way.
 * With p <= 32 it is one batch: linear, every message at once.
 *
 *     p = 70, rank r:  batch 1: offsets 1 .. 31   batch 2: 32 .. 63   batch 3: 64 .. 69
 *
 * Restrictions: none.
 * Reference: MPICH 4.0 MPIR_Alltoall_intra_scattered
 *            (src/mpi/coll/alltoall/alltoall_intra_scattered.c; the batch
 *            size is MPIR_CVAR_ALLTOALL_THROTTLE, default 32, fixed here);
 *            Thakur, Rabenseifner & Gropp, IJHPCA 2005, sec. 3.6 (MPICH's
 *            medium-message alltoall).
 * Cost:      sum over batches b of (alpha + m_b n beta), m_b the batch's
 *            messages each way (each rank's link shared by m_b blocks):
 *            ceil(p / 32) alpha + (p - 1) n beta
 */
#include "common/blockcopy.h"
#include "common/internal.h"

/* MPIR_CVAR_ALLTOALL_THROTTLE's default: offsets per batch. */
#define COLLSIM_ALLTOALL_THROTTLE 32

int collsim_alltoall_scattered(const void *sendbuf, int sendcount, MPI_Datatype sendtype,
                               void *recvbuf, int recvcount, MPI_Datatype recvtype,
                               MPI_Comm comm, const collsim_params *params)
{
    int rc = MPI_SUCCESS;
    collsim_exchange x;
    MPI_Request requests[2 * COLLSIM_ALLTOALL_THROTTLE];
    (void)params;

    COLLSIM_CHECK(collsim_exchange_open(sendbuf, sendcount, sendtype, recvbuf, recvcount,
                                        recvtype, comm, &x));
    const int rank = x.rank, size = x.size;
    if (recvcount == 0)
        return MPI_SUCCESS;
    for (int first = 0; first < size; first += COLLSIM_ALLTOALL_THROTTLE) {
        const int last = first + COLLSIM_ALLTOALL_THROTTLE < size
                             ? first + COLLSIM_ALLTOALL_THROTTLE : size;
        int nreq = 0;
        for (int offset = first > 0 ? first : 1; offset < last; offset++) {
            COLLSIM_CHECK(collsim_exchange_irecv(&x, (rank + offset) % size, &requests[nreq++]));
        }
        for (int offset = first > 0 ? first : 1; offset < last; offset++) {
            COLLSIM_CHECK(
                collsim_exchange_isend(&x, (rank - offset + size) % size, &requests[nreq++]));
        }
        COLLSIM_CHECK(MPI_Waitall(nreq, requests, MPI_STATUSES_IGNORE));
    }

cleanup:
    return rc;
}

/*
 * clocksync.c: offsets of the processes' clocks to rank 0's, by ping-pong
 * (see clocksync.h).
 *
 * Rank r (1..p-1 in turn) sends an empty ping at local time t_send, rank 0
 * answers with its time t_root, the pong arrives at local time t_recv:
 * t_root lies between t_send and t_recv on r's clock shifted by the offset,
 * so offset = t_root - (t_send + t_recv) / 2 is off by at most
 * (t_recv - t_send) / 2.  Of the rounds, the shortest round trip is kept
 * (the least disturbed one).  Cost: (p - 1) x rounds round trips on rank 0.
 *
 * References: ReproMPI (Hunold & Carpen-Amarie, "Reproducible MPI
 * benchmarking is still not as easy as you think", 2016), SKaMPI (Reussner
 * et al.), Netgauge (Hoefler et al., "Accurately measuring collective
 * operations at massive scale", 2008).
 */
#include "clocksync.h"

#include <float.h>

enum { TAG_PING = 7201, TAG_PONG = 7202 };

static collsim_clock kept = {0.0, 0.0, 0.0};
static int synced;

int collsim_clock_sync(MPI_Comm comm, int rounds, collsim_clock *clock)
{
    int rc, rank, size;
    MPI_Comm own = MPI_COMM_NULL;
    clock->offset_s = 0.0;
    clock->error_bound_s = 0.0;
    if ((rc = PMPI_Comm_rank(comm, &rank)) != MPI_SUCCESS ||
        (rc = PMPI_Comm_size(comm, &size)) != MPI_SUCCESS ||
        (rc = PMPI_Comm_dup(comm, &own)) != MPI_SUCCESS)
        return rc;
    if (rank == 0) {
        for (int r = 1; r < size && rc == MPI_SUCCESS; r++) {
            for (int k = 0; k < rounds && rc == MPI_SUCCESS; k++) {
                rc = PMPI_Recv(NULL, 0, MPI_BYTE, r, TAG_PING, own, MPI_STATUS_IGNORE);
                double now = PMPI_Wtime();
                if (rc == MPI_SUCCESS)
                    rc = PMPI_Send(&now, 1, MPI_DOUBLE, r, TAG_PONG, own);
            }
        }
    } else {
        double best_rtt = DBL_MAX;
        for (int k = 0; k < rounds && rc == MPI_SUCCESS; k++) {
            double t_root = 0.0, t_send = PMPI_Wtime();
            rc = PMPI_Send(NULL, 0, MPI_BYTE, 0, TAG_PING, own);
            if (rc == MPI_SUCCESS)
                rc = PMPI_Recv(&t_root, 1, MPI_DOUBLE, 0, TAG_PONG, own, MPI_STATUS_IGNORE);
            double t_recv = PMPI_Wtime();
            if (rc == MPI_SUCCESS && t_recv - t_send < best_rtt) {
                best_rtt = t_recv - t_send;
                clock->offset_s = t_root - (t_send + t_recv) / 2.0;
                clock->error_bound_s = best_rtt / 2.0;
            }
        }
    }
    clock->local_s = PMPI_Wtime();
    PMPI_Comm_free(&own);
    return rc;
}

const collsim_clock *collsim_clock_sync_once(MPI_Comm comm)
{
    if (!synced && collsim_clock_sync(comm, COLLSIM_CLOCK_ROUNDS, &kept) == MPI_SUCCESS)
        synced = 1;
    return &kept;
}

double collsim_clock_global(double local_s)
{
    return local_s + kept.offset_s;
}

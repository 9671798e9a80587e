/*
 * clocksync.h: every process's MPI_Wtime on rank 0's clock.
 *
 * Open MPI's MPI_Wtime starts from a different zero in each process
 * (MPI_WTIME_IS_GLOBAL is 0), so that one rank's end minus another's start
 * means nothing.  Each rank estimates the offset of its clock to rank 0's by
 * ping-pong, as ReproMPI, SKaMPI and Netgauge do: of K round trips, the
 * shortest one's midpoint is matched to rank 0's time stamp, taken between
 * the ping and the pong; the offset's error is then at most half that round
 * trip (the error bound).  Used by collbench for --real-mpi runs and by the
 * interposition library under a real MPI (sim/interpose/interpose.c); under
 * SMPI every rank reads the one simulated clock, and neither calls it.
 *
 * Only PMPI_* calls: the interposition library's wrappers are not entered.
 */
#ifndef COLLSIM_CLOCKSYNC_H
#define COLLSIM_CLOCKSYNC_H

#include <mpi.h>

/* One rank's clock against rank 0's: global = local + offset_s. */
typedef struct collsim_clock {
    double offset_s;      /* 0 on rank 0 */
    double error_bound_s; /* |offset error| <= this: half the shortest round trip */
    double local_s;       /* the local time the offset was measured at */
} collsim_clock;

/* Collective over comm: every rank's offset to comm's rank 0, from rounds
 * round trips each (rank by rank, on a private duplicate of comm).  Returns
 * an MPI error code. */
int collsim_clock_sync(MPI_Comm comm, int rounds, collsim_clock *clock);

/* For one process that is one rank (a real MPI): the first call is
 * collsim_clock_sync(comm, COLLSIM_CLOCK_ROUNDS) and keeps the result; later
 * calls return it.  Every rank of comm must make the first call. */
const collsim_clock *collsim_clock_sync_once(MPI_Comm comm);

/* local time -> rank 0's time, by the kept offset (0 before any sync). */
double collsim_clock_global(double local_s);

#define COLLSIM_CLOCK_ROUNDS 32

#endif

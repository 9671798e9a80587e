/*
 * progress.c: every COLLSIM_PROGRESS_S seconds of wall-clock time, one line
 * on stderr with the wall time so far and the simulated time reached, for
 * the user watching a long simulation.  A host thread that only reads
 * SimGrid's clock (a double the engine writes): it takes no part in the
 * simulation, which stays the same to the bit.
 */
#include "progress.h"

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#ifdef COLLSIM_SMPI
#include <mpi.h>
#include <simgrid/engine.h>
#include <time.h>
/* SMPI's mpi.h turns clock_gettime into the simulated clock, which only an
 * actor may read; this thread is no actor and wants the host's clock. */
#undef clock_gettime
#endif

#ifdef COLLSIM_SMPI
static void *progress_loop(void *arg)
{
    progress *pr = arg;
    struct timespec started, deadline;
    clock_gettime(CLOCK_MONOTONIC, &started);
    deadline = started;
    pthread_mutex_lock(&pr->lock);
    while (!pr->stop) {
        deadline.tv_sec += (time_t)pr->period_s;
        deadline.tv_nsec += (long)((pr->period_s - (double)(time_t)pr->period_s) * 1e9);
        if (deadline.tv_nsec >= 1000000000L) {
            deadline.tv_sec++;
            deadline.tv_nsec -= 1000000000L;
        }
        /* the condition variable's clock is CLOCK_MONOTONIC (progress_start) */
        while (!pr->stop && pthread_cond_timedwait(&pr->done, &pr->lock, &deadline) == 0)
            ;
        if (pr->stop)
            break;
        struct timespec now;
        clock_gettime(CLOCK_MONOTONIC, &now);
        fprintf(stderr, "collbench: progress: %.0f s wall, %.9g s simulated\n",
                (double)(now.tv_sec - started.tv_sec) + (now.tv_nsec - started.tv_nsec) * 1e-9,
                simgrid_get_clock());
        fflush(stderr);
    }
    pthread_mutex_unlock(&pr->lock);
    return NULL;
}
#endif

void progress_start(progress *pr)
{
#ifdef COLLSIM_SMPI
    memset(pr, 0, sizeof *pr);
    const char *period = getenv("COLLSIM_PROGRESS_S");
    pr->period_s = period != NULL ? strtod(period, NULL) : 0.0;
    if (!(pr->period_s >= 1.0))
        return;
    pthread_condattr_t attr;
    pthread_condattr_init(&attr);
    pthread_condattr_setclock(&attr, CLOCK_MONOTONIC);
    pthread_mutex_init(&pr->lock, NULL);
    pthread_cond_init(&pr->done, &attr);
    pthread_condattr_destroy(&attr);
    pr->running = pthread_create(&pr->thread, NULL, progress_loop, pr) == 0;
#else
    pr->unused = 0;
#endif
}

void progress_stop(progress *pr)
{
#ifdef COLLSIM_SMPI
    if (!pr->running)
        return;
    pthread_mutex_lock(&pr->lock);
    pr->stop = 1;
    pthread_cond_signal(&pr->done);
    pthread_mutex_unlock(&pr->lock);
    pthread_join(pr->thread, NULL);
    pthread_mutex_destroy(&pr->lock);
    pthread_cond_destroy(&pr->done);
#else
    (void)pr;
#endif
}


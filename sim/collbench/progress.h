/*
 * progress.h: progress lines of a long simulation on stderr.
 */
#ifndef COLLBENCH_PROGRESS_H
#define COLLBENCH_PROGRESS_H

#ifdef COLLSIM_SMPI
#include <pthread.h>
#endif

typedef struct progress {
#ifdef COLLSIM_SMPI
    pthread_t thread;
    pthread_mutex_t lock;
    pthread_cond_t done;
    int running, stop;
    double period_s;
#else
    int unused;
#endif
} progress;

/* Starts reporting every $COLLSIM_PROGRESS_S seconds (unset, or under 1: no
 * report; under a real MPI: never).  Call on one rank only. */
void progress_start(progress *pr);
void progress_stop(progress *pr);

#endif

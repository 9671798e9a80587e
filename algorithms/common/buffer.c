/*
 * buffer.c: the data buffers of the algorithms and of the harness.
 *
 * With timing_only under SMPI they come from SMPI's shared malloc: every
 * rank's buffer maps the same few physical pages, SMPI copies no payload
 * between such buffers, and a 512-rank reduce of 16 MiB needs megabytes of
 * the host's memory instead of tens of gigabytes.  The values are garbage;
 * the simulated time is not, because no algorithm's messages, sizes or
 * charged computation depend on the values (tests/test_timing_only.py holds
 * every registry entry to the time of the checked run).
 */
#include "../collsim.h"

#include <stdlib.h>

#ifdef COLLSIM_SMPI
#include <smpi/smpi.h>
#endif

void *collsim_buffer_alloc(size_t nbytes, const collsim_params *params)
{
#ifdef COLLSIM_SMPI
    if (params != NULL && params->timing_only)
        return SMPI_SHARED_MALLOC(nbytes + 1);
#else
    (void)params;
#endif
    return malloc(nbytes + 1);
}

void collsim_buffer_free(void *buf, const collsim_params *params)
{
    if (buf == NULL)
        return;
#ifdef COLLSIM_SMPI
    if (params != NULL && params->timing_only) {
        SMPI_SHARED_FREE(buf);
        return;
    }
#else
    (void)params;
#endif
    free(buf);
}

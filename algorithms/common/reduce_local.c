/*
 * reduce_local.c: the one function through which every algorithm combines
 * operands, so that the cost of computation is charged in one place.
 *
 * SMPI's own MPI_Reduce_local costs no simulated time, and collsim runs with
 * host-code timing off (smpi/simulate-computation:no) so that a simulated time
 * never depends on the machine running the simulation.  The cost of a local
 * reduction is therefore charged explicitly: gamma seconds per byte, executed
 * as flops at the speed of the host the rank runs on.  Built against a real
 * MPI, the charge is not made: the real reduction costs what it costs.
 */
#include "common/internal.h"

#include <stdlib.h>

#ifdef COLLSIM_SMPI
#include <simgrid/host.h>
#endif

double collsim_platform_gamma_s_per_byte(void)
{
#ifdef COLLSIM_SMPI
    const char *prop = sg_host_get_property_value(sg_host_self(), "gamma_s_per_byte");
    if (prop != NULL)
        return strtod(prop, NULL);
#endif
    return 0.0;
}

void collsim_charge_compute(double work_bytes, const collsim_params *params)
{
#ifdef COLLSIM_SMPI
    if (params->gamma_s_per_byte > 0 && work_bytes > 0)
        smpi_execute_flops(work_bytes * params->gamma_s_per_byte * sg_host_get_speed(sg_host_self()));
#else
    (void)work_bytes;
    (void)params;
#endif
}

int collsim_reduce_local(const void *inbuf, void *inoutbuf, int count, MPI_Datatype datatype,
                         MPI_Op op, const collsim_params *params)
{
    if (count <= 0)
        return MPI_SUCCESS;
    int rc = MPI_SUCCESS;
#ifdef COLLSIM_SMPI
    /* timing only: the operands are garbage in shared buffers (buffer.c);
     * the charge below is all that matters */
    if (!params->timing_only)
#endif
        rc = MPI_Reduce_local(inbuf, inoutbuf, count, datatype, op);
    if (rc != MPI_SUCCESS)
        return rc;
    int type_size;
    rc = MPI_Type_size(datatype, &type_size);
    if (rc != MPI_SUCCESS)
        return rc;
    collsim_charge_compute((double)count * type_size, params);
    return MPI_SUCCESS;
}

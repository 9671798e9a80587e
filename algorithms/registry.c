/*
 * registry.c: the registry table, generated from registry.def, and the one
 * place where restrictions are enforced.
 */
#include "collsim.h"

#include <string.h>

#define COLLSIM_FN_FIELD_allreduce allreduce
#define COLLSIM_FN_FIELD_reduce reduce
#define COLLSIM_FN_FIELD_bcast bcast
#define COLLSIM_ENUM_allreduce COLLSIM_ALLREDUCE
#define COLLSIM_ENUM_reduce COLLSIM_REDUCE
#define COLLSIM_ENUM_bcast COLLSIM_BCAST

static const collsim_algorithm registry[] = {
#define COLLSIM_ALGORITHM(coll, alg_name, alg_restrictions, alg_parameters, alg_summary) \
    {.collective = COLLSIM_ENUM_##coll,                                  \
     .collective_name = #coll,                                           \
     .name = #alg_name,                                                  \
     .restrictions = (alg_restrictions),                                 \
     .parameters = (alg_parameters),                                     \
     .summary = alg_summary,                                             \
     .fn = {.COLLSIM_FN_FIELD_##coll = collsim_##coll##_##alg_name}},
#include "registry.def"
#undef COLLSIM_ALGORITHM
};

const collsim_algorithm *collsim_registry(size_t *count)
{
    *count = sizeof registry / sizeof registry[0];
    return registry;
}

const collsim_algorithm *collsim_find_algorithm(const char *collective, const char *name)
{
    for (size_t i = 0; i < sizeof registry / sizeof registry[0]; i++) {
        if (strcmp(registry[i].collective_name, collective) == 0 &&
            strcmp(registry[i].name, name) == 0)
            return &registry[i];
    }
    return NULL;
}

const char *collsim_check_restrictions(const collsim_algorithm *alg, int comm_size,
                                       int op_is_commutative)
{
    if ((alg->restrictions & COLLSIM_RESTRICT_COMMUTATIVE) && !op_is_commutative)
        return "requires a commutative op";
    if ((alg->restrictions & COLLSIM_RESTRICT_POWER_OF_TWO) &&
        (comm_size < 1 || (comm_size & (comm_size - 1)) != 0))
        return "requires a power-of-two process count";
    return NULL;
}

int collsim_contributors(const collsim_params *params)
{
    return params->contributors > 1 ? params->contributors : 1;
}

int collsim_is_prerounded(const collsim_algorithm *alg)
{
    return (alg->restrictions & COLLSIM_RESTRICT_FLOAT_SUM) != 0;
}

const char *collsim_check_parameters(const collsim_algorithm *alg, const collsim_params *params)
{
    const unsigned takes = alg->parameters;
    if (!(takes & COLLSIM_PARAM_SEGMENTS) && (params->segment_bytes || params->block_count))
        return "takes no segment size or block count";
    if (!(takes & COLLSIM_PARAM_GROUPS) && params->group_count)
        return "takes no group count";
    if (!(takes & COLLSIM_PARAM_INNER_OUTER) &&
        (params->inner_algorithm != NULL || params->outer_algorithm != NULL))
        return "takes no inner or outer algorithm";
    if (!(takes & COLLSIM_PARAM_NODE_SIZE) && params->node_size)
        return "takes no node size";
    if (!(takes & COLLSIM_PARAM_CONTRIBUTORS) && params->contributors > 1)
        return "takes no virtual contributors";
    return NULL;
}

const char *collsim_check_op_restrictions(const collsim_algorithm *alg, MPI_Op op,
                                          MPI_Datatype datatype)
{
    if ((alg->restrictions & COLLSIM_RESTRICT_FLOAT_SUM) &&
        (op != MPI_SUM || (datatype != MPI_DOUBLE && datatype != MPI_FLOAT)))
        return "requires MPI_SUM on float or double";
    return NULL;
}

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

static const collsim_restriction restrictions[] = {
    {COLLSIM_RESTRICT_COMMUTATIVE, "commutative", "commutative_op", "requires a commutative op"},
    {COLLSIM_RESTRICT_POWER_OF_TWO, "power_of_two", "power_of_two_np",
     "requires a power-of-two process count"},
    {COLLSIM_RESTRICT_FLOAT_SUM, "float_sum", "sum_on_float", "requires MPI_SUM on float or double"},
};

const collsim_restriction *collsim_restrictions(size_t *count)
{
    *count = sizeof restrictions / sizeof restrictions[0];
    return restrictions;
}

static const char *sentence(unsigned flag)
{
    for (size_t i = 0; i < sizeof restrictions / sizeof restrictions[0]; i++)
        if (restrictions[i].flag == flag)
            return restrictions[i].sentence;
    return "violates a restriction";
}

const char *collsim_check_restrictions(const collsim_algorithm *alg, int comm_size,
                                       int op_is_commutative)
{
    if ((alg->restrictions & COLLSIM_RESTRICT_COMMUTATIVE) && !op_is_commutative)
        return sentence(COLLSIM_RESTRICT_COMMUTATIVE);
    if ((alg->restrictions & COLLSIM_RESTRICT_POWER_OF_TWO) &&
        (comm_size < 1 || (comm_size & (comm_size - 1)) != 0))
        return sentence(COLLSIM_RESTRICT_POWER_OF_TWO);
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

/* The chain algorithms' default fan-out: one chain, the textbook chain of
 * seeds 002 and 004 that the models' closed forms, the tests and the CI
 * baseline use, and what Open MPI's fixed rules run (they pass fan-out 0,
 * which ompi_coll_base_topo_build_chain forces to 1).  Open MPI's chain when
 * forced (coll_tuned_bcast_algorithm / coll_tuned_reduce_algorithm 2) takes
 * the MCA default coll_tuned_<collective>_algorithm_chain_fanout = 4
 * (ompi_coll_tuned_init_chain_fanout, coll_tuned_component.c, v4.1.4): give
 * chain_fanout 4 to run that one (docs/seeds/seed002.py does). */
#define COLLSIM_DEFAULT_CHAIN_FANOUT 1

static const collsim_parameter parameters[] = {
    {COLLSIM_PARAM_SEGMENTS, "segments", "takes no segment size or block count", -1},
    {COLLSIM_PARAM_GROUPS, "groups", "takes no group count", -1},
    {COLLSIM_PARAM_INNER_OUTER, "inner_outer", "takes no inner or outer algorithm", -1},
    {COLLSIM_PARAM_NODE_SIZE, "node_size", "takes no node size", -1},
    {COLLSIM_PARAM_CONTRIBUTORS, "contributors", "takes no virtual contributors", -1},
    {COLLSIM_PARAM_CHAIN_FANOUT, "chain_fanout", "takes no chain fan-out",
     COLLSIM_DEFAULT_CHAIN_FANOUT},
    {COLLSIM_PARAM_CACHED_COMMS, "cached_comms",
     "takes no cached communicators (it makes no node communicators)", -1},
};

int collsim_chain_fanout(const collsim_params *params)
{
    return params->chain_fanout > 0 ? params->chain_fanout : COLLSIM_DEFAULT_CHAIN_FANOUT;
}

const collsim_parameter *collsim_parameters(size_t *count)
{
    *count = sizeof parameters / sizeof parameters[0];
    return parameters;
}

/* The flags of the parameters params sets. */
static unsigned parameters_given(const collsim_params *params)
{
    return (params->segment_bytes || params->block_count ? COLLSIM_PARAM_SEGMENTS : 0u) |
           (params->group_count ? COLLSIM_PARAM_GROUPS : 0u) |
           (params->inner_algorithm != NULL || params->outer_algorithm != NULL
                ? COLLSIM_PARAM_INNER_OUTER
                : 0u) |
           (params->node_size ? COLLSIM_PARAM_NODE_SIZE : 0u) |
           (params->contributors > 1 ? COLLSIM_PARAM_CONTRIBUTORS : 0u) |
           (params->chain_fanout ? COLLSIM_PARAM_CHAIN_FANOUT : 0u) |
           (params->cached_comms ? COLLSIM_PARAM_CACHED_COMMS : 0u);
}

const char *collsim_check_parameters(const collsim_algorithm *alg, const collsim_params *params)
{
    if (params->segment_bytes && params->block_count)
        return "takes a segment size or a block count, not both";
    const unsigned unread = parameters_given(params) & ~alg->parameters;
    for (size_t i = 0; i < sizeof parameters / sizeof parameters[0]; i++)
        if (unread & parameters[i].flag)
            return parameters[i].sentence;
    return NULL;
}

const char *collsim_check_op_restrictions(const collsim_algorithm *alg, MPI_Op op,
                                          MPI_Datatype datatype)
{
    if ((alg->restrictions & COLLSIM_RESTRICT_FLOAT_SUM) &&
        (op != MPI_SUM || (datatype != MPI_DOUBLE && datatype != MPI_FLOAT)))
        return sentence(COLLSIM_RESTRICT_FLOAT_SUM);
    return NULL;
}

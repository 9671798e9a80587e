/*
 * registry.c: the registry table, generated from registry.def, and the one
 * place where restrictions are enforced.
 */
#include "collsim.h"

#include "common/tree.h"

#include <errno.h>
#include <limits.h>
#include <math.h>
#include <stddef.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* collectives.def's enum value of each collective name, for the registry */
enum {
#define COLLSIM_COLLECTIVE(name, NAME, op, root, send_blocks, recv_blocks, holders, mpi, summary) \
    COLLSIM_ENUM_##name = COLLSIM_##NAME,
#include "collectives.def"
#undef COLLSIM_COLLECTIVE
};

static const collsim_collective_info collectives[] = {
#define COLLSIM_COLLECTIVE(name_, NAME, op, root, send, recv, holders_, mpi_, summary_)       \
    {.collective = COLLSIM_##NAME, .name = #name_, .has_op = (op), .has_root = (root),       \
     .send_blocks = COLLSIM_BLOCKS_##send, .recv_blocks = COLLSIM_BLOCKS_##recv,            \
     .holders = COLLSIM_HOLDERS_##holders_, .mpi = mpi_, .summary = summary_},
#include "collectives.def"
#undef COLLSIM_COLLECTIVE
};

const collsim_collective_info *collsim_collectives(size_t *count)
{
    *count = sizeof collectives / sizeof collectives[0];
    return collectives;
}

const collsim_collective_info *collsim_find_collective(const char *name)
{
    for (size_t i = 0; i < sizeof collectives / sizeof collectives[0]; i++)
        if (strcmp(collectives[i].name, name) == 0)
            return &collectives[i];
    return NULL;
}

long long collsim_block_elements(collsim_buffer_blocks blocks, int count, int rank, int root,
                                 int comm_size)
{
    switch (blocks) {
    case COLLSIM_BLOCKS_ONE:
        return count;
    case COLLSIM_BLOCKS_ONE_AT_ROOT:
        return rank == root ? count : 0;
    case COLLSIM_BLOCKS_ALL:
        return (long long)count * comm_size;
    case COLLSIM_BLOCKS_ALL_AT_ROOT:
        return rank == root ? (long long)count * comm_size : 0;
    default:
        return 0;
    }
}

static const collsim_algorithm registry[] = {
#define COLLSIM_ALGORITHM(coll, alg_name, alg_restrictions, alg_parameters, alg_summary) \
    {.collective = (collsim_collective)COLLSIM_ENUM_##coll,                                \
     .collective_name = #coll,                                           \
     .name = #alg_name,                                                  \
     .restrictions = (alg_restrictions),                                 \
     .parameters = (alg_parameters),                                     \
     .summary = alg_summary,                                             \
     .fn = {.coll = collsim_##coll##_##alg_name}},
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
#define COLLSIM_PARAMETER_GROUP(group, group_name, takes_no, one_of, default_value) \
    {COLLSIM_PARAM_##group, #group_name, takes_no, one_of, default_value},
#define COLLSIM_PARAMETER(name, option, type, unit, what, min, max, group, help)
#include "params.def"
#undef COLLSIM_PARAMETER_GROUP
#undef COLLSIM_PARAMETER
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

/* The C type each parameter type is stored as, checked against the field. */
#define COLLSIM_CTYPE_BYTES size_t
#define COLLSIM_CTYPE_INT int
#define COLLSIM_CTYPE_NAME const char *
#define COLLSIM_CTYPE_BOOL int
#define COLLSIM_CTYPE_REAL double
#define COLLSIM_PARAMETER_GROUP(group, name, takes_no, one_of, default_value)
#define COLLSIM_PARAMETER(name, option, type, unit, what, min, max, group, help)          \
    _Static_assert(sizeof(((collsim_params *)0)->name) == sizeof(COLLSIM_CTYPE_##type), \
                   "params.def: collsim_params." #name " is not stored as " #type);
#include "params.def"
#undef COLLSIM_PARAMETER_GROUP
#undef COLLSIM_PARAMETER

static const collsim_parameter_spec parameter_specs[] = {
#define COLLSIM_PARAMETER_GROUP(group, name, takes_no, one_of, default_value)
#define COLLSIM_PARAMETER(pname, poption, ptype, punit, pwhat, pmin, pmax, pgroup, phelp) \
    {.name = #pname,                                                                      \
     .option = poption,                                                                   \
     .type = COLLSIM_PARAMETER_##ptype,                                                   \
     .type_name = #ptype,                                                                 \
     .unit = punit,                                                                       \
     .what = pwhat,                                                                       \
     .min = (pmin),                                                                       \
     .max = (pmax),                                                                       \
     .group = COLLSIM_PARAM_##pgroup,                                                     \
     .offset = offsetof(collsim_params, pname),                                           \
     .help = phelp},
#include "params.def"
#undef COLLSIM_PARAMETER_GROUP
#undef COLLSIM_PARAMETER
};

const collsim_parameter_spec *collsim_parameter_specs(void)
{
    return parameter_specs;
}

const collsim_parameter_spec *collsim_find_parameter(const char *name)
{
    for (size_t i = 0; i < COLLSIM_PARAMETER_COUNT; i++)
        if (strcmp(parameter_specs[i].name, name) == 0)
            return &parameter_specs[i];
    return NULL;
}

static void *parameter_field(const collsim_parameter_spec *spec, collsim_params *params)
{
    return (char *)params + spec->offset;
}

static const void *parameter_value(const collsim_parameter_spec *spec, const collsim_params *params)
{
    return (const char *)params + spec->offset;
}

int collsim_parameter_given(const collsim_parameter_spec *spec, const collsim_params *params)
{
    const void *v = parameter_value(spec, params);
    switch (spec->type) {
    case COLLSIM_PARAMETER_BYTES:
        return *(const size_t *)v != 0;
    case COLLSIM_PARAMETER_INT:
    case COLLSIM_PARAMETER_BOOL:
        return *(const int *)v != 0;
    case COLLSIM_PARAMETER_NAME:
        return *(const char *const *)v != NULL;
    default:
        return *(const double *)v != 0.0;
    }
}

/* "lo..hi", or ">= lo" when there is no upper bound. */
static void format_range(const collsim_parameter_spec *spec, char *buf, size_t len)
{
    if (spec->type == COLLSIM_PARAMETER_REAL || spec->max == LLONG_MAX)
        snprintf(buf, len, ">= %lld", spec->min);
    else
        snprintf(buf, len, "%lld..%lld", spec->min, spec->max);
}

int collsim_parameter_parse(const collsim_parameter_spec *spec, const char *text,
                            const char *label, collsim_params *params, char *err, size_t errlen)
{
    void *field = parameter_field(spec, params);
    char range[64];
    format_range(spec, range, sizeof range);
    if (spec->type == COLLSIM_PARAMETER_BOOL && text == NULL) {
        *(int *)field = 1;
        return 0;
    }
    if (text == NULL) {
        snprintf(err, errlen, "%s needs a value", label);
        return -1;
    }
    char *end;
    errno = 0;
    switch (spec->type) {
    case COLLSIM_PARAMETER_NAME:
        if (text[0] == '\0' || strlen(text) >= COLLSIM_NAME_MAX ||
            strspn(text, "abcdefghijklmnopqrstuvwxyz0123456789_") != strlen(text)) {
            snprintf(err, errlen, "malformed algorithm name '%s' for %s", text, label);
            return -1;
        }
        *(const char **)field = text;
        return 0;
    case COLLSIM_PARAMETER_REAL: {
        const double v = strtod(text, &end);
        if (errno != 0 || end == text || *end != '\0' || !isfinite(v) || v < (double)spec->min) {
            snprintf(err, errlen, "malformed %s '%s' (%s)", spec->what, text, range);
            return -1;
        }
        *(double *)field = v;
        return 0;
    }
    default: {
        const long long v = strtoll(text, &end, 10);
        if (errno != 0 || end == text || *end != '\0' || v < spec->min || v > spec->max) {
            snprintf(err, errlen, "malformed %s '%s' (%s)", spec->what, text, range);
            return -1;
        }
        if (spec->type == COLLSIM_PARAMETER_BYTES)
            *(size_t *)field = (size_t)v;
        else
            *(int *)field = (int)v;
        return 0;
    }
    }
}

/* The groups of the parameters params sets. */
static unsigned parameters_given(const collsim_params *params)
{
    unsigned given = params->contributors > 1 ? COLLSIM_PARAM_CONTRIBUTORS : 0u;
    for (size_t i = 0; i < COLLSIM_PARAMETER_COUNT; i++)
        if (collsim_parameter_given(&parameter_specs[i], params))
            given |= parameter_specs[i].group;
    return given;
}

const char *collsim_check_parameters(const collsim_algorithm *alg, const collsim_params *params)
{
    for (size_t g = 0; g < sizeof parameters / sizeof parameters[0]; g++) {
        if (parameters[g].one_of == NULL)
            continue;
        int n = 0;
        for (size_t i = 0; i < COLLSIM_PARAMETER_COUNT; i++)
            n += parameter_specs[i].group == parameters[g].flag &&
                 collsim_parameter_given(&parameter_specs[i], params);
        if (n > 1)
            return parameters[g].one_of;
    }
    const unsigned unread = parameters_given(params) & ~alg->parameters;
    for (size_t i = 0; i < sizeof parameters / sizeof parameters[0]; i++)
        if (unread & parameters[i].flag)
            return parameters[i].sentence;
    return NULL;
}

const char *collsim_check_segment(const collsim_params *params, int elem_bytes, const char *type,
                                  char *buf, size_t len)
{
    if (elem_bytes > 0 && params->segment_bytes % (size_t)elem_bytes != 0) {
        snprintf(buf, len, "segment size %zu bytes is not a whole number of %s elements",
                 params->segment_bytes, type);
        return buf;
    }
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

/*
 * rules.c: reads a rules file (format: sim/collsim/rules.py) and picks the
 * rule of a call.  Every mistake is reported with the file and line; nothing
 * is guessed.
 */
#define _POSIX_C_SOURCE 200809L /* strtok_r */
#include "rules.h"

#include <errno.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_LINE 1024

static int fail(char *err, size_t errlen, const char *path, int line, const char *what,
                const char *token)
{
    snprintf(err, errlen, "%s:%d: %s%s%s%s", path, line, what, token ? " '" : "",
             token ? token : "", token ? "'" : "");
    return -1;
}

/* A decimal integer >= 0 filling the whole of text. */
static int parse_count(const char *text, long long *value)
{
    if (*text < '0' || *text > '9')
        return -1;
    char *end;
    errno = 0;
    long long v = strtoll(text, &end, 10);
    if (errno != 0 || *end != '\0')
        return -1;
    *value = v;
    return 0;
}

/* "LO-HI" or "LO-" (no upper bound) or a single "N". */
static int parse_range(char *text, long long *lo, long long *hi)
{
    char *dash = strchr(text, '-');
    if (dash == NULL) {
        if (parse_count(text, lo) != 0)
            return -1;
        *hi = *lo;
        return 0;
    }
    *dash = '\0';
    if (parse_count(text, lo) != 0)
        return -1;
    if (dash[1] == '\0') {
        *hi = -1;
        return 0;
    }
    if (parse_count(dash + 1, hi) != 0 || *hi < *lo)
        return -1;
    return 0;
}

/* A collective of collectives.def by name. */
static int parse_collective(const char *name, collsim_collective *out)
{
    const collsim_collective_info *info = collsim_find_collective(name);
    if (info == NULL)
        return -1;
    *out = info->collective;
    return 0;
}

/* One "key=value" of a rule into r. */
static int parse_setting(collsim_rule *r, char *token, const char *path, int line, char *err,
                         size_t errlen)
{
    char *eq = strchr(token, '=');
    if (eq == NULL || eq == token)
        return fail(err, errlen, path, line, "expected key=value, got", token);
    *eq = '\0';
    const char *key = token;
    char *value = eq + 1;
    if (strcmp(key, "np") == 0 || strcmp(key, "bytes") == 0) {
        long long *lo = key[0] == 'n' ? &r->np_min : &r->bytes_min;
        long long *hi = key[0] == 'n' ? &r->np_max : &r->bytes_max;
        if (parse_range(value, lo, hi) != 0)
            return fail(err, errlen, path, line,
                        key[0] == 'n' ? "np must be N, LO-HI or LO- (integers, LO <= HI), got"
                                      : "bytes must be N, LO-HI or LO- (integers, LO <= HI), got",
                        value);
        return 0;
    }
    const collsim_parameter_spec *spec = collsim_find_parameter(key);
    if (spec == NULL || spec->group == COLLSIM_PARAM_NONE)
        return fail(err, errlen, path, line, "unknown key", key);
    /* a name is kept in the rule itself: the line's text is reused */
    const size_t index = (size_t)(spec - collsim_parameter_specs());
    if (spec->type == COLLSIM_PARAMETER_NAME) {
        if (strlen(value) >= sizeof r->names[index])
            return fail(err, errlen, path, line, "malformed algorithm name", value);
        strcpy(r->names[index], value);
        value = r->names[index];
    }
    char why[192];
    if (collsim_parameter_parse(spec, value, key, &r->params, why, sizeof why) != 0)
        return fail(err, errlen, path, line, why, NULL);
    return 0;
}

/* One rule line (already split into tokens). */
static int parse_rule(collsim_rule *r, char **tokens, int ntokens, const char *path, int line,
                      char *err, size_t errlen)
{
    memset(r, 0, sizeof *r);
    r->line = line;
    r->np_max = -1;
    r->bytes_max = -1;
    if (ntokens < 2)
        return fail(err, errlen, path, line, "a rule is COLLECTIVE ALGORITHM [key=value ...]",
                    NULL);
    if (parse_collective(tokens[0], &r->collective) != 0)
        return fail(err, errlen, path, line, "unknown collective (collsim list):", tokens[0]);
    if (strcmp(tokens[1], "mpi") != 0) {
        r->algorithm = collsim_find_algorithm(tokens[0], tokens[1]);
        if (r->algorithm == NULL) {
            char what[128];
            snprintf(what, sizeof what, "unknown %s algorithm (collsim list), not", tokens[0]);
            return fail(err, errlen, path, line, what, tokens[1]);
        }
    }
    for (int i = 2; i < ntokens; i++)
        if (parse_setting(r, tokens[i], path, line, err, errlen) != 0)
            return -1;
    if (r->algorithm == NULL) {
        const collsim_params none = {0};
        if (memcmp(&r->params, &none, sizeof none) != 0)
            return fail(err, errlen, path, line, "the MPI library's algorithm (mpi) takes no "
                        "parameters", NULL);
        return 0;
    }
    const char *unused = collsim_check_parameters(r->algorithm, &r->params);
    if (unused != NULL) {
        char what[160];
        snprintf(what, sizeof what, "%s/%s %s", tokens[0], tokens[1], unused);
        return fail(err, errlen, path, line, what, NULL);
    }
    return 0;
}

int collsim_rules_read(const char *path, collsim_rules *out, char *err, size_t errlen)
{
    memset(out, 0, sizeof *out);
    FILE *file = fopen(path, "r");
    if (file == NULL) {
        snprintf(err, errlen, "cannot read rules file %s: %s", path, strerror(errno));
        return -1;
    }
    char text[MAX_LINE];
    int line = 0, seen_version = 0, status = 0;
    size_t capacity = 0;
    while (status == 0 && fgets(text, sizeof text, file) != NULL) {
        line++;
        if (strchr(text, '\n') == NULL && !feof(file)) {
            status = fail(err, errlen, path, line, "line longer than 1023 characters", NULL);
            break;
        }
        char *hash = strchr(text, '#');
        if (hash)
            *hash = '\0';
        char *tokens[32];
        int ntokens = 0;
        char *save = NULL; /* strtok_r: SMPI ranks may be threads of one process */
        for (char *t = strtok_r(text, " \t\r\n", &save); t != NULL;
             t = strtok_r(NULL, " \t\r\n", &save)) {
            if (ntokens == 32) {
                status = fail(err, errlen, path, line, "more than 32 words", NULL);
                break;
            }
            tokens[ntokens++] = t;
        }
        if (status != 0 || ntokens == 0)
            continue;
        if (!seen_version) {
            if (ntokens != 2 || strcmp(tokens[0], "collsim-rules") != 0 ||
                strcmp(tokens[1], "1") != 0)
                status = fail(err, errlen, path, line,
                              "the first line must be '" COLLSIM_RULES_VERSION_LINE "'", NULL);
            seen_version = 1;
            continue;
        }
        if (out->count == capacity) {
            capacity = capacity ? 2 * capacity : 8;
            collsim_rule *grown = realloc(out->rules, capacity * sizeof *grown);
            if (grown == NULL) {
                status = fail(err, errlen, path, line, "out of memory", NULL);
                break;
            }
            out->rules = grown;
        }
        collsim_rule *r = &out->rules[out->count];
        status = parse_rule(r, tokens, ntokens, path, line, err, errlen);
        if (status == 0) {
            out->has_collective[r->collective] = 1;
            out->count++;
        }
    }
    fclose(file);
    if (status == 0 && !seen_version)
        status = fail(err, errlen, path, line,
                      "empty: the first line must be '" COLLSIM_RULES_VERSION_LINE "'", NULL);
    if (status != 0) {
        collsim_rules_free(out);
        return -1;
    }
    /* names point into the rules themselves, now that they stopped moving */
    const collsim_parameter_spec *specs = collsim_parameter_specs();
    for (size_t i = 0; i < out->count; i++) {
        collsim_rule *r = &out->rules[i];
        for (size_t k = 0; k < COLLSIM_PARAMETER_COUNT; k++) {
            const char **name = (const char **)((char *)&r->params + specs[k].offset);
            if (specs[k].type == COLLSIM_PARAMETER_NAME && *name != NULL)
                *name = r->names[k];
        }
    }
    return 0;
}

const collsim_rule *collsim_rules_match(const collsim_rules *rules, collsim_collective collective,
                                        long long np, long long bytes)
{
    for (size_t i = 0; i < rules->count; i++) {
        const collsim_rule *r = &rules->rules[i];
        if (r->collective == collective && np >= r->np_min &&
            (r->np_max < 0 || np <= r->np_max) && bytes >= r->bytes_min &&
            (r->bytes_max < 0 || bytes <= r->bytes_max))
            return r;
    }
    return NULL;
}

void collsim_rules_free(collsim_rules *rules)
{
    free(rules->rules);
    memset(rules, 0, sizeof *rules);
}

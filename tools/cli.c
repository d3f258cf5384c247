#include "cli.h"

#include <errno.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static int parse_unsigned(const char *text, unsigned long long *out, char **end)
{
    if (!text || *text < '0' || *text > '9')
        return -1;
    errno = 0;
    *out = strtoull(text, end, 10);
    return errno == ERANGE ? -1 : 0;
}

int wk_parse_size(const char *text, size_t *out)
{
    unsigned long long value, exponent;
    char *end;
    if (parse_unsigned(text, &value, &end) != 0)
        return -1;
    if (end[0] == '^') {
        if (parse_unsigned(end + 1, &exponent, &end) != 0 || *end != '\0')
            return -1;
        if (value < 2) {
            *out = (size_t)value;
            return 0;
        }
        unsigned long long power = 1;
        for (unsigned long long i = 0; i < exponent; ++i) {
            if (power > SIZE_MAX / value)
                return -1;
            power *= value;
        }
        *out = (size_t)power;
        return 0;
    }
    unsigned shift = 0;
    switch (*end) {
    case '\0': break;
    case 'k': case 'K': shift = 10; end++; break;
    case 'm': case 'M': shift = 20; end++; break;
    case 'g': case 'G': shift = 30; end++; break;
    default: return -1;
    }
    if (*end != '\0' || value > (SIZE_MAX >> shift))
        return -1;
    *out = (size_t)(value << shift);
    return 0;
}

int wk_parse_dtype(const char *text, wk_dtype *out)
{
    for (int d = 0; d < WK_DTYPE_COUNT; ++d)
        if (text && strcmp(text, wk_dtype_name((wk_dtype)d)) == 0) {
            *out = (wk_dtype)d;
            return 0;
        }
    return -1;
}

int wk_parse_op(const char *text, wk_op *out)
{
    for (int o = 0; o < WK_OP_COUNT; ++o)
        if (text && strcmp(text, wk_op_name((wk_op)o)) == 0) {
            *out = (wk_op)o;
            return 0;
        }
    return -1;
}

static int fail(char *err, size_t err_size, const char *what, const char *arg)
{
    snprintf(err, err_size, "%s: %s", what, arg ? arg : "(missing)");
    return -1;
}

int wk_parse_cli(int argc, char **argv, wk_cli_options *opts, char *err, size_t err_size)
{
    memset(opts, 0, sizeof *opts);
    opts->repeats = 9;
    opts->device = -1;
    opts->command = argc > 1 ? argv[1] : "help";
    for (int i = 2; i < argc; ++i) {
        const char *arg = argv[i];
        const char *value = i + 1 < argc ? argv[i + 1] : NULL;
        if (strcmp(arg, "--quick") == 0) {
            opts->quick = 1;
            continue;
        }
        if (strcmp(arg, "--json") == 0) {
            if (!value)
                return fail(err, err_size, "--json needs a file name", value);
            opts->json_path = value;
        } else if (strcmp(arg, "--min-n") == 0 || strcmp(arg, "--max-n") == 0) {
            size_t *target = arg[2] == 'm' && arg[3] == 'i' ? &opts->min_n : &opts->max_n;
            if (wk_parse_size(value, target) != 0)
                return fail(err, err_size, "not a size (try 2^24, 16M or 16777216)", value);
        } else if (strcmp(arg, "--repeats") == 0 || strcmp(arg, "--device") == 0) {
            char *end = NULL;
            long v = value ? strtol(value, &end, 10) : 0;
            if (!value || *end != '\0' || v < 0 || v > 1000)
                return fail(err, err_size, "not a count", value);
            if (arg[2] == 'r') {
                if (v < 1)
                    return fail(err, err_size, "--repeats needs at least 1", value);
                opts->repeats = (int)v;
            } else {
                opts->device = (int)v;
            }
        } else {
            return fail(err, err_size, "unknown option", arg);
        }
        i++; /* every option but --quick takes a value */
    }
    if (opts->min_n && opts->max_n && opts->min_n > opts->max_n)
        return fail(err, err_size, "--min-n is larger than --max-n", NULL);
    return 0;
}

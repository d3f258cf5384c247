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

/* The names of wk_memory_kind's and wk_primitive's values, in their order. */
static const char *const memory_names[] = {"device", "managed", "pinned", "pageable"};
static const char *const primitive_names[] = {"reduce", "scan", "select", "segmented", "segmented-repro"};
#define NAME_COUNT(names) ((int)(sizeof names / sizeof names[0]))

/* The index of `text` in names[0 .. count), or -1 (also for NULL). */
static int find_name(const char *text, const char *const *names, int count)
{
    for (int k = 0; k < count; ++k)
        if (text && strcmp(text, names[k]) == 0)
            return k;
    return -1;
}

/* names[k], or "?" for a k out of range. */
static const char *name_at(const char *const *names, int count, int k)
{
    return k >= 0 && k < count ? names[k] : "?";
}

int wk_parse_memory(const char *text, wk_memory_kind *out)
{
    int k = find_name(text, memory_names, NAME_COUNT(memory_names));
    if (k >= 0)
        *out = (wk_memory_kind)k;
    return k >= 0 ? 0 : -1;
}

const char *wk_memory_name(wk_memory_kind kind) { return name_at(memory_names, NAME_COUNT(memory_names), (int)kind); }

int wk_parse_primitive(const char *text, wk_primitive *out)
{
    int k = find_name(text, primitive_names, NAME_COUNT(primitive_names));
    if (k >= 0)
        *out = (wk_primitive)k;
    return k >= 0 ? 0 : -1;
}

const char *wk_primitive_name(wk_primitive primitive)
{
    return name_at(primitive_names, NAME_COUNT(primitive_names), (int)primitive);
}

int wk_cli_selected(const char *only, const char *id)
{
    if (!only)
        return 1;
    size_t len = strlen(id);
    for (const char *p = only; *p;) {
        size_t item = strcspn(p, ",");
        if (item == len && strncmp(p, id, len) == 0)
            return 1;
        p += item + (p[item] == ',');
    }
    return 0;
}

static int fail(char *err, size_t err_size, const char *what, const char *arg)
{
    snprintf(err, err_size, "%s: %s", what, arg ? arg : "(missing)");
    return -1;
}

static int parse_count(const char *value, long lo, long hi, long *out)
{
    char *end = NULL;
    long v = value ? strtol(value, &end, 10) : 0;
    if (!value || *end != '\0' || v < lo || v > hi)
        return -1;
    *out = v;
    return 0;
}

/* Parses the option at argv[i] (and its value); returns how many arguments
 * it used, or -1 with a message in err. */
static int parse_option(wk_cli_options *o, const char *arg, const char *value, char *err, size_t err_size)
{
    long v;
    if (strcmp(arg, "--quick") == 0)
        return o->quick = 1, 1;
    if (strcmp(arg, "--ncu") == 0)
        return o->ncu = 1, 1;
    if (strcmp(arg, "--json") == 0 || strcmp(arg, "--csv") == 0 || strcmp(arg, "--only") == 0) {
        if (!value)
            return fail(err, err_size, "option needs a value", arg);
        *(arg[2] == 'j' ? &o->json_path : arg[2] == 'c' ? &o->csv_path : &o->only) = value;
        return 2;
    }
    if (strcmp(arg, "--min-n") == 0 || strcmp(arg, "--max-n") == 0 || strcmp(arg, "--n") == 0) {
        size_t *target = strcmp(arg, "--n") == 0 ? &o->n : arg[3] == 'i' ? &o->min_n : &o->max_n;
        if (wk_parse_size(value, target) != 0 || *target == 0)
            return fail(err, err_size, "not a size (try 2^24, 16M or 16777216)", value);
        o->n_given |= target == &o->n;
        return 2;
    }
    if (strcmp(arg, "--dtype") == 0)
        return wk_parse_dtype(value, &o->dtype) == 0 ? 2 : fail(err, err_size, "unknown dtype", value);
    if (strcmp(arg, "--memory") == 0)
        return wk_parse_memory(value, &o->memory) == 0
                   ? 2
                   : fail(err, err_size, "memory is device, managed, pinned or pageable", value);
    if (strcmp(arg, "--op") == 0)
        return wk_parse_primitive(value, &o->primitive) == 0
                   ? 2
                   : fail(err, err_size, "--op is reduce, scan, select, segmented or segmented-repro", value);
    if (strcmp(arg, "--regime") == 0) {
        static const char *const names[] = {"cold", "warm", "graph", "all"};
        for (int r = 0; value && r < 4; ++r)
            if (strcmp(value, names[r]) == 0)
                return o->regime = (wk_regime_choice)r, 2;
        return fail(err, err_size, "--regime is cold, warm, graph or all", value);
    }
    if (strcmp(arg, "--threads") == 0) {
        if (parse_count(value, 64, 1024, &v) != 0 || (v & (v - 1)) != 0)
            return fail(err, err_size, "threads is a power of two from 64 to 1024", value);
        o->threads = (unsigned)v;
        return 2;
    }
    if (strcmp(arg, "--repeats") == 0) {
        if (parse_count(value, 1, 1000, &v) != 0)
            return fail(err, err_size, "--repeats needs a count from 1 to 1000", value);
        o->repeats = (int)v;
        return 2;
    }
    if (strcmp(arg, "--device") == 0) {
        if (parse_count(value, 0, 1000, &v) != 0)
            return fail(err, err_size, "not a device number", value);
        o->device = (int)v;
        return 2;
    }
    return fail(err, err_size, "unknown option", arg);
}

static int is_help_flag(const char *arg) { return strcmp(arg, "--help") == 0 || strcmp(arg, "-h") == 0; }

int wk_parse_cli(int argc, char **argv, wk_cli_options *opts, char *err, size_t err_size)
{
    memset(opts, 0, sizeof *opts);
    opts->repeats = 9;
    opts->device = -1;
    opts->n = (size_t)1 << 24;
    opts->dtype = WK_F64;
    opts->threads = 512;
    opts->memory = WK_MEMORY_DEVICE;
    opts->primitive = WK_PRIMITIVE_REDUCE;
    opts->command = argc > 1 ? argv[1] : "help";
    /* warpkit --help / -h / help [COMMAND]: the usage of COMMAND, or all of it. */
    if (strcmp(opts->command, "help") == 0 || is_help_flag(opts->command)) {
        opts->command = "help";
        opts->help = 1;
        if (argc > 3)
            return fail(err, err_size, "help takes one command", argv[3]);
        if (argc == 3 && !is_help_flag(argv[2])) {
            if (!wk_cli_usage(argv[2]))
                return fail(err, err_size, "no such command", argv[2]);
            opts->command = argv[2];
        }
        return 0;
    }
    /* warpkit COMMAND ... --help: the command's usage; the rest is not read. */
    for (int i = 2; i < argc; ++i)
        if (is_help_flag(argv[i])) {
            opts->help = 1;
            return 0;
        }
    for (int i = 2; i < argc;) {
        int used = parse_option(opts, argv[i], i + 1 < argc ? argv[i + 1] : NULL, err, err_size);
        if (used < 0)
            return -1;
        i += used;
    }
    /* bench --n N: that size alone. */
    if (opts->n_given && strcmp(opts->command, "bench") == 0) {
        if (opts->min_n || opts->max_n)
            return fail(err, err_size, "bench takes --n or --min-n / --max-n, not both", NULL);
        opts->min_n = opts->max_n = opts->n;
    }
    if (opts->min_n && opts->max_n && opts->min_n > opts->max_n)
        return fail(err, err_size, "--min-n is larger than --max-n", NULL);
    return 0;
}

/* ------------------------------------------------------------------ usage */

#define WK_EXIT_STATUS "exit status: 0 success, 1 a check failed, 2 usage or runtime error, 3 no CUDA device\n"
#define WK_OPT_DEVICE "  --device N        CUDA device (default: the current one)\n"

static const char usage_all[] =
    "usage: warpkit COMMAND [options]\n"
    "       warpkit COMMAND --help, warpkit help COMMAND: the options of one command\n"
    "\n"
    "commands:\n"
    "  info     the device, its SMs, L2, memory and measured bandwidth ceilings\n"
    "  verify   run the GPU checks; TEST PASS / TEST FAIL per case\n"
    "  bench    warpkit beside CUB: reduce sum (f32 f64 i32; u8 bool i32 into i64, bf16 into f32),\n"
    "           min f32, argmax f32; with --op scan: inclusive sum, exclusive sum, inclusive max\n"
    "           (f32 f64 i32 i64), the inclusive sum of a bool mask into i64;\n"
    "           with --op select: select if, select flagged, unique, partition if (f32 i32),\n"
    "           each keeping 1 %, 50 % and 99 % of the input;\n"
    "           with --op segmented: segmented reduce and inclusive scan (f32 sums), uniform\n"
    "           segments and power-law offsets, at 2^26 and 2^28 elements, and the reproducible\n"
    "           segmented sum beside the plain one (--op segmented-repro: that alone)\n"
    "  ladder   the reduction ladder: kernels 01 to 11, warpkit (12) and CUB, verified and timed;\n"
    "           with --op scan: the three-kernel scan (s1, s2, s3, s123), warpkit and CUB\n"
    "  tune     sweep block and grid sizes for kernels 07, 08 and 12; print the best per size\n"
    "  help     this text; help COMMAND: the options of COMMAND\n"
    "\n"
    "options:\n"
    "  --op OP           bench, ladder: reduce (default) or scan; bench: select, segmented and\n"
    "                    segmented-repro as well\n"
    "  --json FILE       bench: also write the results as JSON\n"
    "  --min-n N         bench: smallest size (default 2^10); 2^24, 16M, 16777216 all work\n"
    "  --max-n N         bench: largest size (default 2^30)\n"
    "  --repeats N       bench: timed batches per case; ladder: timed runs per row; the median (default 9)\n"
    "  --quick           verify: skip the sizes over 2^31; bench: sizes up to 2^24\n"
    "  --regime R        bench: cold (default), warm, graph or all (see warpkit bench --help)\n"
    "  --n N             ladder: vector size (default 2^24); tune: one size instead of 2^20, 2^24, 2^26;\n"
    "                    bench: that size alone\n"
    "  --dtype T         ladder, tune: f64 (default), f32 or i32\n"
    "  --threads N       ladder: threads per block, a power of two from 64 to 1024 (default 512)\n"
    "  --memory M        ladder (reduce): where the input lives: device (default), managed, pinned, pageable\n"
    "  --only LIST       ladder: rows to run, e.g. 01,04,12,cub (--op scan: s1,s2,s3,s123,wk,cub)\n"
    "  --csv FILE        ladder: also write the rows as CSV (--json works too)\n"
    "  --ncu             ladder: print the ncu command line that profiles each row\n"
    WK_OPT_DEVICE
    "  --help, -h        the usage of the command it follows\n"
    "\n" WK_EXIT_STATUS;

static const char usage_info[] =
    "usage: warpkit info [--device N]\n"
    "\n"
    "The device, its SMs, L2 and memory, and its measured read and copy ceilings.\n"
    "\n"
    "options:\n" WK_OPT_DEVICE "\n" WK_EXIT_STATUS;

static const char usage_verify[] =
    "usage: warpkit verify [--quick] [--device N]\n"
    "\n"
    "Runs the reduce, scan, select, segmented and reproducible-sum checks on the GPU\n"
    "against the CPU reference: TEST PASS / TEST FAIL per case; without --quick, the\n"
    "hash of the 1024 fixed reproducible cases, which every GPU must match.\n"
    "\n"
    "options:\n"
    "  --quick           skip the cases over 2^31 elements; every 16th reproducible case\n" WK_OPT_DEVICE "\n"
    WK_EXIT_STATUS;

static const char usage_bench[] =
    "usage: warpkit bench [--op reduce|scan|select|segmented|segmented-repro] [--json FILE] [--min-n N]\n"
    "                     [--max-n N] [--n N] [--repeats N] [--quick] [--regime cold|warm|graph|all]\n"
    "                     [--device N]\n"
    "\n"
    "warpkit beside CUB in the same process, against the measured ceilings:\n"
    "  reduce (default)  sum (f32 f64 i32), min f32, argmax f32 beside DeviceReduce; sums into a wider\n"
    "                    dtype (u8 bool i32 into i64, bf16 into f32) beside DeviceReduce::Reduce with\n"
    "                    that output; with the newest CUB built in, the reproducible sum (f32 f64)\n"
    "                    beside its gpu_to_gpu sum\n"
    "  scan              inclusive sum, exclusive sum, inclusive max (f32 f64 i32 i64) beside DeviceScan;\n"
    "                    the inclusive sum of a bool mask into i64 beside InclusiveScanInit\n"
    "  select            select if, select flagged, unique, partition if (f32 i32), keeping 1 %, 50 %\n"
    "                    and 99 % of the input, beside DeviceSelect / DevicePartition\n"
    "  segmented         segmented reduce and inclusive scan (f32 sums) over 2^26 and 2^28 elements\n"
    "                    (those within --min-n .. --max-n, else --max-n alone), uniform segments of\n"
    "                    1 to 2^20 elements and power-law offsets, beside DeviceSegmentedReduce,\n"
    "                    DeviceSegmentedScan and DeviceScan by key; cold regime only; and the\n"
    "                    reproducible segmented sum beside warpkit's plain one\n"
    "  segmented-repro   the reproducible segmented sum alone, beside the plain one\n"
    "\n"
    "options:\n"
    "  --op OP           reduce (default), scan, select, segmented or segmented-repro\n"
    "  --json FILE       also write the results as JSON\n"
    "  --min-n N         smallest size (default 2^10); 2^24, 16M, 16777216 all work\n"
    "  --max-n N         largest size (default 2^30); sizes step by 4x\n"
    "  --n N             that size alone\n"
    "  --repeats N       timed batches per case; the median is reported (default 9)\n"
    "  --quick           sizes up to 2^24\n"
    "  --regime R        cold (default): inputs rotate over 2 GiB, never in L2; warm: the same buffers\n"
    "                    every call; graph: the calls captured into a CUDA graph and replayed, without\n"
    "                    the host's launch cost; all: the three (warm and graph up to 2^24)\n"
    WK_OPT_DEVICE "\n" WK_EXIT_STATUS;

static const char usage_ladder[] =
    "usage: warpkit ladder [--op reduce|scan] [--n N] [--dtype T] [--threads N] [--memory M]\n"
    "                      [--only LIST] [--csv FILE] [--json FILE] [--ncu] [--repeats N] [--device N]\n"
    "\n"
    "The reduction ladder: kernels 01 to 11, warpkit (12) and CUB, verified and timed;\n"
    "with --op scan: the three-kernel scan (s1, s2, s3, s123), warpkit and CUB.\n"
    "\n"
    "options:\n"
    "  --op OP           reduce (default) or scan\n"
    "  --n N             vector size (default 2^24); 2^24, 16M, 16777216 all work\n"
    "  --dtype T         f64 (default), f32 or i32\n"
    "  --threads N       threads per block, a power of two from 64 to 1024 (default 512)\n"
    "  --memory M        where the input lives: device (default), managed, pinned, pageable\n"
    "  --only LIST       rows to run, e.g. 01,04,12,cub (--op scan: s1,s2,s3,s123,wk,cub)\n"
    "  --csv FILE        also write the rows as CSV\n"
    "  --json FILE       also write the rows as JSON\n"
    "  --ncu             print the ncu command line that profiles each row\n"
    "  --repeats N       timed runs per row; the median is reported (default 9)\n" WK_OPT_DEVICE
    "\n" WK_EXIT_STATUS;

static const char usage_tune[] =
    "usage: warpkit tune [--n N] [--dtype T] [--repeats N] [--device N]\n"
    "\n"
    "Sweeps block and grid sizes for ladder kernels 07 and 08 and warpkit's reduce;\n"
    "prints the best per size.\n"
    "\n"
    "options:\n"
    "  --n N             one size instead of 2^20, 2^24 and 2^26\n"
    "  --dtype T         f64 (default), f32 or i32\n"
    "  --repeats N       timed runs per shape; the median is reported (default 9)\n" WK_OPT_DEVICE
    "\n" WK_EXIT_STATUS;

const char *wk_cli_usage(const char *command)
{
    static const struct {
        const char *name, *text;
    } usages[] = {{"help", usage_all},     {"info", usage_info},     {"verify", usage_verify},
                  {"bench", usage_bench}, {"ladder", usage_ladder}, {"tune", usage_tune}};
    for (size_t i = 0; command && i < sizeof usages / sizeof usages[0]; ++i)
        if (strcmp(command, usages[i].name) == 0)
            return usages[i].text;
    return NULL;
}

/* The warpkit command. */
#include "bench/bench.h"
#include "cli.h"
#include "verify.h"
#include "warpkit.h"

#include <stdio.h>
#include <string.h>

/* The usage of `command` when it is one, else of the whole command. */
static void usage(FILE *f, const char *command)
{
    const char *text = wk_cli_usage(command);
    fputs(text ? text : wk_cli_usage("help"), f);
}

int main(int argc, char **argv)
{
    wk_cli_options opts;
    char err[256];
    if (wk_parse_cli(argc, argv, &opts, err, sizeof err) != 0) {
        fprintf(stderr, "warpkit: %s\n\n", err);
        usage(stderr, opts.command);
        return 2;
    }
    /* --help, -h, help [COMMAND]: the usage on stdout, exit 0. */
    if (opts.help) {
        if (!wk_cli_usage(opts.command)) {
            fprintf(stderr, "warpkit: unknown command '%s'\n\n", opts.command);
            usage(stderr, "help");
            return 2;
        }
        usage(stdout, opts.command);
        return 0;
    }
    if (opts.primitive != WK_PRIMITIVE_REDUCE &&
        (strcmp(opts.command, "info") == 0 || strcmp(opts.command, "verify") == 0 ||
         strcmp(opts.command, "tune") == 0)) {
        fprintf(stderr, "warpkit: --op applies to bench and ladder only\n\n");
        usage(stderr, opts.command);
        return 2;
    }
    /* There is no select or segmented ladder: without this, the reduce
     * ladder would run. */
    if ((opts.primitive == WK_PRIMITIVE_SELECT || opts.primitive == WK_PRIMITIVE_SEGMENTED ||
         opts.primitive == WK_PRIMITIVE_SEGMENTED_REPRO) &&
        strcmp(opts.command, "ladder") == 0) {
        fprintf(stderr, "warpkit: --op %s applies to bench only\n\n", wk_primitive_name(opts.primitive));
        usage(stderr, opts.command);
        return 2;
    }
    if (strcmp(opts.command, "info") == 0)
        return wk_info_main(&opts);
    if (strcmp(opts.command, "verify") == 0)
        return wk_verify_main(&opts);
    if (strcmp(opts.command, "bench") == 0)
        return wk_bench_main(&opts);
    if (strcmp(opts.command, "ladder") == 0)
        return wk_ladder_main(&opts);
    if (strcmp(opts.command, "tune") == 0)
        return wk_tune_main(&opts);
    fprintf(stderr, "warpkit: unknown command '%s'\n\n", opts.command);
    usage(stderr, opts.command);
    return 2;
}

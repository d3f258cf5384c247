/* The warpkit command. */
#include "bench.h"
#include "cli.h"
#include "verify.h"
#include "warpkit.h"

#include <stdio.h>
#include <string.h>

static void usage(FILE *f)
{
    fprintf(f,
            "usage: warpkit COMMAND [options]\n"
            "\n"
            "commands:\n"
            "  info     the device, its SMs, L2, memory and measured bandwidth ceilings\n"
            "  verify   run the GPU checks; TEST PASS / TEST FAIL per case\n"
            "  bench    warpkit beside CUB: reduce sum (f32 f64 i32), min f32, argmax f32;\n"
            "           with --op scan: inclusive sum, exclusive sum, inclusive max (f32 f64 i32 i64);\n"
            "           with --op select: select if, select flagged, unique, partition if (f32 i32),\n"
            "           each keeping 1 %%, 50 %% and 99 %% of the input\n"
            "  ladder   the reduction ladder: kernels 01 to 11, warpkit (12) and CUB, verified and timed;\n"
            "           with --op scan: the three-kernel scan (s1, s2, s3, s123), warpkit and CUB\n"
            "  tune     sweep block and grid sizes for kernels 07, 08 and 12; print the best per size\n"
            "  help     this text\n"
            "\n"
            "options:\n"
            "  --op OP           bench, ladder: reduce (default) or scan; bench: select as well\n"
            "  --json FILE       bench: also write the results as JSON\n"
            "  --min-n N         bench: smallest size (default 2^10); 2^24, 16M, 16777216 all work\n"
            "  --max-n N         bench: largest size (default 2^30)\n"
            "  --repeats N       bench: timed batches per case; ladder: timed runs per row; the median (default 9)\n"
            "  --quick           verify: skip the sizes over 2^31; bench: sizes up to 2^24\n"
            "  --n N             ladder: vector size (default 2^24); tune: one size instead of 2^20, 2^24, 2^26;\n"
            "                    bench: that size alone\n"
            "  --dtype T         ladder, tune: f64 (default), f32 or i32\n"
            "  --threads N       ladder: threads per block, a power of two from 64 to 1024 (default 512)\n"
            "  --memory M        ladder (reduce): where the input lives: device (default), managed, pinned, pageable\n"
            "  --only LIST       ladder: rows to run, e.g. 01,04,12,cub (--op scan: s1,s2,s3,s123,wk,cub)\n"
            "  --csv FILE        ladder: also write the rows as CSV (--json works too)\n"
            "  --ncu             ladder: print the ncu command line that profiles each row\n"
            "  --device N        CUDA device (default: the current one)\n"
            "\n"
            "exit status: 0 success, 1 a check failed, 2 usage or runtime error, 3 no CUDA device\n");
}

int main(int argc, char **argv)
{
    wk_cli_options opts;
    char err[256];
    if (wk_parse_cli(argc, argv, &opts, err, sizeof err) != 0) {
        fprintf(stderr, "warpkit: %s\n\n", err);
        usage(stderr);
        return 2;
    }
    if (opts.primitive != WK_PRIMITIVE_REDUCE &&
        (strcmp(opts.command, "info") == 0 || strcmp(opts.command, "verify") == 0 ||
         strcmp(opts.command, "tune") == 0)) {
        fprintf(stderr, "warpkit: --op applies to bench and ladder only\n\n");
        usage(stderr);
        return 2;
    }
    /* There is no select ladder: without this, the reduce ladder would run. */
    if (opts.primitive == WK_PRIMITIVE_SELECT && strcmp(opts.command, "ladder") == 0) {
        fprintf(stderr, "warpkit: --op select applies to bench only\n\n");
        usage(stderr);
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
    if (strcmp(opts.command, "help") == 0 || strcmp(opts.command, "--help") == 0 ||
        strcmp(opts.command, "-h") == 0) {
        usage(stdout);
        return 0;
    }
    fprintf(stderr, "warpkit: unknown command '%s'\n\n", opts.command);
    usage(stderr);
    return 2;
}

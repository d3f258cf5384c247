#include "verify.h"

#include "reduce_cases.h"

#include <stdio.h>
#include <stdlib.h>

static int run_cases(wk_check_env *env, const wk_reduce_case *cases, size_t count, int *failed)
{
    char msg[640];
    for (size_t i = 0; i < count; ++i) {
        int ok = wk_check_reduce_case(env, &cases[i], msg, sizeof msg);
        printf("%s  %s\n", ok ? "TEST PASS" : "TEST FAIL", msg);
        fflush(stdout);
        *failed += !ok;
    }
    return (int)count;
}

int wk_verify_main(const wk_cli_options *opts)
{
    wk_check_env env;
    wk_status st = wk_check_env_init(&env, opts->device);
    if (st != WK_SUCCESS) {
        fprintf(stderr, "warpkit verify: %s\n", wk_last_error_message());
        return st == WK_ERROR_NO_DEVICE ? 3 : 2;
    }
    uint64_t seed = wk_seed_from_time();
    printf("seed %llu (set WK_SEED to repeat)\n", (unsigned long long)seed);

    size_t count = wk_reduce_cases(WK_CASES_QUICK, wk_context_sm_count(env.ctx), seed, NULL, 0);
    size_t huge = opts->quick ? 0 : wk_reduce_huge_cases(seed, NULL, 0);
    wk_reduce_case *cases = malloc((count + huge) * sizeof *cases);
    if (!cases) {
        fprintf(stderr, "warpkit verify: out of host memory\n");
        return 2;
    }
    wk_reduce_cases(WK_CASES_QUICK, wk_context_sm_count(env.ctx), seed, cases, count);
    wk_reduce_huge_cases(seed, cases + count, huge);

    int failed = 0;
    int total = run_cases(&env, cases, count + huge, &failed);
    printf("%d passed, %d failed\n", total - failed, failed);
    free(cases);
    wk_check_env_free(&env);
    return failed ? 1 : 0;
}

#include "verify.h"

#include "reduce_cases.h"
#include "scan_cases.h"
#include "select_cases.h"

#include <stdio.h>
#include <stdlib.h>

typedef struct verify_counts {
    int passed, failed, skipped;
} verify_counts;

static void report(wk_check_result r, const char *msg, verify_counts *counts)
{
    const char *tag = r == WK_CHECK_PASS ? "TEST PASS" : r == WK_CHECK_SKIP ? "TEST SKIP" : "TEST FAIL";
    printf("%s  %s\n", tag, msg);
    fflush(stdout);
    if (r == WK_CHECK_PASS)
        counts->passed++;
    else if (r == WK_CHECK_SKIP)
        counts->skipped++;
    else
        counts->failed++;
}

static int run_reduce(wk_check_env *env, int quick, uint64_t seed, verify_counts *counts)
{
    size_t count = wk_reduce_cases(WK_CASES_QUICK, wk_context_sm_count(env->ctx), seed, NULL, 0);
    size_t huge = quick ? 0 : wk_reduce_huge_cases(seed, NULL, 0);
    wk_reduce_case *cases = malloc((count + huge) * sizeof *cases);
    if (!cases)
        return -1;
    wk_reduce_cases(WK_CASES_QUICK, wk_context_sm_count(env->ctx), seed, cases, count);
    wk_reduce_huge_cases(seed, cases + count, huge);
    char msg[640];
    for (size_t i = 0; i < count + huge; ++i) {
        int ok = wk_check_reduce_case(env, &cases[i], msg, sizeof msg);
        report(ok ? WK_CHECK_PASS : WK_CHECK_FAIL, msg, counts);
    }
    free(cases);
    return 0;
}

static int run_scan(wk_check_env *env, int quick, uint64_t seed, verify_counts *counts)
{
    size_t count = wk_scan_cases(WK_CASES_QUICK, seed, NULL, 0);
    size_t huge = quick ? 0 : wk_scan_huge_cases(seed, NULL, 0);
    wk_scan_case *cases = malloc((count + huge) * sizeof *cases);
    if (!cases)
        return -1;
    wk_scan_cases(WK_CASES_QUICK, seed, cases, count);
    wk_scan_huge_cases(seed, cases + count, huge);
    char msg[2048];
    for (size_t i = 0; i < count + huge; ++i)
        report(wk_check_scan_case(env, &cases[i], msg, sizeof msg), msg, counts);
    free(cases);
    return 0;
}

static int run_select(wk_check_env *env, int quick, uint64_t seed, verify_counts *counts)
{
    size_t count = wk_select_cases(WK_CASES_QUICK, seed, NULL, 0);
    size_t huge = quick ? 0 : wk_select_huge_cases(seed, NULL, 0);
    wk_select_case *cases = malloc((count + huge) * sizeof *cases);
    if (!cases)
        return -1;
    wk_select_cases(WK_CASES_QUICK, seed, cases, count);
    wk_select_huge_cases(seed, cases + count, huge);
    char msg[2048];
    for (size_t i = 0; i < count + huge; ++i)
        report(wk_check_select_case(env, &cases[i], msg, sizeof msg), msg, counts);
    free(cases);
    return 0;
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

    verify_counts counts = {0, 0, 0};
    /* The scan and select cases draw their seeds from streams of their
     * own, so that case k of one does not get the data of case k of
     * another. */
    if (run_reduce(&env, opts->quick, seed, &counts) != 0 ||
        run_scan(&env, opts->quick, wk_rand64(seed, UINT64_C(0x5ca7)), &counts) != 0 ||
        run_select(&env, opts->quick, wk_rand64(seed, UINT64_C(0x5e1ec7)), &counts) != 0) {
        fprintf(stderr, "warpkit verify: out of host memory\n");
        wk_check_env_free(&env);
        return 2;
    }
    printf("%d passed, %d failed", counts.passed, counts.failed);
    if (counts.skipped)
        printf(", %d skipped for lack of memory", counts.skipped);
    printf("\n");
    wk_check_env_free(&env);
    return counts.failed ? 1 : 0;
}

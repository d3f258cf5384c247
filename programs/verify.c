#include "verify.h"

#include "check/case_family.h"
#include "check/repro_check.h"
#include "ref/generate.h"

#include <inttypes.h>
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

/* The reproducible sums: the fixed list (every 16th case with --quick) and
 * the hash of its results, which the whole list prints. */
static int repro_quick;
static uint64_t repro_hash;
static size_t repro_list(wk_case_level level, int sm_count, uint64_t seed, void *out, size_t cap)
{
    (void)level, (void)sm_count, (void)seed;
    size_t k = 0;
    for (size_t i = 0; i < WK_REPRO_CASES; ++i) {
        if (repro_quick && i % 16)
            continue;
        if (out && k < cap)
            wk_repro_case_get(i, (wk_repro_case *)out + k);
        k++;
    }
    return k;
}
static wk_check_result repro_check(wk_check_env *env, const void *c, char *msg, size_t msg_size)
{
    uint64_t bits;
    wk_check_result r = wk_check_repro_case(env, c, &bits, msg, msg_size);
    repro_hash = wk_repro_hash_add(repro_hash, bits);
    return r;
}

static const wk_case_family repro_family = {"reproducible sums (whole and segmented)", sizeof(wk_repro_case),
                                            repro_list, NULL, repro_check};

/* Runs the family's quick list, and without `quick` its huge cases too. */
static int run_family(const wk_case_family *f, wk_check_env *env, int quick, uint64_t seed, verify_counts *counts)
{
    size_t count, huge;
    char *cases = wk_case_family_cases(f, WK_CASES_QUICK, wk_context_sm_count(env->ctx), seed, !quick, &count, &huge);
    if (!cases)
        return -1;
    printf("== %s: %zu cases\n", f->name, count + huge);
    char msg[2048];
    for (size_t i = 0; i < count + huge; ++i)
        report(f->check(env, cases + i * f->case_size, msg, sizeof msg), msg, counts);
    free(cases);
    return 0;
}

/* The fixed list's inputs are the same on every machine; the whole list
 * prints the hash of its results, which every GPU must match. */
static int run_repro(wk_check_env *env, int quick, verify_counts *counts)
{
    repro_quick = quick;
    repro_hash = WK_REPRO_HASH_START;
    int before = counts->failed;
    if (run_family(&repro_family, env, 1, 0, counts) != 0)
        return -1;
    if (!quick && counts->failed == before)
        printf("reproducibility: cases=%d hash=%016" PRIx64 "\n", WK_REPRO_CASES, repro_hash);
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
    if (run_family(&wk_reduce_family, &env, opts->quick, seed, &counts) != 0 ||
        run_family(&wk_scan_family, &env, opts->quick, wk_rand64(seed, UINT64_C(0x5ca7)), &counts) != 0 ||
        run_family(&wk_select_family, &env, opts->quick, wk_rand64(seed, UINT64_C(0x5e1ec7)), &counts) != 0 ||
        run_family(&wk_segmented_family, &env, opts->quick, wk_rand64(seed, UINT64_C(0x5e6)), &counts) != 0 ||
        run_repro(&env, opts->quick, &counts) != 0) {
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

#include "verify.h"

#include "check/reduce_cases.h"
#include "check/repro_check.h"
#include "check/scan_cases.h"
#include "check/segmented_check.h"
#include "check/select_cases.h"

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

/* One family of cases, behind untyped adapters so that one loop runs
 * them all: its quick list, its cases over 2^31 elements, and its check. */
typedef struct case_family {
    const char *name;
    size_t case_size;
    size_t (*list)(const wk_check_env *env, uint64_t seed, void *out, size_t cap);
    size_t (*huge)(uint64_t seed, void *out, size_t cap);
    wk_check_result (*check)(wk_check_env *env, const void *c, char *msg, size_t msg_size);
} case_family;

static size_t reduce_list(const wk_check_env *env, uint64_t seed, void *out, size_t cap)
{
    return wk_reduce_cases(WK_CASES_QUICK, wk_context_sm_count(env->ctx), seed, out, cap);
}
static size_t reduce_huge(uint64_t seed, void *out, size_t cap) { return wk_reduce_huge_cases(seed, out, cap); }
static wk_check_result reduce_check(wk_check_env *env, const void *c, char *msg, size_t msg_size)
{
    return wk_check_reduce_case(env, c, msg, msg_size) ? WK_CHECK_PASS : WK_CHECK_FAIL;
}

static size_t scan_list(const wk_check_env *env, uint64_t seed, void *out, size_t cap)
{
    (void)env;
    return wk_scan_cases(WK_CASES_QUICK, seed, out, cap);
}
static size_t scan_huge(uint64_t seed, void *out, size_t cap) { return wk_scan_huge_cases(seed, out, cap); }
static wk_check_result scan_check(wk_check_env *env, const void *c, char *msg, size_t msg_size)
{
    return wk_check_scan_case(env, c, msg, msg_size);
}

static size_t select_list(const wk_check_env *env, uint64_t seed, void *out, size_t cap)
{
    (void)env;
    return wk_select_cases(WK_CASES_QUICK, seed, out, cap);
}
static size_t select_huge(uint64_t seed, void *out, size_t cap) { return wk_select_huge_cases(seed, out, cap); }
static wk_check_result select_check(wk_check_env *env, const void *c, char *msg, size_t msg_size)
{
    return wk_check_select_case(env, c, msg, msg_size);
}

static size_t segmented_list(const wk_check_env *env, uint64_t seed, void *out, size_t cap)
{
    (void)env;
    return wk_segmented_cases(WK_CASES_QUICK, seed, out, cap);
}
static size_t no_huge(uint64_t seed, void *out, size_t cap)
{
    (void)seed, (void)out, (void)cap;
    return 0;
}
static wk_check_result segmented_check(wk_check_env *env, const void *c, char *msg, size_t msg_size)
{
    return wk_check_segmented_case(env, c, msg, msg_size);
}

/* The reproducible sums: the fixed list (every 16th case with --quick) and
 * the hash of its results, which the whole list prints. */
static int repro_quick;
static uint64_t repro_hash;
static size_t repro_list(const wk_check_env *env, uint64_t seed, void *out, size_t cap)
{
    (void)env, (void)seed;
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

static const case_family reduce_family = {"reduce", sizeof(wk_reduce_case), reduce_list, reduce_huge, reduce_check};
static const case_family scan_family = {"scan", sizeof(wk_scan_case), scan_list, scan_huge, scan_check};
static const case_family select_family = {"select", sizeof(wk_select_case), select_list, select_huge,
                                          select_check};
static const case_family segmented_family = {"segmented reduce and scans", sizeof(wk_segmented_case),
                                             segmented_list, no_huge, segmented_check};
static const case_family repro_family = {"reproducible sums (whole and segmented)", sizeof(wk_repro_case),
                                         repro_list, no_huge, repro_check};

/* Runs the family's quick list, and without `quick` its huge cases too. */
static int run_family(const case_family *f, wk_check_env *env, int quick, uint64_t seed, verify_counts *counts)
{
    size_t count = f->list(env, seed, NULL, 0);
    size_t huge = quick ? 0 : f->huge(seed, NULL, 0);
    char *cases = malloc((count + huge) * f->case_size);
    if (!cases)
        return -1;
    f->list(env, seed, cases, count);
    f->huge(seed, cases + count * f->case_size, huge);
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
    if (run_family(&reduce_family, &env, opts->quick, seed, &counts) != 0 ||
        run_family(&scan_family, &env, opts->quick, wk_rand64(seed, UINT64_C(0x5ca7)), &counts) != 0 ||
        run_family(&select_family, &env, opts->quick, wk_rand64(seed, UINT64_C(0x5e1ec7)), &counts) != 0 ||
        run_family(&segmented_family, &env, opts->quick, wk_rand64(seed, UINT64_C(0x5e6)), &counts) != 0 ||
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

/* The body shared by the GPU tests that run a whole case list (test_scan,
 * test_select) and the start they share with test_reduce, so that every
 * list is set up, run, reported and counted the same way. */
#ifndef WARPKIT_CASE_TEST_UTIL_H
#define WARPKIT_CASE_TEST_UTIL_H

#include "check_env.h"
#include "generate.h"
#include "test_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>

/* What a case-list test runs with. */
typedef struct wk_case_test {
    wk_check_env env;
    int quick; /* WK_TEST_QUICK: the short list */
    uint64_t seed;
} wk_case_test;

/* The start of a case-list test: the check environment on the default
 * device, WK_TEST_QUICK, and the seed, printed so that a run can be
 * repeated. Returns -1 to go on, or the exit status (77 without a device). */
static inline int wk_case_test_start(wk_case_test *t)
{
    int setup = wk_test_setup(wk_check_env_init(&t->env, -1), "set-up");
    if (setup >= 0)
        return setup;
    t->quick = wk_test_quick();
    t->seed = wk_seed_from_time();
    printf("seed %llu (set WK_SEED to repeat)%s\n", (unsigned long long)t->seed, t->quick ? ", quick list" : "");
    return -1;
}

/* One kind of case list; the cases are opaque, case_bytes each. */
typedef struct wk_case_list {
    size_t case_bytes;
    /* Writes up to cap cases to out (none when out is NULL) and returns how
     * many the list holds. */
    size_t (*cases)(wk_case_level level, uint64_t seed, void *out, size_t cap);
    /* The same for the cases over 2^31 elements, left out of the quick list. */
    size_t (*huge_cases)(uint64_t seed, void *out, size_t cap);
    /* Runs one case on the device and checks it, its verdict in msg. */
    wk_check_result (*check)(wk_check_env *env, const void *c, char *msg, size_t msg_size);
    /* The case's element count. */
    size_t (*elements)(const void *c);
} wk_case_list;

/* Runs every case of the list (the quick one under WK_TEST_QUICK) and
 * returns the exit status: 0 when all pass, 1 otherwise, 77 without a
 * device. Cases skipped for lack of memory count neither way. */
static inline int wk_run_case_list(const wk_case_list *list)
{
    wk_case_test t;
    int start = wk_case_test_start(&t);
    if (start >= 0)
        return start;
    wk_check_env *env = &t.env;
    int quick = t.quick;
    uint64_t seed = t.seed;

    wk_case_level level = quick ? WK_CASES_QUICK : WK_CASES_FULL;
    size_t count = list->cases(level, seed, NULL, 0);
    size_t huge = quick ? 0 : list->huge_cases(seed, NULL, 0);
    unsigned char *cases = malloc((count + huge) * list->case_bytes);
    if (!cases)
        return 1;
    list->cases(level, seed, cases, count);
    list->huge_cases(seed, cases + count * list->case_bytes, huge);
    printf("%zu cases, %zu of them over 2^31 elements\n", count + huge, huge);

    wk_tally tally = {0, 0};
    int skipped = 0;
    char msg[2048];
    for (size_t i = 0; i < count + huge; ++i) {
        const void *c = cases + i * list->case_bytes;
        wk_check_result r = list->check(env, c, msg, sizeof msg);
        if (r == WK_CHECK_SKIP) {
            printf("SKIP %s\n", msg);
            skipped++;
            continue;
        }
        /* Failures always print; passes only for the large cases, to keep the log short. */
        if (r != WK_CHECK_PASS || list->elements(c) > ((size_t)1 << 20))
            printf("%s %s\n", r == WK_CHECK_PASS ? "pass" : "FAIL", msg);
        fflush(stdout);
        wk_tally_add(&tally, r == WK_CHECK_PASS);
    }
    if (skipped)
        printf("%d cases skipped for lack of memory\n", skipped);
    free(cases);
    wk_check_env_free(env);
    return wk_tally_finish(&tally);
}

#endif

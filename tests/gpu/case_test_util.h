/* The body shared by the GPU tests that run a whole case list (test_scan,
 * test_select) and the start they share with test_reduce, so that every
 * list is set up, run, reported and counted the same way. */
#ifndef WARPKIT_CASE_TEST_UTIL_H
#define WARPKIT_CASE_TEST_UTIL_H

#include "check/check_env.h"
#include "ref/generate.h"
#include "test_util.h"

#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* What a case-list test runs with. */
typedef struct wk_case_test {
    wk_check_env env;
    wk_test_level level; /* WK_TEST_LEVEL (or WK_TEST_QUICK): which cases */
    uint64_t seed;
} wk_case_test;

/* The start of a case-list test: the check environment on the default
 * device, the level, and the seed, printed so that a run can be repeated.
 * Returns -1 to go on, or the exit status (77 without a device). */
static inline int wk_case_test_start(wk_case_test *t)
{
    t->level = wk_test_level_get();
    int setup = wk_test_setup(wk_check_env_init(&t->env, -1), "set-up");
    if (setup >= 0)
        return setup;
    t->seed = wk_seed_from_time();
    printf("seed %llu (set WK_SEED to repeat), level %s\n", (unsigned long long)t->seed,
           wk_test_level_name(t->level));
    return -1;
}

/* Keeps the cases of the full list (huge ones included) that belong to the
 * level, in order, and returns how many; bytes(c) is a case's input size. */
static inline size_t wk_case_test_filter(wk_test_level level, void *cases, size_t count, size_t case_bytes,
                                         size_t (*bytes)(const void *c))
{
    unsigned char *base = (unsigned char *)cases;
    size_t kept = 0;
    for (size_t i = 0; i < count; ++i)
        if (wk_test_level_runs(level, bytes(base + i * case_bytes))) {
            if (kept != i)
                memcpy(base + kept * case_bytes, base + i * case_bytes, case_bytes);
            kept++;
        }
    return kept;
}

/* The closing line of a case-list test: how many cases the level ran, left
 * out and skipped, and the seed again (the start of a long log may be gone). */
static inline void wk_case_test_report(const wk_case_test *t, size_t run, size_t left_out, int skipped)
{
    unsigned long long mib = (unsigned long long)(WK_TEST_DEFAULT_MAX_BYTES >> 20);
    printf("level %s: %zu cases run, %zu left out", wk_test_level_name(t->level), run, left_out);
    if (t->level == WK_LEVEL_DEFAULT)
        printf(" (inputs over %llu MiB: WK_TEST_LEVEL=large runs them)", mib);
    else if (t->level == WK_LEVEL_LARGE)
        printf(" (inputs up to %llu MiB: the default level runs them)", mib);
    printf(", %d skipped for lack of memory; seed %llu\n", skipped, (unsigned long long)t->seed);
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
    /* The case's input size in bytes, which places it in a level. */
    size_t (*bytes)(const void *c);
} wk_case_list;

/* Defines `name`, the wk_case_list of a case type with fields n and dtype:
 * its lists come from cases_fn(level, seed, out, cap) and huge_fn(seed,
 * out, cap), its check from check_fn(env, c, msg, msg_size), each typed on
 * the case type and so called through a wrapper of the list's own type. */
#define WK_CASE_LIST(name, case_type, cases_fn, huge_fn, check_fn)                                             \
    static size_t name##_cases(wk_case_level level, uint64_t seed, void *out, size_t cap)                      \
    {                                                                                                          \
        return cases_fn(level, seed, (case_type *)out, cap);                                                   \
    }                                                                                                          \
    static size_t name##_huge(uint64_t seed, void *out, size_t cap)                                            \
    {                                                                                                          \
        return huge_fn(seed, (case_type *)out, cap);                                                           \
    }                                                                                                          \
    static wk_check_result name##_check(wk_check_env *env, const void *c, char *msg, size_t msg_size)          \
    {                                                                                                          \
        return check_fn(env, (const case_type *)c, msg, msg_size);                                             \
    }                                                                                                          \
    static size_t name##_elements(const void *c) { return ((const case_type *)c)->n; }                         \
    static size_t name##_bytes(const void *c)                                                                  \
    {                                                                                                          \
        const case_type *k = (const case_type *)c;                                                             \
        return k->n * wk_dtype_size(k->dtype);                                                                 \
    }                                                                                                          \
    static const wk_case_list name = {sizeof(case_type), name##_cases, name##_huge, name##_check,              \
                                      name##_elements, name##_bytes}

/* Runs the cases of the list at the level (quick: the quick list; default:
 * the full list up to 2^27 bytes of input; large: the rest of it and the
 * cases over 2^31 elements) and returns the exit status: 0 when all pass, 1
 * otherwise, 77 without a device. Cases skipped for lack of memory count
 * neither way. */
static inline int wk_run_case_list(const wk_case_list *list)
{
    wk_case_test t;
    int start = wk_case_test_start(&t);
    if (start >= 0)
        return start;
    wk_check_env *env = &t.env;
    int quick = t.level == WK_LEVEL_QUICK;
    uint64_t seed = t.seed;

    wk_case_level level = quick ? WK_CASES_QUICK : WK_CASES_FULL;
    size_t count = list->cases(level, seed, NULL, 0);
    size_t huge = quick ? 0 : list->huge_cases(seed, NULL, 0);
    unsigned char *cases = malloc((count + huge) * list->case_bytes);
    if (!cases)
        return 1;
    list->cases(level, seed, cases, count);
    list->huge_cases(seed, cases + count * list->case_bytes, huge);
    size_t total = count + huge, run = total;
    if (!quick)
        run = wk_case_test_filter(t.level, cases, total, list->case_bytes, list->bytes);
    size_t over = 0;
    for (size_t i = 0; i < run; ++i)
        over += list->elements(cases + i * list->case_bytes) > ((size_t)1 << 31);
    printf("%zu cases at level %s, %zu of them over 2^31 elements\n", run, wk_test_level_name(t.level), over);

    wk_tally tally = {0, 0};
    int skipped = 0;
    char msg[2048];
    for (size_t i = 0; i < run; ++i) {
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
    wk_case_test_report(&t, run - (size_t)skipped, total - run, skipped);
    free(cases);
    wk_check_env_free(env);
    return wk_tally_finish(&tally);
}

#endif

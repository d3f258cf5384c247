/* Small helpers shared by the test programs: counting and the final line. */
#ifndef WARPKIT_TEST_UTIL_H
#define WARPKIT_TEST_UTIL_H

#include <stdarg.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "warpkit.h"

/* CTest's SKIP_RETURN_CODE for the GPU tests. */
#define WK_TEST_SKIP 77

typedef struct wk_tally {
    int passed, failed;
} wk_tally;

static inline void wk_tally_add(wk_tally *t, int ok)
{
    if (ok)
        t->passed++;
    else
        t->failed++;
}

/* Records one named check, printing failures. */
static inline void wk_expect(wk_tally *t, int ok, const char *what)
{
    if (!ok)
        printf("FAIL %s\n", what);
    wk_tally_add(t, ok);
}

/* Records one check described printf-style: prints "ok  " or "FAIL" and the
 * description, counts it, and returns ok. */
static inline int wk_checkf(wk_tally *t, int ok, const char *fmt, ...)
{
    va_list ap;
    va_start(ap, fmt);
    printf("%s ", ok ? "ok  " : "FAIL");
    vprintf(fmt, ap);
    printf("\n");
    va_end(ap);
    wk_tally_add(t, ok);
    return ok;
}

/* Prints the closing line and returns the exit status. */
static inline int wk_tally_finish(const wk_tally *t)
{
    printf("%d passed, %d failed\n", t->passed, t->failed);
    return t->failed ? 1 : 0;
}

/* After a set-up call (wk_create, wk_check_env_init): -1 to go on, or the
 * exit status once it has said why not: skipped (77) when there is no CUDA
 * device, 1 for any other failure. */
static inline int wk_test_setup(wk_status st, const char *what)
{
    if (st == WK_SUCCESS)
        return -1;
    if (st == WK_ERROR_NO_DEVICE) {
        printf("SKIP: %s\n", wk_last_error_message());
        return WK_TEST_SKIP;
    }
    printf("FAIL %s: %s\n", what, wk_last_error_message());
    return 1;
}

/* How much the GPU tests run: WK_TEST_LEVEL=quick|default|large (unset:
 * default; WK_TEST_QUICK=1 still means quick when WK_TEST_LEVEL is unset).
 *  - quick: the short case lists, seconds each (the sanitizers run these);
 *  - default: the full lists, less the cases whose input is over
 *    WK_TEST_DEFAULT_MAX_BYTES: what plain `ctest` runs;
 *  - large: only the cases the default leaves out (the sizes over 2^31
 *    elements and the largest tile and shape edges), under the CTest label
 *    `large` (tests/CMakeLists.txt). */
typedef enum wk_test_level { WK_LEVEL_QUICK, WK_LEVEL_DEFAULT, WK_LEVEL_LARGE } wk_test_level;

/* 128 MiB: the default list keeps every shape up to the 4-byte partition's
 * change at 128 MiB; the shapes of 256 MiB and more, and every size over
 * 2^31 elements, run under the label large, which the GPU check runs. */
#define WK_TEST_DEFAULT_MAX_BYTES ((size_t)1 << 27)

static inline const char *wk_test_level_name(wk_test_level level)
{
    return level == WK_LEVEL_QUICK ? "quick" : level == WK_LEVEL_LARGE ? "large" : "default";
}

/* The level from the environment. An unknown WK_TEST_LEVEL ends the program
 * (exit 2) rather than run another list than the one asked for. */
static inline wk_test_level wk_test_level_get(void)
{
    const char *l = getenv("WK_TEST_LEVEL");
    if (l && *l) {
        for (int k = WK_LEVEL_QUICK; k <= WK_LEVEL_LARGE; ++k)
            if (strcmp(l, wk_test_level_name((wk_test_level)k)) == 0)
                return (wk_test_level)k;
        fprintf(stderr, "WK_TEST_LEVEL is quick, default or large, not '%s'\n", l);
        exit(2);
    }
    const char *q = getenv("WK_TEST_QUICK");
    return q && strcmp(q, "0") != 0 ? WK_LEVEL_QUICK : WK_LEVEL_DEFAULT;
}

/* Whether a case of the full list whose input is `bytes` long runs at the
 * default or the large level (the quick level runs its own list whole). */
static inline int wk_test_level_runs(wk_test_level level, size_t bytes)
{
    return level == WK_LEVEL_LARGE ? bytes > WK_TEST_DEFAULT_MAX_BYTES : bytes <= WK_TEST_DEFAULT_MAX_BYTES;
}

static inline int wk_test_quick(void) { return wk_test_level_get() == WK_LEVEL_QUICK; }

#endif

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

static inline int wk_test_quick(void)
{
    const char *q = getenv("WK_TEST_QUICK");
    return q && strcmp(q, "0") != 0;
}

#endif

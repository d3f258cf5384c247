/* Small helpers shared by the test programs: counting and the final line. */
#ifndef WARPKIT_TEST_UTIL_H
#define WARPKIT_TEST_UTIL_H

#include <stdio.h>
#include <stdlib.h>
#include <string.h>

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

/* Prints the closing line and returns the exit status. */
static inline int wk_tally_finish(const wk_tally *t)
{
    printf("%d passed, %d failed\n", t->passed, t->failed);
    return t->failed ? 1 : 0;
}

static inline int wk_test_quick(void)
{
    const char *q = getenv("WK_TEST_QUICK");
    return q && strcmp(q, "0") != 0;
}

#endif

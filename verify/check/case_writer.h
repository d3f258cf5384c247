/* How the case lists are written: up to cap cases to out (none when out is
 * NULL) while every case is counted, so that one call with out NULL sizes
 * the list; case k's seed is drawn from the list's seed and k. */
#ifndef WARPKIT_CHECK_CASE_WRITER_H
#define WARPKIT_CHECK_CASE_WRITER_H

#include "ref/generate.h"

#include <stddef.h>
#include <stdint.h>
#include <string.h>

/* The size the huge lists build on: their cases have 2^31 elements and a
 * few more, past what 32-bit counts and indices hold. */
#define WK_CASES_HUGE ((size_t)1 << 31)

typedef struct wk_case_writer {
    unsigned char *out;
    size_t case_size, cap, count;
    uint64_t seed;
} wk_case_writer;

static inline wk_case_writer wk_case_writer_start(void *out, size_t case_size, size_t cap, uint64_t seed)
{
    wk_case_writer w = {(unsigned char *)out, case_size, cap, 0, seed};
    return w;
}

/* The seed of the next case. */
static inline uint64_t wk_case_writer_seed(const wk_case_writer *w) { return wk_rand64(w->seed, w->count); }

/* Writes *c (case_size bytes) as the next case where there is room, and
 * counts it either way. */
static inline void wk_case_writer_put(wk_case_writer *w, const void *c)
{
    if (w->out && w->count < w->cap)
        memcpy(w->out + w->count * w->case_size, c, w->case_size);
    w->count++;
}

#endif

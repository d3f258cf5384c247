/* The case lists and checks of the reduce, scan, select and segmented
 * families behind one untyped interface, so that one loop can list and run
 * any of them (`warpkit verify`) or split their lists (the CPU tests). */
#ifndef WARPKIT_CHECK_CASE_FAMILY_H
#define WARPKIT_CHECK_CASE_FAMILY_H

#include "check/check_env.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wk_case_family {
    const char *name; /* as `warpkit verify` prints it: "== NAME: N cases" */
    size_t case_size;
    /* Writes up to cap cases of the level to out (none when out is NULL)
     * and returns how many the level has. sm_count is the device's: the
     * reduce's full list adds the sizes where its launch shape changes. */
    size_t (*list)(wk_case_level level, int sm_count, uint64_t seed, void *out, size_t cap);
    /* The same for the cases over 2^31 elements; NULL where there are none. */
    size_t (*huge)(uint64_t seed, void *out, size_t cap);
    /* Runs one case on env's device; msg gets its description and verdict. */
    wk_check_result (*check)(wk_check_env *env, const void *c, char *msg, size_t msg_size);
} wk_case_family;

extern const wk_case_family wk_reduce_family;
extern const wk_case_family wk_scan_family;
extern const wk_case_family wk_select_family;
extern const wk_case_family wk_segmented_family;

/* A new array of the family's list at the level followed, with with_huge,
 * by its cases over 2^31 elements; *count and *huge get how many of each.
 * NULL when the host is out of memory; the caller frees it. */
void *wk_case_family_cases(const wk_case_family *f, wk_case_level level, int sm_count, uint64_t seed, int with_huge,
                           size_t *count, size_t *huge);

#ifdef __cplusplus
}
#endif

#endif

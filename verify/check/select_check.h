/* One GPU check of a select (wk_select_if, wk_select_flagged,
 * wk_partition_if, wk_unique, wk_where) against the CPU reference: fresh
 * data whose keep pattern is drawn first, placed at an offset inside guard
 * bands, a poisoned output and count, the call, and a comparison of the
 * count, of every output, of the outputs past the count (left alone) and
 * of the bytes around them. Shared by the GPU tests and `warpkit verify`. */
#ifndef WARPKIT_CHECK_SELECT_CHECK_H
#define WARPKIT_CHECK_SELECT_CHECK_H

#include "check/check_env.h"
#include "ref/select_reference.h"
#include "warpkit.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Which elements the data is drawn to keep. For unique, "kept" is "starts
 * a run": element 0 always, and a dropped element repeats the one before
 * it, so 0 % is all-equal data and WK_KEEP_EVERY gives runs of
 * run_length equal elements. */
typedef enum wk_keep_pattern {
    WK_KEEP_NONE,      /* 0 %                                                    */
    WK_KEEP_1PCT,      /* each element with probability 1 %                      */
    WK_KEEP_HALF,      /* each element with probability 50 %                     */
    WK_KEEP_99PCT,     /* each element with probability 99 %                     */
    WK_KEEP_ALL,       /* 100 %                                                  */
    WK_KEEP_ALTERNATE, /* the even indices, not the odd ones                     */
    WK_KEEP_BLOCKS,    /* runs of 4 to 8192 elements, each all kept or all not   */
    WK_KEEP_EVERY      /* every run_length-th element, from index 0              */
} wk_keep_pattern;

#define WK_KEEP_PATTERN_COUNT 8

/* What the data and the predicate hold beyond plain values. Plain float
 * data spans every finite value and the infinities, subnormals included;
 * plain integer data the dtype's whole range. */
typedef enum wk_select_special {
    WK_SELECT_PLAIN,
    WK_SELECT_NAN_DATA,      /* NaNs (random payloads, signs, quiet or not) among the elements that a
                                NaN's verdict fits; unique: NaNs at starts of runs of length 1 */
    WK_SELECT_NAN_CONSTANT,  /* a NaN constant: nothing kept, everything for not_equal     */
    WK_SELECT_SIGNED_ZERO,   /* the constant +0.0 or -0.0, and zeros of both signs in the data;
                                unique: runs of zeros mixing -0.0 and +0.0                 */
    WK_SELECT_INF_CONSTANT,  /* the constant an infinity (the side that keeps something)   */
    WK_SELECT_EDGE_CONSTANT  /* a constant next to the dtype's lowest or largest value, or
                                in_range [lowest + 1, largest): one side holds 1 or 2 values */
} wk_select_special;

#define WK_SELECT_SPECIAL_COUNT 6

typedef struct wk_select_case {
    wk_ref_select_mode mode;
    wk_dtype dtype;
    wk_predicate predicate;    /* select_if, partition_if, where (drawn from the seed)    */
    size_t n;
    size_t in_offset;          /* elements between a 256-byte boundary and d_in           */
    size_t out_offset;         /* the same for d_out; unused in place                     */
    size_t flags_offset;       /* bytes between a 256-byte boundary and d_flags           */
    int in_place;              /* d_out == d_in (select_if, select_flagged, unique only)  */
    wk_keep_pattern keep;
    unsigned run_length;       /* WK_KEEP_EVERY                                            */
    wk_select_special special;
    uint64_t seed;
} wk_select_case;

/* Bytes of guard band around each buffer: whole 16-byte vectors, so that a
 * kernel storing whole vectors past either end shows. */
#define WK_SELECT_GUARD_BYTES 256

/* Runs one case. Returns WK_CHECK_PASS or WK_CHECK_FAIL, or WK_CHECK_SKIP
 * when the device or host lacks the free memory for it; msg gets a
 * one-line description of the case and its outcome either way. */
wk_check_result wk_check_select_case(wk_check_env *env, const wk_select_case *c, char *msg, size_t msg_size);

#ifdef __cplusplus
}
#endif

#endif

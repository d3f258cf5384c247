/* One GPU check of wk_inclusive_scan / wk_exclusive_scan against the CPU
 * reference: fresh data placed at an offset inside guard bands, a poisoned
 * output, the call, and a comparison of every output and of the bytes
 * around it. Shared by the GPU tests and `warpkit verify`. */
#ifndef WARPKIT_CHECK_SCAN_CHECK_H
#define WARPKIT_CHECK_SCAN_CHECK_H

#include "check/case_data.h"
#include "check/check_env.h"
#include "ref/generate.h"
#include "warpkit.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wk_scan_case {
    wk_dtype dtype;
    wk_op op;
    int exclusive;          /* 0: wk_inclusive_scan, 1: wk_exclusive_scan          */
    wk_value init;          /* exclusive scans: the init (dtype's member)          */
    size_t n;
    size_t in_offset;       /* elements between a 256-byte boundary and d_in       */
    size_t out_offset;      /* the same for d_out; unused in place                 */
    int in_place;           /* d_out == d_in                                       */
    wk_gen_pattern pattern;
    wk_special special;
    uint64_t seed;
} wk_scan_case;

/* Bytes of guard band on each side of the input and the output: whole
 * 16-byte vectors, so that a kernel storing whole vectors past either end
 * shows. */
#define WK_SCAN_GUARD_BYTES 256

/* Runs one case. Returns WK_CHECK_PASS or WK_CHECK_FAIL, or WK_CHECK_SKIP
 * when the device or host lacks the free memory for it; msg gets a
 * one-line description of the case and its outcome either way. A scan the
 * library refuses (wk_ref_dtype_op_status: a sum of bools) passes when it
 * returns that status and leaves its output as it was. */
wk_check_result wk_check_scan_case(wk_check_env *env, const wk_scan_case *c, char *msg, size_t msg_size);

/* "f32  sum n=1025       in+1 out+3     excl(init -3) small-ints ..." */
void wk_describe_scan_case(const wk_scan_case *c, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif

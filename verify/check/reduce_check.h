/* One GPU check of wk_reduce against the CPU reference: fresh data, a
 * poisoned output, the call, and a comparison. Shared by the GPU tests and
 * `warpkit verify`. */
#ifndef WARPKIT_CHECK_REDUCE_CHECK_H
#define WARPKIT_CHECK_REDUCE_CHECK_H

#include "check/case_data.h"
#include "check/check_env.h"
#include "ref/generate.h"
#include "warpkit.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef struct wk_reduce_case {
    wk_dtype dtype;
    wk_op op;
    size_t n;
    size_t offset;          /* elements between a 256-byte boundary and d_in */
    wk_gen_pattern pattern;
    wk_special special;
    uint64_t seed;
} wk_reduce_case;

/* Runs one case. Returns 1 if it passes, 0 if not; msg gets a one-line
 * description of the case and its outcome either way. A call the library
 * refuses (wk_ref_dtype_op_status: a sum of bools) passes when it returns
 * that status and leaves its output as it was. */
int wk_check_reduce_case(wk_check_env *env, const wk_reduce_case *c, char *msg, size_t msg_size);

/* "f32 argmax n=1025 offset=3 ..." */
void wk_describe_case(const wk_reduce_case *c, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif

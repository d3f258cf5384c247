/* What the GPU checks share across cases: a context, a stream, and host and
 * device buffers that grow as the cases need them. Used by the reduce and
 * scan checks (and so by the GPU tests and `warpkit verify`). */
#ifndef WARPKIT_CHECK_CHECK_ENV_H
#define WARPKIT_CHECK_CHECK_ENV_H

#include "warpkit.h"

#include <stddef.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Buffers reused across cases; grown as needed. */
typedef struct wk_check_env {
    wk_context *ctx;
    cudaStream_t stream;
    void *d_in, *h_in;      /* the input, with room for guard bands        */
    size_t in_bytes;
    void *d_out;            /* WK_CHECK_OUT_BYTES, for one-value results   */
    void *d_big;            /* results as long as the input (scans)         */
    size_t d_big_bytes;
    void *h_big;            /* host room to read results (or the input) back */
    size_t h_big_bytes;
} wk_check_env;

#define WK_CHECK_OUT_BYTES 64

/* Which list of cases to run. */
typedef enum wk_case_level {
    WK_CASES_QUICK, /* every dtype and op at small and odd sizes: seconds, also under sanitizers */
    WK_CASES_FULL   /* adds every offset, sizes up to 2^24 + 7, special values and patterns     */
} wk_case_level;

/* Outcome of one check. A case is skipped (not failed) only when the
 * machine lacks the memory it needs. */
typedef enum wk_check_result {
    WK_CHECK_FAIL = 0,
    WK_CHECK_PASS = 1,
    WK_CHECK_SKIP = 2
} wk_check_result;

wk_status wk_check_env_init(wk_check_env *env, int device);
void wk_check_env_free(wk_check_env *env);

/* Makes env->d_in and h_in hold at least in_bytes, env->d_big d_big_bytes
 * and env->h_big h_big_bytes (any may be 0). Returns WK_CHECK_PASS when they do,
 * WK_CHECK_SKIP when the device or the host has too little free memory for
 * them (checked before allocating, with why saying how much), and
 * WK_CHECK_FAIL when an allocation failed anyway. */
wk_check_result wk_check_reserve(wk_check_env *env, size_t in_bytes, size_t d_big_bytes, size_t h_big_bytes,
                                 char *why, size_t why_size);

/* wk_check_reserve for the case described by `name`: when the buffers
 * cannot be had, msg gets "NAME: why" and the result says skip or fail. */
wk_check_result wk_check_reserve_case(wk_check_env *env, size_t in_bytes, size_t d_big_bytes, size_t h_big_bytes,
                                      const char *name, char *msg, size_t msg_size);

/* Whether the current device runs the pipelined kernels that need `needed`
 * bytes of shared memory per block, as the library decides it
 * (wk_pipelined_ok, tiles/plan.h): 1 or 0, or -1 when the device's
 * attributes cannot be read. */
int wk_check_pipelined_ok(size_t needed);

#ifdef __cplusplus
}
#endif

#endif

/* One GPU check of wk_reduce against the CPU reference: fresh data, a
 * poisoned output, the call, and a comparison. Shared by the GPU tests and
 * `warpkit verify`. */
#ifndef WARPKIT_CHECK_REDUCE_CHECK_H
#define WARPKIT_CHECK_REDUCE_CHECK_H

#include "generate.h"
#include "warpkit.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

/* Values planted into the generated data. */
typedef enum wk_special {
    WK_SPECIAL_NONE,
    WK_SPECIAL_NAN,      /* a few NaNs at random places (float dtypes)            */
    WK_SPECIAL_INF,      /* +inf at one place, -inf at another (float dtypes)     */
    WK_SPECIAL_POS_INF,  /* +inf at two places: sums stay +inf, ties for argmax   */
    WK_SPECIAL_EXTREMES, /* the dtype's largest and lowest values, twice each     */
    WK_SPECIAL_AT_END    /* the largest value last, the lowest just before it     */
} wk_special;

typedef struct wk_reduce_case {
    wk_dtype dtype;
    wk_op op;
    size_t n;
    size_t offset;          /* elements between a 256-byte boundary and d_in */
    wk_gen_pattern pattern;
    wk_special special;
    uint64_t seed;
} wk_reduce_case;

/* Buffers reused across cases; grown as needed. */
typedef struct wk_check_env {
    wk_context *ctx;
    cudaStream_t stream;
    void *d_in, *h_in;
    size_t in_bytes;
    void *d_out;            /* WK_CHECK_OUT_BYTES, poisoned before each call */
} wk_check_env;

#define WK_CHECK_OUT_BYTES 64

wk_status wk_check_env_init(wk_check_env *env, int device);
void wk_check_env_free(wk_check_env *env);

/* Runs one case. Returns 1 if it passes, 0 if not; msg gets a one-line
 * description of the case and its outcome either way. */
int wk_check_reduce_case(wk_check_env *env, const wk_reduce_case *c, char *msg, size_t msg_size);

/* "f32 argmax n=1025 offset=3 ..." */
void wk_describe_case(const wk_reduce_case *c, char *buf, size_t size);

#ifdef __cplusplus
}
#endif

#endif

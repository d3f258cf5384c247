/* The reproducibility cases: a fixed list (a fixed seed, so that every
 * machine sums the same inputs) of dtypes, sizes and adversarial value
 * patterns, and the hash of their results that every GPU must match. */
#ifndef WARPKIT_CHECK_REPRO_CASES_H
#define WARPKIT_CHECK_REPRO_CASES_H

#include "warpkit.h"

#include <stddef.h>
#include <stdint.h>

#ifdef __cplusplus
extern "C" {
#endif

typedef enum wk_repro_kind {
    WK_RK_UNIFORM,     /* [0, 1)                                              */
    WK_RK_MIXED,       /* both signs, magnitudes over 16 binades              */
    WK_RK_CANCELLING,  /* pairs x, -x in random order, plus one small value   */
    WK_RK_WIDE,        /* both signs, exponents over the dtype's whole range  */
    WK_RK_HUGE_TINY,   /* one huge value among tiny ones                      */
    WK_RK_SUBNORMAL,   /* subnormals of both signs and a few normals          */
    WK_RK_SPECIALS,    /* numbers with +inf, -inf or NaN among them           */
    WK_RK_ZEROS,       /* +0.0 and -0.0 only, or -0.0 only                    */
    WK_RK_COUNT
} wk_repro_kind;

typedef struct wk_repro_case {
    wk_dtype dtype;
    size_t n;
    wk_repro_kind kind;
    uint64_t seed;
} wk_repro_case;

/* The list: every float dtype with every kind at sizes from 1 to about
 * 3e5 (WK_REPRO_CASES cases). */
#define WK_REPRO_CASES 1024
void wk_repro_case_get(size_t index, wk_repro_case *c);

/* A case with a size and seed of one's own (fresh random tests). */
void wk_repro_case_make(wk_dtype dtype, size_t n, wk_repro_kind kind, uint64_t seed, wk_repro_case *c);

/* Writes the case's n elements of its dtype to out. */
void wk_repro_case_fill(const wk_repro_case *c, void *out);

const char *wk_repro_kind_name(wk_repro_kind kind);

/* FNV-1a over the 8 little-endian bytes of a result's bits. */
#define WK_REPRO_HASH_START UINT64_C(0xcbf29ce484222325)
uint64_t wk_repro_hash_add(uint64_t hash, uint64_t bits);

#ifdef __cplusplus
}
#endif

#endif

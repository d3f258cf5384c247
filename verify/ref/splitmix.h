/* splitmix64 (Steele, Lea and Flood, 2014), the one generator of the tests,
 * the checks and the benchmark's inputs: small, fast, and a bijection with
 * good avalanche. Header-only, for C and for CUDA host and device code. */
#ifndef WARPKIT_REF_SPLITMIX_H
#define WARPKIT_REF_SPLITMIX_H

#include <stdint.h>

#ifdef __CUDACC__
#define WK_SPLITMIX_FN static inline __host__ __device__
#else
#define WK_SPLITMIX_FN static inline
#endif

/* The step between splitmix64's states (2^64 over the golden ratio). */
#define WK_SPLITMIX64_GAMMA UINT64_C(0x9e3779b97f4a7c15)

/* splitmix64's output function. */
WK_SPLITMIX_FN uint64_t wk_splitmix64_mix(uint64_t z)
{
    z = (z ^ (z >> 30)) * UINT64_C(0xbf58476d1ce4e5b9);
    z = (z ^ (z >> 27)) * UINT64_C(0x94d049bb133111eb);
    return z ^ (z >> 31);
}

/* Draw i of the stream that starts at state `key`: counter-based, so any
 * draw can be had without the ones before it. */
WK_SPLITMIX_FN uint64_t wk_splitmix64_at(uint64_t key, uint64_t i)
{
    return wk_splitmix64_mix(key + (i + 1) * WK_SPLITMIX64_GAMMA);
}

/* The next draw of a sequential stream whose state is *state. */
WK_SPLITMIX_FN uint64_t wk_splitmix64_next(uint64_t *state)
{
    *state += WK_SPLITMIX64_GAMMA;
    return wk_splitmix64_mix(*state);
}

#undef WK_SPLITMIX_FN

#endif

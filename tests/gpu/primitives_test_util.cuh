/* Helpers shared by the device-primitive tests (test_primitives.cu,
 * test_compact_primitives.cu): formatting, the random inputs, and the start
 * of main, so that both pick seeds and skip without a device the same way. */
#ifndef WARPKIT_PRIMITIVES_TEST_UTIL_CUH
#define WARPKIT_PRIMITIVES_TEST_UTIL_CUH

#include "ref/splitmix.h" /* header-only: these tests link no warpkit_ref */

#include <cuda_runtime.h>

#include <chrono>
#include <cstdarg>
#include <cstdint>
#include <cstdio>
#include <cstdlib>
#include <cstring>
#include <string>

inline std::string fmt(const char *format, ...)
{
    char buf[512];
    va_list args;
    va_start(args, format);
    vsnprintf(buf, sizeof buf, format, args);
    va_end(args);
    return buf;
}

/* splitmix64: small, fast, and good enough to pick test inputs. */
struct rng {
    uint64_t state;
    uint64_t next() { return wk_splitmix64_next(&state); }
    /* Uniform in [0, n); the modulo bias is negligible for the small n used. */
    uint64_t below(uint64_t n) { return next() % n; }
    long long range(long long lo, long long hi) { return lo + (long long)below((uint64_t)(hi - lo) + 1); }
};

/* The generator seeded (WK_SEED, else the clock; printed) and WK_VERBOSE,
 * then the device check, and device 0 named. Returns false, having said
 * why, when there is no CUDA device: the test then exits 77, CTest's skip
 * code. check_cuda is the test's own handler of a CUDA error. */
inline bool primitives_test_start(rng *r, bool *verbose,
                                  void (*check_cuda)(cudaError_t, const char *, const char *, int))
{
    uint64_t seed;
    const char *env = getenv("WK_SEED");
    if (env && *env)
        seed = strtoull(env, nullptr, 0);
    else
        seed = (uint64_t)std::chrono::system_clock::now().time_since_epoch().count();
    printf("seed %llu (WK_SEED=%llu repeats this run)\n", (unsigned long long)seed, (unsigned long long)seed);
    r->state = seed;
    const char *v = getenv("WK_VERBOSE");
    *verbose = v && *v && strcmp(v, "0") != 0;
    fflush(stdout);

    int devices = 0;
    if (cudaGetDeviceCount(&devices) != cudaSuccess || devices == 0) {
        printf("SKIP: no CUDA device found\n");
        return false;
    }
    cudaDeviceProp prop;
    check_cuda(cudaGetDeviceProperties(&prop, 0), "cudaGetDeviceProperties(&prop, 0)", __FILE__, __LINE__);
    printf("device 0: %s (compute capability %d.%d)\n", prop.name, prop.major, prop.minor);
    return true;
}

#endif

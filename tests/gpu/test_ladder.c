/* GPU test of the reduction ladder: every kernel (01..11), dtype (f64, f32,
 * i32) and block size (64, 256, 512, 1024) over sizes from 1 element to
 * 2^20 + 7, odd ones and ones that are no multiple of the block size among
 * them. The result and the scratch are poisoned before each call, so a
 * kernel that skips a write or reads an unwritten partial shows.
 *
 * Fresh data each run; WK_SEED repeats one. Exits 77 (skipped) without a
 * CUDA device. */
#include "ref/generate.h"
#include "ladder/kernels/ladder.h"
#include "test_util.h"

#include <cuda_runtime_api.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

/* Prints a failed CUDA call; returns whether it succeeded. */
static int cuda_ok(cudaError_t err, const char *what, int line)
{
    if (err == cudaSuccess)
        return 1;
    printf("CUDA error at line %d: %s: %s\n", line, what, cudaGetErrorString(err));
    return 0;
}
#define CUDA_OK(call) cuda_ok((call), #call, __LINE__)

static const wk_dtype dtypes[] = {WK_F64, WK_F32, WK_I32};
static const unsigned block_sizes[] = {64, 256, 512, 1024};
static const size_t sizes[] = {1, 31, 33, 1000, 1025, 65537, 1000003, ((size_t)1 << 20) + 7};
#define COUNT(a) (sizeof(a) / sizeof((a)[0]))
#define MAX_N (((size_t)1 << 20) + 7)

static size_t ceil_log2(size_t n)
{
    size_t levels = 0;
    while (((size_t)1 << levels) < n)
        levels++;
    return levels;
}

/* The exact sum of one data set: long double for floats (64-bit mantissa,
 * far finer than the f64 tolerance at these sizes), modulo 2^32 for i32. */
typedef struct expected {
    long double sum, abs_sum;
    uint32_t i32_sum;
} expected;

static expected exact_sum(const void *h, size_t n, wk_dtype dtype)
{
    expected e = {0, 0, 0};
    for (size_t i = 0; i < n; ++i) {
        long double x = dtype == WK_F64 ? (long double)((const double *)h)[i]
                        : dtype == WK_F32 ? (long double)((const float *)h)[i]
                                          : (long double)((const int32_t *)h)[i];
        e.sum += x;
        e.abs_sum += fabsl(x);
        if (dtype == WK_I32)
            e.i32_sum += (uint32_t)((const int32_t *)h)[i];
    }
    return e;
}

/* Any summation of n values that is a tree in which no element passes
 * through more than d rounded additions (ceil(log2 n) tree levels that add
 * something nonzero, plus the serial chain of one thread, plus two for the
 * hand-over between passes and the last rounding) differs from the exact
 * sum by at most gamma_d * sum|x|, gamma_d = d*u / (1 - d*u) (Higham,
 * "Accuracy and Stability of Numerical Algorithms", 4.2): each partial sum
 * is (a + b)(1 + delta), |delta| <= u, so an element's error factor is a
 * product of at most d such terms. d*u is at most 2^-10 here, so the extra
 * 1 / (1 - d*u) hides in the two spare levels. Additions of the zeros that
 * pad a partial block are exact, which is why ceil(log2 n) and not the
 * depth of every tree counts. */
static long double tolerance(wk_dtype dtype, size_t n, size_t serial, long double abs_sum)
{
    long double u = dtype == WK_F64 ? ldexpl(1.0L, -53) : ldexpl(1.0L, -24);
    return (long double)(ceil_log2(n) + serial + 2) * u * abs_sum;
}

typedef struct buffers {
    void *h_in, *h_partials;
    void *d_in, *d_scratch, *d_result;
    size_t scratch_bytes;
    cudaStream_t stream;
} buffers;

/* Runs one (kernel, dtype, threads, n) case on the data already in d_in.
 * Returns 1 if it passes, 0 if it fails, -1 on a CUDA error that leaves the
 * device unusable (the run then stops). */
static int run_case(buffers *b, const wk_ladder_kernel *k, wk_dtype dtype, unsigned threads, size_t n,
                    const expected *e)
{
    size_t elem = dtype == WK_F64 ? 8 : 4;
    wk_ladder_call call;
    memset(&call, 0, sizeof call);
    call.d_in = b->d_in;
    call.n = n;
    call.dtype = dtype;
    call.threads = threads;
    call.d_scratch = b->d_scratch;
    call.d_result = b->d_result;
    call.stream = b->stream;

    if (wk_ladder_scratch_bytes(n, threads, dtype) > b->scratch_bytes) {
        printf("FAIL kernel %s %s threads=%u n=%zu: scratch_bytes %zu over the %zu allocated\n", k->id,
               wk_dtype_name(dtype), threads, n, wk_ladder_scratch_bytes(n, threads, dtype), b->scratch_bytes);
        return 0;
    }
    if (!CUDA_OK(cudaMemsetAsync(b->d_result, 0xA5, 8, b->stream)) ||
        !CUDA_OK(cudaMemsetAsync(b->d_scratch, 0xA5, b->scratch_bytes, b->stream)))
        return -1;
    cudaError_t err = k->enqueue(&call);
    if (err != cudaSuccess) {
        printf("FAIL kernel %s %s threads=%u n=%zu: enqueue: %s\n", k->id, wk_dtype_name(dtype), threads, n,
               cudaGetErrorString(err));
        return 0;
    }
    if (!CUDA_OK(cudaStreamSynchronize(b->stream)))
        return -1;

    int is_01 = strcmp(k->id, "01") == 0;
    size_t parts = is_01 ? call.host_partials : 1;
    const void *src = is_01 ? b->d_scratch : b->d_result;
    if (parts * elem > b->scratch_bytes) {
        printf("FAIL kernel %s: host_partials %zu does not fit the scratch\n", k->id, parts);
        return 0;
    }
    if (!CUDA_OK(cudaMemcpy(b->h_partials, src, parts * elem, cudaMemcpyDeviceToHost)))
        return -1;

    /* The reported counts must be what the kernel did. */
    int counts_ok = call.blocks >= 1 && call.launches >= 1 && call.serial >= 1 &&
                    call.host_partials == (is_01 ? call.blocks : 0);

    char got_text[64], want_text[64];
    long double tol = 0;
    int ok;
    if (dtype == WK_I32) {
        uint32_t got = 0;
        for (size_t i = 0; i < parts; ++i)
            got += ((const uint32_t *)b->h_partials)[i];
        ok = got == e->i32_sum;
        snprintf(got_text, sizeof got_text, "%d", (int32_t)got);
        snprintf(want_text, sizeof want_text, "%d", (int32_t)e->i32_sum);
    } else {
        long double got = 0;
        for (size_t i = 0; i < parts; ++i)
            got += dtype == WK_F64 ? (long double)((const double *)b->h_partials)[i]
                                   : (long double)((const float *)b->h_partials)[i];
        tol = tolerance(dtype, n, call.serial, e->abs_sum);
        ok = fabsl(got - e->sum) <= tol; /* false for NaN, as it should be */
        snprintf(got_text, sizeof got_text, "%.17Lg", got);
        snprintf(want_text, sizeof want_text, "%.17Lg", e->sum);
    }
    if (!ok || !counts_ok)
        printf("FAIL kernel %s %s threads=%u n=%zu: expected %s got %s tolerance %.3Lg "
               "(blocks %u, launches %u, serial %zu, host_partials %zu)\n",
               k->id, wk_dtype_name(dtype), threads, n, want_text, got_text, tol, call.blocks, call.launches,
               call.serial, call.host_partials);
    return ok && counts_ok;
}

int main(void)
{
    int devices = 0;
    cudaError_t err = cudaGetDeviceCount(&devices);
    if (err != cudaSuccess || devices == 0) {
        printf("SKIP: no CUDA device (%s)\n", err != cudaSuccess ? cudaGetErrorString(err) : "none found");
        return WK_TEST_SKIP;
    }
    uint64_t seed = wk_seed_from_time();
    printf("seed %llu (set WK_SEED to repeat)\n", (unsigned long long)seed);

    size_t count = 0;
    const wk_ladder_kernel *kernels = wk_ladder_kernels(&count);
    int passed[16] = {0}, failed[16] = {0};
    if (count > 16) {
        printf("FAIL: %zu kernels, the test expects at most 16\n", count);
        return 1;
    }

    buffers b;
    memset(&b, 0, sizeof b);
    /* The largest scratch: the smallest block size and the widest dtype. */
    b.scratch_bytes = wk_ladder_scratch_bytes(MAX_N, 64, WK_F64);
    b.h_in = malloc(MAX_N * 8);
    b.h_partials = malloc(b.scratch_bytes);
    if (!b.h_in || !b.h_partials || b.scratch_bytes == 0) {
        printf("cannot allocate host memory\n");
        return 1;
    }
    if (!CUDA_OK(cudaStreamCreate(&b.stream)) || !CUDA_OK(cudaMalloc(&b.d_in, MAX_N * 8)) ||
        !CUDA_OK(cudaMalloc(&b.d_scratch, b.scratch_bytes)) || !CUDA_OK(cudaMalloc(&b.d_result, 8)))
        return 1;

    wk_tally t = {0, 0};
    int broken = 0;
    for (size_t di = 0; di < COUNT(dtypes) && !broken; ++di) {
        wk_dtype dtype = dtypes[di];
        size_t elem = dtype == WK_F64 ? 8 : 4;
        for (size_t si = 0; si < COUNT(sizes) && !broken; ++si) {
            size_t n = sizes[si];
            /* i32: values in [-8, 8] or [0, 1000] (alternating by size), so
             * no partial sum of 2^20 + 7 of them leaves int's range. */
            wk_gen_pattern pattern = dtype != WK_I32 ? WK_GEN_UNIFORM : si % 2 ? WK_GEN_POSITIVE : WK_GEN_SMALL_INTS;
            wk_generate(b.h_in, n, dtype, pattern, seed + 16 * di + si);
            expected e = exact_sum(b.h_in, n, dtype);
            if (!CUDA_OK(cudaMemcpy(b.d_in, b.h_in, n * elem, cudaMemcpyHostToDevice))) {
                broken = 1;
                break;
            }
            for (size_t ki = 0; ki < count && !broken; ++ki) {
                for (size_t ti = 0; ti < COUNT(block_sizes); ++ti) {
                    int r = run_case(&b, &kernels[ki], dtype, block_sizes[ti], n, &e);
                    if (r < 0) {
                        broken = 1;
                        r = 0;
                    }
                    wk_tally_add(&t, r);
                    if (r)
                        passed[ki]++;
                    else
                        failed[ki]++;
                    if (broken)
                        break;
                }
            }
        }
    }
    for (size_t ki = 0; ki < count; ++ki)
        printf("kernel %s (%s): %d passed, %d failed\n", kernels[ki].id, kernels[ki].title, passed[ki], failed[ki]);
    if (broken)
        printf("stopped after a CUDA error\n");

    cudaFree(b.d_in);
    cudaFree(b.d_scratch);
    cudaFree(b.d_result);
    cudaStreamDestroy(b.stream);
    free(b.h_in);
    free(b.h_partials);
    return wk_tally_finish(&t);
}

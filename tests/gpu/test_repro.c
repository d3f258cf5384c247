/* GPU test of the reproducible sum: every case of the fixed list (the same
 * inputs on every machine) must give the host model's bits under every
 * launch shape, input offsets of 1 to 3 elements, and splits into 2, 3 and
 * 7 parts combined through partials, on the device and on the host; fresh
 * random inputs and inputs at the coarse split's floor must too. Prints the
 * hash of the list's results, which every GPU must match. Also the API's
 * checks, n = 0, and graph capture.
 *
 * WK_TEST_LEVEL: quick (every 16th case, for the sanitizers), default (the
 * whole list), large (sizes over 2^31 elements). Exits 77 without a device. */
#include "gpu/api_test_util.h"
#include "ref/generate.h"
#include "ref/half.h"
#include "check/repro_cases.h"
#include "ref/repro_model.h"
#include "ref/splitmix.h"
#include "test_util.h"
#include "api/tuning.h"

#include "repro/launch.h"

#include <cuda_runtime_api.h>
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static wk_tally tally;
static wk_context *ctx;
static cudaStream_t stream;

/* Device buffers big enough for the case at hand, kept between cases. */
static void *d_in, *d_out, *d_parts;
static size_t in_bytes;

static void reserve(size_t bytes)
{
    if (bytes <= in_bytes)
        return;
    if (d_in)
        CHECK_CUDA(cudaFree(d_in));
    CHECK_CUDA(cudaMalloc(&d_in, bytes));
    in_bytes = bytes;
}

/* Reads the result after poisoning d_out first. */
static uint64_t result_bits(wk_status st, wk_dtype dtype)
{
    uint64_t bits = 0;
    if (st != WK_SUCCESS) {
        printf("  call failed: %s\n", wk_last_error_message());
        return 0xbadbadbadull;
    }
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(&bits, d_out, wk_dtype_size(dtype), cudaMemcpyDeviceToHost));
    return bits;
}

static void poison_out(void) { CHECK_CUDA(cudaMemsetAsync(d_out, POISON, 64, stream)); }

/* The input at d_in + offset elements. */
static const void *at(size_t offset, wk_dtype dtype) { return (const char *)d_in + offset * wk_dtype_size(dtype); }

/* The sum of the input split into `parts` at pseudo-random cuts, through
 * device partials; the same partials combined on the host into *host. */
static uint64_t split_bits(size_t n, wk_dtype dtype, int parts, uint64_t seed, uint64_t *host)
{
    size_t cut[8] = {0};
    for (int k = 1; k < parts; ++k) {
        size_t c = n ? (size_t)(wk_splitmix64_at(seed, (uint64_t)k) % (n + 1)) : 0;
        cut[k] = c < cut[k - 1] ? cut[k - 1] : c;
    }
    cut[parts] = n;
    wk_repro_partial *dp = d_parts;
    CHECK_CUDA(cudaMemsetAsync(d_parts, POISON, 8 * sizeof(wk_repro_partial), stream));
    for (int k = 0; k < parts; ++k)
        if (wk_reduce_repro_partial(ctx, at(cut[k], dtype), dp + k, cut[k + 1] - cut[k], dtype, stream) != WK_SUCCESS)
            return 0xbadull;
    poison_out();
    uint64_t bits = result_bits(wk_repro_finalize(ctx, dp, (size_t)parts, d_out, dtype, stream), dtype);
    wk_repro_partial hp[8], acc;
    CHECK_CUDA(cudaMemcpy(hp, d_parts, (size_t)parts * sizeof hp[0], cudaMemcpyDeviceToHost));
    wk_repro_partial_clear(&acc);
    *host = 0xbadull;
    for (int k = parts - 1; k >= 0; --k)
        if (wk_repro_combine_host(&acc, &hp[k]) != WK_SUCCESS)
            return bits;
    *host = 0;
    wk_repro_round_host(&acc, dtype, host);
    return bits;
}

/* One input: every shape, offset and split gives `want`. Returns the
 * default call's bits. */
static uint64_t check_input(const void *h, size_t n, wk_dtype dtype, uint64_t want, uint64_t seed, int all,
                            const char *what)
{
    size_t size = wk_dtype_size(dtype);
    reserve((n + 3) * size + 16);
    int ok = 1;
    CHECK_CUDA(cudaMemcpy(d_in, h, n * size, cudaMemcpyHostToDevice));
    poison_out();
    uint64_t got = result_bits(wk_reduce_repro(ctx, at(0, dtype), d_out, n, dtype, stream), dtype);
    ok &= got == want;
    const unsigned cap = (unsigned)wk_context_sm_count(ctx) * WK_REPRO_BLOCKS_PER_SM;
    const unsigned grids[4] = {1, 3, 37, cap};
    const unsigned threads[2] = {WK_REPRO_THREADS, WK_REPRO_TEST_THREADS};
    for (int t = 0; t < 2; ++t)
        for (int g = 0; g < 4; ++g) {
            if (!all && g % 2)
                continue;
            poison_out();
            uint64_t b = result_bits(wk_reduce_repro_shaped(ctx, at(0, dtype), d_out, n, dtype, threads[t], grids[g], 0, stream),
                                     dtype);
            if (b != want && ok)
                printf("  shape %u threads x %u blocks: %016" PRIx64 "\n", threads[t], grids[g], b);
            ok &= b == want;
        }
    for (int parts = 2; parts <= 7; parts += parts == 3 ? 4 : 1) {
        uint64_t host = 0, b = split_bits(n, dtype, parts, seed + (uint64_t)parts, &host);
        if ((b != want || host != want) && ok)
            printf("  split in %d: device %016" PRIx64 " host %016" PRIx64 "\n", parts, b, host);
        ok &= b == want && host == want;
    }
    for (size_t off = 1; off <= 3; ++off) {
        if (!all && off != 1)
            continue;
        CHECK_CUDA(cudaMemcpy((char *)d_in + off * size, h, n * size, cudaMemcpyHostToDevice));
        poison_out();
        uint64_t b = result_bits(wk_reduce_repro(ctx, at(off, dtype), d_out, n, dtype, stream), dtype);
        if (b != want && ok)
            printf("  offset %zu: %016" PRIx64 "\n", off, b);
        ok &= b == want;
    }
    if (!ok)
        printf("FAIL %s %s n=%zu: want %016" PRIx64 ", default call %016" PRIx64 "\n", what, wk_dtype_name(dtype), n,
               want, got);
    wk_tally_add(&tally, ok);
    return got;
}

static uint64_t model_bits(const void *h, size_t n, wk_dtype dtype)
{
    wk_rp p;
    wk_model_repro(h, n, dtype, &p);
    return wk_model_round(&p, dtype);
}

static void test_case_list(int quick)
{
    uint64_t hash = WK_REPRO_HASH_START, model_hash = WK_REPRO_HASH_START;
    int before = tally.failed, run = 0;
    for (size_t i = 0; i < WK_REPRO_CASES; ++i) {
        if (quick && i % 16)
            continue;
        wk_repro_case c;
        wk_repro_case_get(i, &c);
        void *h = malloc(c.n * wk_dtype_size(c.dtype) + 1);
        wk_repro_case_fill(&c, h);
        uint64_t want = model_bits(h, c.n, c.dtype);
        uint64_t got = check_input(h, c.n, c.dtype, want, c.seed, !quick, wk_repro_kind_name(c.kind));
        hash = wk_repro_hash_add(hash, got);
        model_hash = wk_repro_hash_add(model_hash, want);
        free(h);
        run++;
    }
    wk_checkf(&tally, tally.failed == before,
              "%d listed cases: 8 shapes, offsets 1 to 3, splits in 2, 3, 7 (device and host): the model's bits", run);
    if (!quick) {
        wk_checkf(&tally, hash == model_hash, "the list's hash equals the host model's");
        printf("reproducibility: cases=%d hash=%016" PRIx64 "\n", run, hash);
    }
}

/* Fresh inputs: random kinds, dtypes and sizes, 0 and edges included. */
static void test_fresh(uint64_t seed, int quick)
{
    static const size_t edges[] = {0, 1, 2, 31, 32, 33, 1023, 1024, 1025, 65535, 65536, 65537, 1 << 20, (1 << 22) + 5,
                                   (1 << 24) + 3};
    static const wk_dtype dtypes[4] = {WK_F32, WK_F64, WK_F16, WK_BF16};
    int before = tally.failed, run = 0;
    size_t count = sizeof edges / sizeof edges[0];
    for (size_t e = 0; e < count; ++e)
        for (int d = 0; d < 4; ++d) {
            if (quick && edges[e] > 70000)
                continue;
            uint64_t r = wk_splitmix64_at(seed, e * 4 + (size_t)d);
            wk_repro_case c;
            wk_repro_case_make(dtypes[d], edges[e], (wk_repro_kind)(r % WK_RK_COUNT), r, &c);
            void *h = malloc(c.n * wk_dtype_size(c.dtype) + 1);
            wk_repro_case_fill(&c, h);
            check_input(h, c.n, c.dtype, model_bits(h, c.n, c.dtype), r, 0, wk_repro_kind_name(c.kind));
            free(h);
            run++;
        }
    wk_checkf(&tally, tally.failed == before, "%d fresh inputs (sizes 0 to 2^24 + 3): the model's bits", run);
}

/* Inputs at the coarse split's floor (docs/repro.md): every shape, offset
 * and split must give the model's bits. f32 and bf16: under the top of 1.5,
 * elements in the floor's binade and the 5 above it, and one in 2000 up to
 * 4 binades below, so that a warp's rounds take either split. f64: pairs of
 * +-2^-980 (the lowest top, whose third bin's unit is 2^-1074) and elements
 * of 2^-1074, whose bits lie in the low word alone: none of them is zero,
 * so the sum is their count exactly. */
static void test_coarse_floor(uint64_t seed)
{
    const int before = tally.failed;
    const size_t sizes[3] = {3, 1000, 65537};
    for (int s = 0; s < 3; ++s) {
        const size_t n = sizes[s];
        float *f = malloc(n * sizeof *f);
        uint16_t *b = malloc(n * sizeof *b);
        double *d = malloc(n * sizeof *d);
        uint64_t tiny = 0;
        for (size_t i = 0; i < n; ++i) {
            const uint64_t r = wk_splitmix64_at(seed + (uint64_t)s, i);
            const float mantissa = 1.0f + (float)(r >> 41) * 0x1p-23f, sign = (r >> 40) & 1 ? -1.0f : 1.0f;
            const int step = r % 2000 == 0 ? -1 - (int)((r >> 8) % 4) : (int)((r >> 8) % 6); /* from the floor */
            f[i] = i % 97 == 0 ? sign * 1.5f : sign * ldexpf(mantissa, -51 + step);
            b[i] = wk_float_to_bf16(i % 97 == 0 ? sign * 1.5f : sign * ldexpf(mantissa, -67 + step));
            /* A pair of 2^-1074 in place of one in 7 pairs, and an odd last one. */
            const size_t pair = i / 2;
            if (wk_splitmix64_at(seed ^ 0x2545f491u, pair) % 7 == 0 || (n % 2 && i == n - 1)) {
                const uint64_t one = 1;
                memcpy(&d[i], &one, sizeof one);
                tiny++;
            } else {
                d[i] = i % 2 ? -0x1p-980 : 0x1p-980;
            }
        }
        check_input(f, n, WK_F32, model_bits(f, n, WK_F32), seed, 1, "around the floor");
        check_input(b, n, WK_BF16, model_bits(b, n, WK_BF16), seed, 1, "around the floor");
        const uint64_t model = model_bits(d, n, WK_F64);
        wk_checkf(&tally, model == tiny, "f64 n=%zu: the model sums %" PRIu64 " elements of 2^-1074 exactly", n, tiny);
        check_input(d, n, WK_F64, tiny, seed, 1, "low words alone");
        free(f);
        free(b);
        free(d);
    }
    wk_checkf(&tally, tally.failed == before, "inputs around the coarse split's floor: the model's bits");
}

/* Over 2^31 elements: f16 and f32. */
static void test_large(uint64_t seed)
{
    const size_t n = ((size_t)1 << 31) + 17;
    const wk_dtype dtypes[2] = {WK_F16, WK_F32};
    for (int d = 0; d < 2; ++d) {
        wk_repro_case c;
        wk_repro_case_make(dtypes[d], n, d ? WK_RK_UNIFORM : WK_RK_MIXED, seed + (uint64_t)d, &c);
        void *h = malloc(n * wk_dtype_size(c.dtype));
        if (!h) {
            printf("SKIP %s n=%zu: no host memory\n", wk_dtype_name(c.dtype), n);
            continue;
        }
        wk_repro_case_fill(&c, h);
        uint64_t want = model_bits(h, n, c.dtype);
        int before = tally.failed;
        check_input(h, n, c.dtype, want, c.seed, 0, wk_repro_kind_name(c.kind));
        wk_checkf(&tally, tally.failed == before, "%s %s n = 2^31 + 17: every shape and split gives the model's bits",
                  wk_dtype_name(c.dtype), wk_repro_kind_name(c.kind));
        free(h);
        CHECK_CUDA(cudaFree(d_in));
        d_in = NULL;
        in_bytes = 0;
    }
}

static void test_api(void)
{
    reserve(4096);
    float ones[64];
    for (int i = 0; i < 64; ++i)
        ones[i] = 1.0f;
    CHECK_CUDA(cudaMemcpy(d_in, ones, sizeof ones, cudaMemcpyHostToDevice));
    poison_out();
    CHECK_CUDA(cudaStreamSynchronize(stream));
    wk_checkf(&tally, wk_reduce_repro(NULL, d_in, d_out, 64, WK_F32, stream) == WK_ERROR_INVALID_ARGUMENT, "NULL ctx");
    wk_checkf(&tally, wk_reduce_repro(ctx, d_in, d_out, 64, (wk_dtype)99, stream) == WK_ERROR_INVALID_DTYPE,
              "unknown dtype");
    wk_checkf(&tally, wk_reduce_repro(ctx, NULL, d_out, 64, WK_F32, stream) == WK_ERROR_INVALID_ARGUMENT ||
                          wk_reduce_repro(ctx, NULL, d_out, 64, WK_F32, stream) == WK_ERROR_INVALID_POINTER,
              "NULL d_in with n > 0");
    wk_checkf(&tally, wk_reduce_repro(ctx, d_in, ones, 64, WK_F32, stream) == WK_ERROR_INVALID_POINTER,
              "host d_out");
    wk_checkf(&tally, wk_reduce_repro(ctx, d_in, (char *)d_in + 8, 64, WK_F32, stream) == WK_ERROR_INVALID_ARGUMENT,
              "d_out inside d_in");
    wk_checkf(&tally, wk_reduce_repro_partial(ctx, d_in, (wk_repro_partial *)((char *)d_out + 4), 64, WK_F32, stream) ==
                          WK_ERROR_INVALID_POINTER,
              "partial not 8-byte aligned");
    wk_checkf(&tally, wk_reduce_repro_partial(ctx, d_in, d_out, 64, WK_I32, stream) == WK_ERROR_UNSUPPORTED,
              "partial of an integer dtype");
    wk_checkf(&tally, wk_repro_finalize(ctx, d_parts, 1, d_out, WK_U64, stream) == WK_ERROR_UNSUPPORTED,
              "finalize to an integer dtype");
    wk_checkf(&tally, wk_device_changes(stream, d_out, 64, 0, 0) == 0, "the refused calls wrote nothing");

    uint64_t bits = result_bits(wk_reduce_repro(ctx, d_in, d_out, 64, WK_F32, stream), WK_F32);
    wk_checkf(&tally, bits == 0x42800000u, "64 ones: 64.0");
    poison_out();
    bits = result_bits(wk_reduce_repro(ctx, d_in, d_out, 0, WK_F32, stream), WK_F32);
    wk_checkf(&tally, bits == 0, "n = 0: +0.0");
    poison_out();
    bits = result_bits(wk_repro_finalize(ctx, NULL, 0, d_out, WK_F64, stream), WK_F64);
    wk_checkf(&tally, bits == 0, "finalize of no partials: +0.0");
    int32_t ints[5] = {1, -7, 100, 2147483647, 1};
    CHECK_CUDA(cudaMemcpy(d_in, ints, sizeof ints, cudaMemcpyHostToDevice));
    poison_out();
    bits = result_bits(wk_reduce_repro(ctx, d_in, d_out, 5, WK_I32, stream), WK_I32);
    wk_checkf(&tally, (uint32_t)bits == (uint32_t)(1u - 7u + 100u + 2147483647u + 1u), "i32: wk_reduce's wrapping sum");

    /* NaNs whose payload is in the low word alone, in the scalar head and
     * in the body: still NaN, not an infinity. */
    double nans[4096];
    for (int i = 0; i < 4096; ++i)
        nans[i] = 1.0;
    const uint64_t payloads[2] = {0x7ff0000000000001ull, 0xfff0000000000001ull};
    reserve(sizeof nans);
    memcpy(&nans[1], &payloads[0], 8);
    memcpy(&nans[3001], &payloads[1], 8);
    CHECK_CUDA(cudaMemcpy(d_in, nans, sizeof nans, cudaMemcpyHostToDevice));
    poison_out();
    bits = result_bits(wk_reduce_repro(ctx, d_in, d_out, 3, WK_F64, stream), WK_F64);
    wk_checkf(&tally, bits == 0x7ff8000000000000ull, "f64 NaN with a low-word payload (scalar path): NaN");
    poison_out();
    bits = result_bits(wk_reduce_repro(ctx, (const double *)d_in + 2, d_out, 4094, WK_F64, stream), WK_F64);
    wk_checkf(&tally, bits == 0x7ff8000000000000ull, "f64 -NaN with a low-word payload (vector path): NaN");

    /* Captured into a graph and replayed: the same bits. */
    CHECK_CUDA(cudaMemcpy(d_in, ones, sizeof ones, cudaMemcpyHostToDevice));
    poison_out();
    CHECK_CUDA(cudaStreamSynchronize(stream));
    cudaGraph_t graph;
    cudaGraphExec_t exec;
    CHECK_CUDA(cudaStreamBeginCapture(stream, cudaStreamCaptureModeThreadLocal));
    wk_status st = wk_reduce_repro(ctx, d_in, d_out, 64, WK_F32, stream);
    CHECK_CUDA(cudaStreamEndCapture(stream, &graph));
    CHECK_CUDA(cudaGraphInstantiate(&exec, graph, 0));
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    CHECK_CUDA(cudaGraphLaunch(exec, stream));
    bits = result_bits(st, WK_F32);
    wk_checkf(&tally, bits == 0x42800000u, "captured and replayed twice: 64.0");
    CHECK_CUDA(cudaGraphExecDestroy(exec));
    CHECK_CUDA(cudaGraphDestroy(graph));
}

int main(void)
{
    wk_test_level level = wk_test_level_get();
    int setup = wk_test_setup(wk_create(&ctx, -1), "wk_create");
    if (setup >= 0)
        return setup;
    uint64_t seed = wk_seed_from_time();
    printf("seed %llu (set WK_SEED to repeat), level %s\n", (unsigned long long)seed, wk_test_level_name(level));
    /* A blocking stream: it waits for the synchronous copies (cudaMemcpy
     * from pageable memory may return before its DMA ends). */
    CHECK_CUDA(cudaStreamCreate(&stream));
    CHECK_CUDA(cudaMalloc(&d_out, 64));
    CHECK_CUDA(cudaMalloc(&d_parts, 8 * sizeof(wk_repro_partial)));
    if (level == WK_LEVEL_LARGE) {
        test_large(seed);
    } else {
        test_api();
        test_case_list(level == WK_LEVEL_QUICK);
        test_fresh(seed, level == WK_LEVEL_QUICK);
        test_coarse_floor(seed);
    }
    CHECK_CUDA(cudaFree(d_out));
    CHECK_CUDA(cudaFree(d_parts));
    if (d_in)
        CHECK_CUDA(cudaFree(d_in));
    CHECK_CUDA(cudaStreamDestroy(stream));
    wk_destroy(ctx);
    return wk_tally_finish(&tally);
}

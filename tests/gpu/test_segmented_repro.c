/* GPU test of wk_segmented_reduce_repro: every segment's result has the
 * bits of wk_reduce_repro over that segment alone, for every float dtype,
 * in the uniform, rows and offsets layouts, at unaligned starts, with
 * values spread over the whole exponent range, infinities, NaN and signed
 * zeros; integer dtypes give wk_segmented_reduce's sum; segment counts whose
 * output would overflow size_t are refused. Short segments are checked
 * against the host model of wk_reduce_repro, every sixteenth of them and
 * every long one against a call of its own. Exits 77 without a device. */
#include "gpu/api_test_util.h"
#include "ref/generate.h"
#include "ref/half.h"
#include "ref/repro_model.h"
#include "test_util.h"
#include "warpkit.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#define MAX_ELEMS ((size_t)1 << 20)
#define MAX_SEGMENTS 32768

static wk_context *ctx;
static cudaStream_t stream;
static wk_tally tally;
static uint64_t seed;
static unsigned char *d_in, *d_out, *d_one;
static int64_t *d_begin, *d_end;

/* Stores x as the float dtype (rounded). */
static void store_as(wk_dtype dtype, double x, void *slot)
{
    switch (dtype) {
    case WK_F64: memcpy(slot, &x, 8); break;
    case WK_F32: { float f = (float)x; memcpy(slot, &f, 4); break; }
    case WK_F16: { uint16_t h = wk_float_to_half((float)x); memcpy(slot, &h, 2); break; }
    default: { uint16_t h = wk_float_to_bf16((float)x); memcpy(slot, &h, 2); break; }
    }
}

/* A value of the dtype from draw r: mostly of moderate size, some far up or
 * down the exponent range, so that segments need different top bins. With
 * `moderate`, always in [-1, 1). */
static void value_of(wk_dtype dtype, uint64_t r, void *slot, int moderate)
{
    double u = (double)(r >> 11) * 0x1p-53 * 2.0 - 1.0;
    int spread = moderate ? 2 : (int)((r >> 3) % 16);
    double scale = spread == 0 ? ldexp(1.0, (int)(r % 200) - 100) : spread == 1 ? ldexp(1.0, -(int)(r % 60)) : 1.0;
    store_as(dtype, u * scale, slot);
}

/* Writes a special value (kind 0: NaN, 1: +inf, 2: -inf, 3: -0.0). */
static void special_of(wk_dtype dtype, int kind, void *slot)
{
    store_as(dtype, kind == 0 ? NAN : kind == 1 ? INFINITY : kind == 2 ? -INFINITY : -0.0, slot);
}

/* Segments checked against a call of their own on the GPU: every long one
 * and every sixteenth (256th under the sanitizers, WK_TEST_QUICK); the
 * others against the host model alone, so that a run under the sanitizers
 * makes few calls and can still take the plan's every shape. */
#define HOST_MAX_LEN 4096

/* The bits of in[lo .. hi) by the host: the model of the reproducible sum
 * (ref/repro_model.h, which test_repro_gpu holds every GPU launch to), or
 * for i32 the wrapping sum wk_reduce gives. */
static uint64_t host_bits(const unsigned char *h_in, long long lo, long long hi, wk_dtype dtype)
{
    const size_t elem = wk_dtype_size(dtype);
    if (dtype == WK_I32) {
        uint32_t sum = 0;
        for (long long k = lo; k < hi; ++k) {
            int32_t v;
            memcpy(&v, h_in + (size_t)k * elem, 4);
            sum += (uint32_t)v;
        }
        return sum;
    }
    wk_rp p;
    wk_model_repro(h_in + (size_t)lo * elem, (size_t)(hi - lo), dtype, &p);
    return wk_model_round(&p, dtype);
}

/* Runs the segmented call and compares each segment with wk_reduce_repro
 * over it alone (wk_reduce's sum for i32): a call on the GPU for long and
 * sampled segments, which also checks that the host model agrees, the
 * host model for the rest. Counts the segments whose bits differ. */
static void compare(const char *what, wk_dtype dtype, const unsigned char *h_in, size_t n, const wk_segments *seg,
                    const int64_t *h_begin, const int64_t *h_end)
{
    const size_t elem = wk_dtype_size(dtype);
    unsigned char *h_out = malloc(seg->count * 8), *h_ref = malloc(seg->count * 8), *h_model = malloc(seg->count * 8);
    unsigned char *on_gpu = malloc(seg->count);
    CHECK_CUDA(cudaMemcpy(d_in, h_in, n * elem, cudaMemcpyHostToDevice));
    if (h_begin) {
        CHECK_CUDA(cudaMemcpy(d_begin, h_begin, seg->count * 8, cudaMemcpyHostToDevice));
        CHECK_CUDA(cudaMemcpy(d_end, h_end, seg->count * 8, cudaMemcpyHostToDevice));
    }
    wk_poison_device(d_out, seg->count * elem);
    wk_status st = wk_segmented_reduce_repro(ctx, d_in, d_out, seg, dtype, stream);
    wait_stream(stream, HANG_SECONDS, what);
    CHECK_CUDA(cudaMemcpy(h_out, d_out, seg->count * elem, cudaMemcpyDeviceToHost));
    size_t wrong = 0, first_wrong = 0, model_wrong = 0, calls = 0;
    const size_t sample = wk_test_quick() ? 256 : 16;
    for (size_t i = 0; i < seg->count; ++i) {
        long long lo, hi;
        if (h_begin) {
            lo = h_begin[i] < 0 ? 0 : h_begin[i] > (long long)n ? (long long)n : h_begin[i];
            hi = h_end[i] < 0 ? 0 : h_end[i] > (long long)n ? (long long)n : h_end[i];
            if (hi < lo)
                hi = lo;
        } else {
            lo = (long long)(i * (seg->stride ? seg->stride : seg->size));
            hi = lo + (long long)seg->size;
        }
        /* 0: the host model alone; 1: the model and a call; 2: a call alone. */
        on_gpu[i] = hi - lo > HOST_MAX_LEN ? 2 : i % sample == 0;
        if (on_gpu[i] != 2) {
            const uint64_t bits = host_bits(h_in, lo, hi, dtype);
            memcpy(h_model + i * elem, &bits, elem); /* little-endian: the low bytes */
        }
        if (!on_gpu[i])
            continue;
        ++calls;
        const wk_status one = dtype == WK_I32 ? wk_reduce(ctx, d_in + lo * elem, d_one, (size_t)(hi - lo), dtype,
                                                          WK_SUM, stream)
                                              : wk_reduce_repro(ctx, d_in + lo * elem, d_one, (size_t)(hi - lo),
                                                                dtype, stream);
        CHECK_CUDA(cudaMemcpyAsync(h_ref + i * elem, d_one, elem, cudaMemcpyDeviceToHost, stream));
        if (one != WK_SUCCESS)
            ++wrong;
    }
    wait_stream(stream, HANG_SECONDS, what);
    for (size_t i = 0; i < seg->count; ++i) {
        if (on_gpu[i] == 1 && memcmp(h_model + i * elem, h_ref + i * elem, elem) != 0)
            ++model_wrong;
        const unsigned char *want = (on_gpu[i] ? h_ref : h_model) + i * elem;
        if (memcmp(h_out + i * elem, want, elem) != 0 && wrong++ == 0)
            first_wrong = i;
    }
    wk_checkf(&tally, st == WK_SUCCESS && wrong == 0, "%s %s: %zu segments, %zu differ from wk_reduce_repro%s",
              what, wk_dtype_name(dtype), seg->count, wrong, wrong ? " (see the first below)" : "");
    wk_checkf(&tally, model_wrong == 0, "%s %s: %zu segments also called alone on the GPU, %zu differ from the model",
              what, wk_dtype_name(dtype), calls, model_wrong);
    if (wrong) {
        unsigned long long a = 0, b = 0;
        memcpy(&a, h_out + first_wrong * elem, elem);
        memcpy(&b, (on_gpu[first_wrong] ? h_ref : h_model) + first_wrong * elem, elem);
        printf("  segment %zu: got 0x%llx, one call gives 0x%llx\n", first_wrong, a, b);
    }
    WK_FREE_HOST(h_out, h_ref, h_model, on_gpu);
}

static void run_dtype(wk_dtype dtype, unsigned char *h_in, int64_t *h_begin, int64_t *h_end, uint64_t s)
{
    const size_t elem = wk_dtype_size(dtype);
    const size_t n = MAX_ELEMS;
    for (size_t i = 0; i < n; ++i) {
        if (dtype == WK_I32) {
            int32_t v = (int32_t)wk_rand64(s, i);
            memcpy(h_in + i * elem, &v, 4);
        } else {
            value_of(dtype, wk_rand64(s, i), h_in + i * elem, 0);
        }
    }
    if (dtype != WK_I32) {
        /* Uniform segments of 37: NaN in segment 3, +inf in 5, both
         * infinities in 7, nothing but -0.0 in 9. */
        special_of(dtype, 0, h_in + (3 * 37 + 5) * elem);
        special_of(dtype, 1, h_in + (5 * 37 + 1) * elem);
        special_of(dtype, 1, h_in + (7 * 37 + 2) * elem);
        special_of(dtype, 2, h_in + (7 * 37 + 30) * elem);
        for (size_t k = 0; k < 37; ++k)
            special_of(dtype, 3, h_in + (9 * 37 + k) * elem);
    }
    /* Uniform and rows layouts, from `skip` elements into the input (an
     * unaligned start). The later ones take every shape of the plan
     * (segmented/plan.h) for every dtype: rows of at most 32 bytes a thread
     * each, segments a lane sums alone up to 256 bytes, batches of several
     * warp-summed rows a warp (on devices of over about 30 SMs), rows cut
     * into pieces. */
    static const struct {
        size_t count, size, stride, skip;
    } layouts[] = {
        {1000, 37, 0, 0},    {4096, 3, 0, 0},    {300, 1000, 1031, 1}, {1, 200001, 0, 3},
        {5000, 8, 11, 1},    {7000, 1, 3, 0},    {64, 64, 67, 1},      {30000, 33, 0, 0},
        {14000, 70, 0, 5},   {3, 150000, 150011, 1}, {40, 20000, 0, 0},
    };
    for (size_t k = 0; k < sizeof layouts / sizeof layouts[0]; ++k) {
        wk_segments rows = {layouts[k].count, layouts[k].size, layouts[k].stride, NULL, NULL};
        char what[96];
        snprintf(what, sizeof what, "%zu rows of %zu, stride %zu, from %zu", layouts[k].count, layouts[k].size,
                 layouts[k].stride ? layouts[k].stride : layouts[k].size, layouts[k].skip);
        compare(what, dtype, h_in + layouts[k].skip * elem, n - layouts[k].skip, &rows, NULL, NULL);
    }

    /* Offsets: random lengths (empty ones too), some overlapping or out of
     * order, some beyond the input (clamped), and long ones, listed and cut
     * into pieces, between short ones in the same batches. */
    const size_t count = MAX_SEGMENTS;
    for (size_t i = 0; i < count; ++i) {
        uint64_t r = wk_rand64(s ^ 0x5e65e65eull, i);
        int64_t lo = (int64_t)(r % n), len = (int64_t)((r >> 32) % 300);
        if (i % 97 == 0)
            len = 0;
        if (i % 101 == 0)
            len = -5;
        if (i % 211 == 0)
            lo = -(int64_t)(r % 50);
        if (i == 17)
            lo = 1, len = 500000;
        h_begin[i] = lo;
        h_end[i] = lo + len + (i % 331 == 0 ? (int64_t)n : 0);
    }
    wk_segments off = {count, n - 2, 0, d_begin, d_end};
    compare("offsets", dtype, h_in + 2 * elem, n - 2, &off, h_begin, h_end);

    /* Long offsets segments are cut into pieces on the board: 400
     * overlapping ones of most of the input are more pieces than it holds
     * for 4- and 8-byte dtypes (not under the sanitizers, which get 27), so
     * the later ones are summed whole by the warp that found them; short
     * ones sit between them. */
    const size_t overlapping = wk_test_quick() ? 40 : 600;
    for (size_t i = 0; i < overlapping; ++i) {
        uint64_t r = wk_rand64(s ^ 0x0ee1ull, i);
        h_begin[i] = (int64_t)(r % 1000);
        h_end[i] = i % 3 == 2 ? h_begin[i] + (int64_t)(r >> 40) % 50 : (int64_t)n - (int64_t)(r >> 32) % 1000;
    }
    wk_segments over = {overlapping, n, 0, d_begin, d_end};
    compare("offsets, long and overlapping", dtype, h_in, n, &over, h_begin, h_end);

    /* Offsets end to end (a CSR layout), of power-law lengths, over values of
     * moderate size, so that f32 batches take the joined shape: in the
     * second half many units of 128 segments prove exact; in the first, a
     * value far down the exponent range every 50th segment, an infinity
     * every 300th and a NaN every 400th make many batches of 32 fail the
     * proof and go segment by segment; in the second, a value 2^22 below
     * the others every 37th segment leaves batches at the proof's edge,
     * where the longest segment decides, and every 997th segment sums past
     * the dtype's range. Empty segments, segments of nothing but -0.0 and
     * one long one (listed and cut) throughout. */
    size_t at = 0;
    for (size_t i = 0; i < count; ++i) {
        const uint64_t r = wk_rand64(s ^ 0xc5a0ull, i);
        /* P(len >= k) = k^-1.1, as the benchmark's power law; a ninth empty. */
        const double u = ((double)(r >> 11) + 1.0) * 0x1p-53;
        const double draw = pow(u, -1.0 / 1.1);
        size_t len = r % 9 == 0 ? 0 : draw > 70000.0 ? 70000 : (size_t)draw;
        if (i == 5000)
            len = 70000;
        if (at + len > n)
            len = 0;
        h_begin[i] = (int64_t)at;
        h_end[i] = (int64_t)(at + len);
        if (dtype != WK_I32) {
            for (size_t k = at; k < at + len; ++k)
                value_of(dtype, wk_rand64(s ^ 0xc5a1ull, k), h_in + k * elem, 1);
            const int first_half = i < count / 2;
            if (len > 0 && i % 60 == 3)
                for (size_t k = at; k < at + len; ++k)
                    special_of(dtype, 3, h_in + k * elem);
            else if (len > 0 && first_half && i % 400 == 13)
                special_of(dtype, 0, h_in + (at + len / 2) * elem);
            else if (len > 0 && first_half && i % 300 == 11)
                special_of(dtype, 1, h_in + (at + len - 1) * elem);
            else if (len > 0 && first_half && i % 50 == 7)
                store_as(dtype, ldexp(1.0 + (double)(r % 1000) / 1000.0, -60), h_in + at * elem);
            else if (len > 0 && !first_half && i % 37 == 5)
                store_as(dtype, ldexp(1.0 + (double)(r % 1000) / 1000.0, -22), h_in + at * elem);
            else if (len > 1 && !first_half && i % 997 == 500)
                for (size_t k = at; k < at + len; ++k) /* past the dtype's range once summed */
                    store_as(dtype, dtype == WK_F64 ? 1.5e308 : 3.0e38, h_in + k * elem);
        }
        at += len;
    }
    wk_segments csr = {count, at, 0, d_begin, d_end};
    compare("offsets end to end", dtype, h_in, at, &csr, h_begin, h_end);

    /* The same, 45 segments fewer (a last unit of 83 and a last batch of
     * 19), and bounds that only clamping joins: the first begins before
     * the input, an empty segment ends 3 before it begins, the last ends
     * past the input. Units of 128 holding them are not taken as given;
     * their batches of 32 are, clamped. */
    const size_t fewer = count - 45;
    h_begin[0] = -7;
    for (size_t i = count / 2; i < fewer; ++i)
        if (h_end[i] == h_begin[i]) {
            h_end[i] = h_begin[i] - 3;
            break;
        }
    const int64_t last_end = h_end[fewer - 1];
    h_end[fewer - 1] = last_end + 100;
    wk_segments clamped = {fewer, (size_t)last_end, 0, d_begin, d_end};
    compare("offsets end to end once clamped", dtype, h_in, (size_t)last_end, &clamped, h_begin, h_end);
}

int main(void)
{
    int start = wk_api_test_start(&ctx, &seed, &stream, &d_in, MAX_ELEMS * 8);
    if (start >= 0)
        return start;
    CHECK_CUDA(cudaMalloc((void **)&d_out, MAX_SEGMENTS * 8));
    CHECK_CUDA(cudaMalloc((void **)&d_one, 8));
    CHECK_CUDA(cudaMalloc((void **)&d_begin, MAX_SEGMENTS * 8));
    CHECK_CUDA(cudaMalloc((void **)&d_end, MAX_SEGMENTS * 8));
    unsigned char *h_in = malloc(MAX_ELEMS * 8);
    int64_t *h_begin = malloc(MAX_SEGMENTS * 8), *h_end = malloc(MAX_SEGMENTS * 8);
    const wk_dtype dtypes[] = {WK_F32, WK_F64, WK_F16, WK_BF16, WK_I32};
    for (int d = 0; d < 5; ++d)
        run_dtype(dtypes[d], h_in, h_begin, h_end, seed + (uint64_t)d);

    wk_expect(&tally, wk_segmented_reduce_repro(ctx, d_in, d_out, NULL, WK_F32, stream) == WK_ERROR_INVALID_ARGUMENT,
              "NULL segments: invalid argument");
    wk_segments none = {0, 5, 0, NULL, NULL};
    wk_expect(&tally, wk_segmented_reduce_repro(ctx, NULL, NULL, &none, WK_F32, stream) == WK_SUCCESS,
              "no segments: success, nothing read");
    wk_segments some = {2, 5, 0, NULL, NULL};
    wk_expect(&tally, wk_segmented_reduce_repro(ctx, h_in, d_out, &some, WK_F32, stream) == WK_ERROR_INVALID_POINTER,
              "a host input: invalid pointer");
    wk_expect(&tally, wk_segmented_reduce_repro(ctx, d_in, d_out, &some, (wk_dtype)99, stream) == WK_ERROR_INVALID_DTYPE,
              "an unknown dtype: invalid dtype");

    /* Rows of no elements: count x element size must still fit size_t, or
     * the output's extent would wrap and go unchecked. */
    const size_t counts[] = {(size_t)1 << 62, SIZE_MAX / 2 + 1, SIZE_MAX};
    for (size_t c = 0; c < sizeof counts / sizeof counts[0]; ++c) {
        wk_segments empty_rows = {counts[c], 0, 0, NULL, NULL};
        CHECK_CUDA(cudaMemset(d_out, POISON, 64));
        wk_status st = wk_segmented_reduce_repro(ctx, d_in, d_out, &empty_rows, WK_F32, stream);
        cudaError_t after = cudaStreamSynchronize(stream);
        char label[192];
        snprintf(label, sizeof label, "%zu rows of 0 elements: %s, '%s' (stream: %s)", counts[c], wk_status_string(st),
                 wk_last_error_message(), cudaGetErrorString(after));
        wk_expect(&tally, st == WK_ERROR_LIMIT && after == cudaSuccess &&
                              wk_device_changes(stream, d_out, 64, 0, 0) == 0, label);
    }

    WK_FREE_DEVICE(d_out, d_one, d_begin, d_end);
    WK_FREE_HOST(h_in, h_begin, h_end);
    return wk_api_test_finish(ctx, stream, d_in, &tally);
}

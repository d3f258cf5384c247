/* GPU test of wk_reduce_to, wk_segmented_reduce_to and the scans' _to forms (segmented too), the sums kept in a
 * wider dtype: every pair that wk_sum_widens accepts, at edge sizes and
 * every byte offset, against an exact CPU sum or prefix sum (integers modulo 2^bits of the output; float inputs drawn
 * so that the wider sum is exact and a narrower one would not be); NaN and
 * infinity; the refusals (pairs that do not widen, bool sums in bool, bad
 * dtypes, a misaligned output) launch nothing and leave the output as it
 * was. The large level adds a u8 sum over 2^31 + 5 elements. Exits 77
 * without a device. */
#include "gpu/api_test_util.h"
#include "ref/generate.h"
#include "ref/half.h"
#include "test_util.h"
#include "warpkit.h"

#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static wk_context *ctx;
static cudaStream_t stream;
static wk_tally tally;

/* The input dtypes and the outputs each widens into. */
static const wk_dtype inputs[] = {WK_BOOL, WK_U8, WK_I8, WK_I16, WK_U16, WK_I32, WK_U32, WK_F16, WK_BF16, WK_F32};

/* Element i of h as an integer, sign-extended for signed dtypes. */
static uint64_t int_at(const void *h, size_t i, wk_dtype d)
{
    switch (d) {
    case WK_BOOL: case WK_U8: return ((const uint8_t *)h)[i];
    case WK_I8: return (uint64_t)(int64_t)((const int8_t *)h)[i];
    case WK_I16: return (uint64_t)(int64_t)((const int16_t *)h)[i];
    case WK_U16: return ((const uint16_t *)h)[i];
    case WK_I32: return (uint64_t)(int64_t)((const int32_t *)h)[i];
    case WK_U32: return ((const uint32_t *)h)[i];
    default: return 0;
    }
}

static double float_at(const void *h, size_t i, wk_dtype d)
{
    switch (d) {
    case WK_F16: return wk_half_to_float(((const uint16_t *)h)[i]);
    case WK_BF16: return wk_bf16_to_float(((const uint16_t *)h)[i]);
    case WK_F32: return ((const float *)h)[i];
    default: return 0;
    }
}

/* Fills h[0 .. n) of dtype d from the seed. Integers over their whole range
 * (bools 0 or 1; `extreme` puts every element at the dtype's largest value,
 * a bool at 1, so that 16-bit inputs wrap a 32-bit output and 32-bit ones
 * pass 2^32). Floats: f16 and
 * bf16 multiples of 1/4 in [-16, 16], whose float sum is exact for the
 * sizes here; f32 multiples of 2^-10 of 24 significant bits below 2^19,
 * whose double sum is exact up to 2^23 elements and whose float sum is
 * not. */
static void fill(void *h, size_t n, wk_dtype d, uint64_t seed, int extreme)
{
    for (size_t i = 0; i < n; ++i) {
        uint64_t r = wk_rand64(seed, i);
        switch (d) {
        case WK_BOOL: ((uint8_t *)h)[i] = extreme ? 1 : (uint8_t)(r & 1); break;
        case WK_U8: ((uint8_t *)h)[i] = extreme ? 0xff : (uint8_t)r; break;
        case WK_I8: ((int8_t *)h)[i] = extreme ? 127 : (int8_t)(uint8_t)r; break;
        case WK_I16: ((int16_t *)h)[i] = extreme ? 32767 : (int16_t)(uint16_t)r; break;
        case WK_U16: ((uint16_t *)h)[i] = extreme ? 0xffff : (uint16_t)r; break;
        case WK_I32: ((int32_t *)h)[i] = extreme ? INT32_MAX : (int32_t)(uint32_t)r; break;
        case WK_U32: ((uint32_t *)h)[i] = extreme ? UINT32_MAX : (uint32_t)r; break;
        case WK_F16:
        case WK_BF16: {
            float v = (float)((int)(r % 129) - 64) / 4.0f;
            ((uint16_t *)h)[i] = d == WK_F16 ? wk_float_to_half(v) : wk_float_to_bf16(v);
            break;
        }
        case WK_F32: {
            int32_t m = (int32_t)(r & 0xffffff) - 0x800000; /* 24 bits, either sign */
            ((float *)h)[i] = ldexpf((float)m, (int)((r >> 32) % 7) - 10);
            break;
        }
        default: break;
        }
    }
}

/* The expected output bytes of the sum of h[0 .. n) kept as `out`: exact
 * (integers modulo 2^bits of out; the float inputs are drawn so that the
 * sum is exact in the output's precision). */
static void expected_sum(const void *h, size_t n, wk_dtype in, wk_dtype out, void *want)
{
    if (wk_dtype_is_float(in)) {
        long double s = 0;
        for (size_t i = 0; i < n; ++i)
            s += float_at(h, i, in);
        if (out == WK_F32) {
            float f = (float)s;
            memcpy(want, &f, 4);
        } else {
            double f = (double)s;
            memcpy(want, &f, 8);
        }
        return;
    }
    uint64_t s = 0;
    for (size_t i = 0; i < n; ++i)
        s += int_at(h, i, in);
    if (wk_dtype_size(out) == 4) {
        uint32_t w = (uint32_t)s;
        memcpy(want, &w, 4);
    } else {
        memcpy(want, &s, 8);
    }
}

/* The outputs `in` widens into, by wk_sum_widens. */
static int outputs_of(wk_dtype in, wk_dtype outs[4])
{
    int k = 0;
    for (int o = 0; o < WK_DTYPE_COUNT; ++o)
        if (o != (int)in && wk_sum_widens(in, o))
            outs[k++] = (wk_dtype)o;
    return k;
}

/* One call of wk_reduce_to on h[0 .. n) copied to `offset` bytes past a
 * 256-byte boundary, its output poisoned first; compared bit for bit. */
static void check_one(const void *h, size_t n, size_t offset, wk_dtype in, wk_dtype out, unsigned char *d_in,
                      unsigned char *d_out, const char *what)
{
    const size_t elem = wk_dtype_size(in), out_size = wk_dtype_size(out) == 4 ? 4 : 8;
    if (n)
        CHECK_CUDA(cudaMemcpy(d_in + offset, h, n * elem, cudaMemcpyHostToDevice));
    wk_poison_device(d_out, 16);
    wk_status st = wk_reduce_to(ctx, d_in + offset, d_out, n, in, out, stream);
    unsigned char got[16], want[8];
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(got, d_out, 16, cudaMemcpyDeviceToHost));
    expected_sum(h, n, in, out, want);
    int beyond = 1;
    for (size_t b = out_size; b < 16; ++b)
        beyond &= got[b] == POISON;
    uint64_t g = 0, w = 0;
    memcpy(&g, got, out_size);
    memcpy(&w, want, out_size);
    wk_checkf(&tally, st == WK_SUCCESS && g == w && beyond, "%s %s -> %s n=%zu offset=%zu: got 0x%llx want 0x%llx%s%s",
              what, wk_dtype_name(in), wk_dtype_name(out), n, offset, (unsigned long long)g, (unsigned long long)w,
              beyond ? "" : " (wrote past the output)", st == WK_SUCCESS ? "" : wk_last_error_message());
}

static void test_pairs(uint64_t seed, wk_test_level level)
{
    static const size_t sizes[] = {0, 1, 2, 3, 15, 16, 17, 31, 33, 255, 1000, 4097, 65536 + 3, 200003,
                                   (1u << 20) + 7, (1u << 22) + 1};
    const size_t quick_sizes = 9;
    const size_t max_n = (1u << 22) + 1;
    void *h = malloc(max_n * 4 + 64);
    unsigned char *d_in, *d_out;
    CHECK_CUDA(cudaMalloc((void **)&d_in, max_n * 4 + 256));
    CHECK_CUDA(cudaMalloc((void **)&d_out, 16));
    const size_t count = level == WK_LEVEL_QUICK ? quick_sizes : sizeof sizes / sizeof sizes[0];
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; ++k) {
        const wk_dtype in = inputs[k];
        wk_dtype outs[4];
        const int n_outs = outputs_of(in, outs);
        wk_checkf(&tally, n_outs >= 1, "%s widens into %d dtypes", wk_dtype_name(in), n_outs);
        for (int o = 0; o < n_outs; ++o) {
            for (size_t s = 0; s < count; ++s) {
                const size_t n = sizes[s];
                const uint64_t case_seed = seed ^ (k * 131 + (size_t)o * 17 + s) * 0x9e3779b97f4a7c15ull;
                fill(h, n, in, case_seed, 0);
                /* Every byte offset from the element's alignment up to 15 on
                 * a few sizes; one offset on the others. */
                const size_t elem = wk_dtype_size(in);
                const int all_offsets = n == 33 || n == 1000 || n == 4097;
                for (size_t off = 0; off < 16; off += elem) {
                    if (!all_offsets && off != (s % (16 / elem)) * elem)
                        continue;
                    check_one(h, n, off, in, outs[o], d_in, d_out, "sum");
                }
            }
            /* Sums past the range of 32 bits: every element at its largest. */
            if (level != WK_LEVEL_QUICK) {
                const size_t n = (1u << 20) + 7;
                fill(h, n, in, seed, 1);
                if (!wk_dtype_is_float(in))
                    check_one(h, n, 1 * wk_dtype_size(in), in, outs[o], d_in, d_out, "largest values");
            }
        }
    }
    free(h);
    WK_FREE_DEVICE(d_in, d_out);
}

/* The element i of the prefix sums of h kept as `out`, as raw bits: exact,
 * as expected_sum. `run` carries the sum of the elements before i (the
 * caller adds element i after). */
static uint64_t out_bits(long double fsum, uint64_t isum, wk_dtype in, wk_dtype out)
{
    if (wk_dtype_is_float(in)) {
        if (out == WK_F32) {
            float f = (float)fsum;
            uint32_t b;
            memcpy(&b, &f, 4);
            return b;
        }
        double d = (double)fsum;
        uint64_t b;
        memcpy(&b, &d, 8);
        return b;
    }
    return wk_dtype_size(out) == 4 ? (uint32_t)isum : isum;
}

/* One inclusive or exclusive scan of h[0 .. n) into `out`, the input at
 * in_off bytes and the output at out_off elements past 256-byte
 * boundaries, with an init (exclusive) and a carried prefix (`prefixed`);
 * every output and the poisoned bytes after them checked. */
static void check_scan_one(const void *h, size_t n, size_t in_off, size_t out_off, wk_dtype in, wk_dtype out,
                           int exclusive, int prefixed, uint64_t seed, unsigned char *d_in, unsigned char *d_out,
                           unsigned char *h_got)
{
    const size_t elem = wk_dtype_size(in), oe = wk_dtype_size(out);
    if (n)
        CHECK_CUDA(cudaMemcpy(d_in + in_off, h, n * elem, cudaMemcpyHostToDevice));
    const size_t span = (out_off + n) * oe + 64;
    wk_poison_device(d_out, span);
    /* init and prefix: small integers (whole floats), exact in every sum. */
    wk_value init, prefix;
    memset(&init, 0, sizeof init);
    memset(&prefix, 0, sizeof prefix);
    const int64_t init_i = (int64_t)(wk_rand64(seed, 1) % 201) - 100, prefix_i = (int64_t)(wk_rand64(seed, 2) % 201) - 100;
    long double f0 = 0;
    uint64_t i0 = 0;
    if (wk_dtype_is_float(in)) {
        if (out == WK_F32) {
            init.f32 = (float)init_i;
            prefix.f32 = (float)prefix_i;
        } else {
            init.f64 = (double)init_i;
            prefix.f64 = (double)prefix_i;
        }
        f0 = (exclusive ? init_i : 0) + (prefixed ? prefix_i : 0);
    } else {
        init.i64 = init_i; /* the low bytes are the i32 / u32 member */
        prefix.i64 = prefix_i;
        i0 = (exclusive ? (uint64_t)init_i : 0) + (prefixed ? (uint64_t)prefix_i : 0);
    }
    unsigned char *d_prefix = NULL;
    if (prefixed) {
        d_prefix = d_out + span; /* past the outputs */
        CHECK_CUDA(cudaMemcpy(d_prefix, &prefix, oe, cudaMemcpyHostToDevice));
    }
    wk_status st = exclusive ? wk_exclusive_scan_to(ctx, d_in + in_off, d_out + out_off * oe, n, in, out, init,
                                                    d_prefix, stream)
                             : wk_inclusive_scan_to(ctx, d_in + in_off, d_out + out_off * oe, n, in, out, d_prefix,
                                                    stream);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(h_got, d_out, span, cudaMemcpyDeviceToHost));
    size_t bad = 0, first_bad = SIZE_MAX;
    uint64_t got_bits = 0, want_bits = 0;
    long double f = f0;
    uint64_t isum = i0;
    for (size_t i = 0; i < n; ++i) {
        if (!exclusive) {
            if (wk_dtype_is_float(in))
                f += float_at(h, i, in);
            else
                isum += int_at(h, i, in);
        }
        const uint64_t want = out_bits(f, isum, in, out);
        uint64_t got = 0;
        memcpy(&got, h_got + (out_off + i) * oe, oe);
        if (got != want && bad++ == 0) {
            first_bad = i;
            got_bits = got;
            want_bits = want;
        }
        if (exclusive) {
            if (wk_dtype_is_float(in))
                f += float_at(h, i, in);
            else
                isum += int_at(h, i, in);
        }
    }
    size_t touched = 0;
    for (size_t b = 0; b < out_off * oe; ++b)
        touched += h_got[b] != POISON;
    for (size_t b = (out_off + n) * oe; b < span; ++b)
        touched += h_got[b] != POISON;
    wk_checkf(&tally, st == WK_SUCCESS && bad == 0 && touched == 0,
              "%s scan %s -> %s n=%zu in +%zu out +%zu%s: %zu wrong (first at %zu: 0x%llx, want 0x%llx), %zu bytes "
              "written outside%s%s",
              exclusive ? "exclusive" : "inclusive", wk_dtype_name(in), wk_dtype_name(out), n, in_off, out_off,
              prefixed ? " with a prefix" : "", bad, first_bad == SIZE_MAX ? 0 : first_bad,
              (unsigned long long)got_bits, (unsigned long long)want_bits, touched, st == WK_SUCCESS ? "" : ": ",
              st == WK_SUCCESS ? "" : wk_last_error_message());
}

static void test_scans(uint64_t seed, wk_test_level level)
{
    static const size_t sizes[] = {0, 1, 2, 17, 33, 1000, 4097, 32768 + 5, 200003, (1u << 20) + 7, (1u << 22) + 3};
    const size_t quick_sizes = 7;
    const size_t max_n = (1u << 22) + 3;
    void *h = malloc(max_n * 4 + 64);
    unsigned char *h_got = malloc(max_n * 8 + 1024);
    unsigned char *d_in, *d_out;
    CHECK_CUDA(cudaMalloc((void **)&d_in, max_n * 4 + 256));
    CHECK_CUDA(cudaMalloc((void **)&d_out, max_n * 8 + 1024));
    const size_t count = level == WK_LEVEL_QUICK ? quick_sizes : sizeof sizes / sizeof sizes[0];
    unsigned variant = (unsigned)(seed % 4);
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; ++k) {
        const wk_dtype in = inputs[k];
        wk_dtype outs[4];
        const int n_outs = outputs_of(in, outs);
        for (int o = 0; o < n_outs; ++o) {
            for (size_t si = 0; si < count; ++si, ++variant) {
                const size_t n = sizes[si], elem = wk_dtype_size(in);
                const uint64_t case_seed = seed ^ (k * 257 + (size_t)o * 29 + si) * 0xd1b54a32d192ed03ull;
                fill(h, n, in, case_seed, si % 3 == 2);
                /* Offsets and forms rotate with the case: the input at any
                 * element offset within 16 bytes, the output at 0 to 3
                 * elements, inclusive and exclusive, with and without a
                 * prefix. */
                const size_t in_off = (variant % (16 / elem)) * elem, out_off = (variant / 3) % 4;
                check_scan_one(h, n, in_off, out_off, in, outs[o], (int)(variant & 1), (int)((variant >> 1) & 1),
                               case_seed, d_in, d_out, h_got);
            }
        }
    }
    /* A bool mask's Trues at their positions: the exclusive count, the
     * compaction's output index, every element True and every one False. */
    const size_t n = 100003;
    memset(h, 1, n);
    check_scan_one(h, n, 3, 1, WK_BOOL, WK_I64, 1, 0, seed, d_in, d_out, h_got);
    memset(h, 0, n);
    check_scan_one(h, n, 5, 0, WK_BOOL, WK_I64, 0, 0, seed, d_in, d_out, h_got);
    free(h);
    free(h_got);
    WK_FREE_DEVICE(d_in, d_out);
}

/* Segment i's first element and length: a row, or the host copy of the
 * offsets clamped into [0, extent) as the library clamps them. */
static void segment_of(const wk_segments *sg, const int64_t *h_begin, const int64_t *h_end, size_t extent, size_t i,
                       size_t *first, size_t *len)
{
    if (h_begin) {
        int64_t b = h_begin[i] < 0 ? 0 : h_begin[i], e = h_end[i] > (int64_t)extent ? (int64_t)extent : h_end[i];
        *first = (size_t)b;
        *len = e > b ? (size_t)(e - b) : 0;
    } else {
        *first = i * (sg->stride ? sg->stride : sg->size);
        *len = sg->size;
    }
}

/* wk_segmented_reduce_to over rows (back to back and apart) and offsets,
 * every segment's sum against expected_sum of that segment alone. */
static void check_segments(const void *h, size_t extent, wk_dtype in, wk_dtype out, const wk_segments *sg,
                           const int64_t *h_begin, const int64_t *h_end, unsigned char *d_in, unsigned char *d_out,
                           unsigned char *h_got, const char *layout)
{
    const size_t elem = wk_dtype_size(in), oe = wk_dtype_size(out);
    CHECK_CUDA(cudaMemcpy(d_in, h, extent * elem, cudaMemcpyHostToDevice));
    const size_t bytes = sg->count * oe;
    wk_poison_device(d_out, bytes + 64);
    wk_status st = wk_segmented_reduce_to(ctx, d_in, d_out, sg, in, out, stream);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(h_got, d_out, bytes + 64, cudaMemcpyDeviceToHost));
    size_t bad = 0, first_bad = 0;
    for (size_t i = 0; i < sg->count; ++i) {
        size_t first, len;
        segment_of(sg, h_begin, h_end, extent, i, &first, &len);
        unsigned char want[8];
        expected_sum((const char *)h + first * elem, len, in, out, want);
        if (memcmp(want, h_got + i * oe, oe) != 0 && bad++ == 0)
            first_bad = i;
    }
    size_t touched = 0;
    for (size_t b = bytes; b < bytes + 64; ++b)
        touched += h_got[b] != POISON;
    wk_checkf(&tally, st == WK_SUCCESS && bad == 0 && touched == 0,
              "segmented %s -> %s, %s: %zu segments, %zu wrong (first %zu), %zu bytes written past%s%s",
              wk_dtype_name(in), wk_dtype_name(out), layout, sg->count, bad, first_bad, touched,
              st == WK_SUCCESS ? "" : ": ", st == WK_SUCCESS ? "" : wk_last_error_message());
}

static void test_segmented_to(uint64_t seed)
{
    const size_t extent = (1u << 21) + 13;
    void *h = malloc(extent * 4);
    unsigned char *h_got = malloc(extent * 8 + 64);
    int64_t *h_begin = malloc(4096 * sizeof(int64_t)), *h_end = malloc(4096 * sizeof(int64_t));
    unsigned char *d_in, *d_out;
    int64_t *d_begin, *d_end;
    CHECK_CUDA(cudaMalloc((void **)&d_in, extent * 4));
    CHECK_CUDA(cudaMalloc((void **)&d_out, extent * 8 + 64));
    CHECK_CUDA(cudaMalloc((void **)&d_begin, 4096 * sizeof(int64_t)));
    CHECK_CUDA(cudaMalloc((void **)&d_end, 4096 * sizeof(int64_t)));
    /* Rows of 1, 7, 32, 100, 1000 and 70000 elements, back to back and 3
     * apart; offsets of random lengths (some empty, some reversed). */
    static const size_t row_sizes[] = {1, 7, 32, 100, 1000, 70000};
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; ++k) {
        const wk_dtype in = inputs[k];
        wk_dtype outs[4];
        const int n_outs = outputs_of(in, outs);
        for (int o = 0; o < n_outs; ++o) {
            const uint64_t s = seed ^ (k * 97 + (size_t)o) * 0x9e3779b97f4a7c15ull;
            fill(h, extent, in, s, o == n_outs - 1);
            for (size_t r = 0; r < sizeof row_sizes / sizeof row_sizes[0]; ++r) {
                const size_t size = row_sizes[r], stride = (r + k) % 2 ? size + 3 : size;
                wk_segments sg = {(extent - size) / stride + 1, size, stride, NULL, NULL};
                check_segments(h, extent, in, outs[o], &sg, NULL, NULL, d_in, d_out, h_got,
                               stride == size ? "rows" : "rows apart");
            }
            const size_t count = 4096;
            for (size_t i = 0; i < count; ++i) {
                const uint64_t r = wk_rand64(s, i + 7);
                const int64_t b = (int64_t)(r % extent), len = (int64_t)((r >> 24) % (i % 64 == 0 ? 50000 : 600));
                h_begin[i] = b;
                h_end[i] = (r >> 50) % 16 == 0 ? b - len : b + len;
            }
            CHECK_CUDA(cudaMemcpy(d_begin, h_begin, count * sizeof(int64_t), cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(d_end, h_end, count * sizeof(int64_t), cudaMemcpyHostToDevice));
            wk_segments sg = {count, extent, 0, d_begin, d_end};
            check_segments(h, extent, in, outs[o], &sg, h_begin, h_end, d_in, d_out, h_got, "offsets");
        }
    }
    free(h);
    free(h_got);
    free(h_begin);
    free(h_end);
    WK_FREE_DEVICE(d_in, d_out, d_begin, d_end);
}

/* Where a segmented scan's arrays lie: the input `in_off` elements and the
 * output `out_off` elements past 256-byte boundaries. */
typedef struct scan_place {
    size_t in_off, out_off;
    int exclusive;
    int64_t init;
} scan_place;

/* wk_segmented_inclusive_scan_to / _exclusive_scan_to over one layout:
 * every position of every segment against the exact prefix sum of its
 * segment alone (from init for the exclusive scan), every other output
 * byte (before, between and after the segments) still poisoned. Segments
 * must not overlap (offsets sorted). */
static void check_segmented_scan(const void *h, size_t extent, wk_dtype in, wk_dtype out, const wk_segments *sg,
                                 const int64_t *h_begin, const int64_t *h_end, scan_place at, unsigned char *d_in,
                                 unsigned char *d_out, unsigned char *h_got, unsigned char *covered,
                                 const char *layout)
{
    const size_t elem = wk_dtype_size(in), oe = wk_dtype_size(out);
    const size_t span = (at.out_off + extent) * oe + 64; /* bytes of d_out checked */
    unsigned char *in_base = d_in + at.in_off * elem, *out_base = d_out + at.out_off * oe;
    CHECK_CUDA(cudaMemcpy(in_base, h, extent * elem, cudaMemcpyHostToDevice));
    wk_poison_device(d_out, span);
    wk_value init;
    memset(&init, 0, sizeof init);
    if (out == WK_F32)
        init.f32 = (float)at.init;
    else if (out == WK_F64)
        init.f64 = (double)at.init;
    else
        init.i64 = at.init; /* the low bytes are the i32 / u32 member */
    wk_status st = at.exclusive ? wk_segmented_exclusive_scan_to(ctx, in_base, out_base, sg, in, out, init, stream)
                                : wk_segmented_inclusive_scan_to(ctx, in_base, out_base, sg, in, out, stream);
    CHECK_CUDA(cudaStreamSynchronize(stream));
    CHECK_CUDA(cudaMemcpy(h_got, d_out, span, cudaMemcpyDeviceToHost));
    const unsigned char *got_base = h_got + at.out_off * oe;
    memset(covered, 0, extent);
    size_t bad = 0, first_bad = SIZE_MAX, bad_seg = 0;
    for (size_t i = 0; i < sg->count; ++i) {
        size_t first, len;
        segment_of(sg, h_begin, h_end, extent, i, &first, &len);
        long double f = at.exclusive ? (long double)at.init : 0;
        uint64_t isum = at.exclusive ? (uint64_t)at.init : 0;
        for (size_t j = first; j < first + len; ++j) {
            covered[j] = 1;
            if (!at.exclusive) {
                if (wk_dtype_is_float(in))
                    f += float_at(h, j, in);
                else
                    isum += int_at(h, j, in);
            }
            const uint64_t want = out_bits(f, isum, in, out);
            uint64_t got = 0;
            memcpy(&got, got_base + j * oe, oe);
            if (got != want && bad++ == 0) {
                first_bad = j;
                bad_seg = i;
            }
            if (at.exclusive) {
                if (wk_dtype_is_float(in))
                    f += float_at(h, j, in);
                else
                    isum += int_at(h, j, in);
            }
        }
    }
    size_t touched = 0;
    for (size_t b = 0; b < at.out_off * oe; ++b)
        touched += h_got[b] != POISON;
    for (size_t j = 0; j < extent; ++j)
        if (!covered[j])
            for (size_t b = 0; b < oe; ++b)
                touched += got_base[j * oe + b] != POISON;
    for (size_t b = (at.out_off + extent) * oe; b < span; ++b)
        touched += h_got[b] != POISON;
    wk_checkf(&tally, st == WK_SUCCESS && bad == 0 && touched == 0,
              "segmented %s scan %s -> %s, %s, in +%zu out +%zu: %zu segments, %zu wrong (first at %zu, segment "
              "%zu), %zu bytes written outside the segments%s%s",
              at.exclusive ? "exclusive" : "inclusive", wk_dtype_name(in), wk_dtype_name(out), layout, at.in_off,
              at.out_off, sg->count, bad, first_bad == SIZE_MAX ? 0 : first_bad, bad_seg, touched,
              st == WK_SUCCESS ? "" : ": ", st == WK_SUCCESS ? "" : wk_last_error_message());
}

/* Rows of every shape the planner picks (a thread, a warp, runs of rows
 * end to end, tiles), each size back to back and 3 apart, and sorted
 * offsets with gaps, empty and reversed segments and long ones cut into
 * pieces; every layout inclusive and exclusive in turn, the input and the
 * output on and off 16-byte boundaries (so that whole vectors' outputs
 * take both the vector and the element stores). */
static void test_segmented_scans_to(uint64_t seed)
{
    const size_t extent = (1u << 20) + 29, count_max = 8192;
    void *h = malloc(extent * 4);
    unsigned char *h_got = malloc(extent * 8 + 256), *covered = malloc(extent);
    int64_t *h_begin = malloc(count_max * sizeof(int64_t)), *h_end = malloc(count_max * sizeof(int64_t));
    unsigned char *d_in, *d_out;
    int64_t *d_begin, *d_end;
    CHECK_CUDA(cudaMalloc((void **)&d_in, extent * 4 + 64));
    CHECK_CUDA(cudaMalloc((void **)&d_out, extent * 8 + 256));
    CHECK_CUDA(cudaMalloc((void **)&d_begin, count_max * sizeof(int64_t)));
    CHECK_CUDA(cudaMalloc((void **)&d_end, count_max * sizeof(int64_t)));
    static const size_t row_sizes[] = {1, 5, 16, 100, 1000, 9000, 300000};
    /* Offsets in elements, taken in turn: every pairing of the two, each
     * with both forms, over 32 layouts. */
    static const size_t in_offs[] = {0, 1, 0, 3}, out_offs[] = {0, 0, 1, 3};
    unsigned turn = (unsigned)(seed % 4);
    for (size_t k = 0; k < sizeof inputs / sizeof inputs[0]; ++k) {
        const wk_dtype in = inputs[k];
        wk_dtype outs[4];
        const int n_outs = outputs_of(in, outs);
        for (int o = 0; o < n_outs; ++o) {
            const uint64_t s = seed ^ (k * 131 + (size_t)o + 5) * 0x9e3779b97f4a7c15ull;
            fill(h, extent, in, s, o == n_outs - 1);
            for (size_t r = 0; r < sizeof row_sizes / sizeof row_sizes[0]; ++r) {
                for (int apart = 0; apart < 2; ++apart, ++turn) {
                    const size_t size = row_sizes[r], stride = apart ? size + 3 : size;
                    const scan_place at = {in_offs[turn % 4], out_offs[(turn / 4) % 4], (int)((turn ^ (turn >> 2) ^ (turn >> 4)) & 1),
                                           (int64_t)(wk_rand64(s, r * 2 + apart) % 201) - 100};
                    wk_segments sg = {(extent - size) / stride + 1, size, stride, NULL, NULL};
                    check_segmented_scan(h, extent, in, outs[o], &sg, NULL, NULL, at, d_in, d_out, h_got, covered,
                                         apart ? "rows apart" : "rows");
                }
            }
            /* Sorted offsets: lengths mostly under 600, one in 64 up to
             * 200000; gaps of 0 to 3; one in 16 reversed (empty). */
            size_t count = 0;
            int64_t pos = (int64_t)(wk_rand64(s, 99) % 5);
            while (count < count_max && pos < (int64_t)extent) {
                const uint64_t r = wk_rand64(s, count + 1000);
                const int64_t len = (int64_t)((r >> 8) % (count % 64 == 3 ? 200000 : 600));
                h_begin[count] = pos;
                h_end[count] = (r >> 50) % 16 == 0 ? pos - len : pos + len;
                pos += ((r >> 50) % 16 == 0 ? 0 : len) + (int64_t)(r % 4);
                ++count;
            }
            CHECK_CUDA(cudaMemcpy(d_begin, h_begin, count * sizeof(int64_t), cudaMemcpyHostToDevice));
            CHECK_CUDA(cudaMemcpy(d_end, h_end, count * sizeof(int64_t), cudaMemcpyHostToDevice));
            wk_segments sg = {count, extent, 0, d_begin, d_end};
            for (int exclusive = 0; exclusive < 2; ++exclusive, ++turn) {
                const scan_place at = {in_offs[turn % 4], out_offs[(turn / 4) % 4], exclusive,
                                       (int64_t)(wk_rand64(s, 77 + exclusive) % 201) - 100};
                check_segmented_scan(h, extent, in, outs[o], &sg, h_begin, h_end, at, d_in, d_out, h_got, covered,
                                     "offsets");
            }
        }
    }
    free(h);
    free(h_got);
    free(covered);
    free(h_begin);
    free(h_end);
    WK_FREE_DEVICE(d_in, d_out, d_begin, d_end);
}

/* NaN and infinities: the output dtype's one NaN, and the infinity. */
static void test_specials(void)
{
    unsigned char *d_in, *d_out;
    CHECK_CUDA(cudaMalloc((void **)&d_in, 4096 * 4));
    CHECK_CUDA(cudaMalloc((void **)&d_out, 16));
    const wk_dtype floats[] = {WK_F16, WK_BF16, WK_F32};
    for (int k = 0; k < 3; ++k) {
        const wk_dtype in = floats[k], out = in == WK_F32 ? WK_F64 : WK_F32;
        const size_t n = 3000, elem = wk_dtype_size(in);
        unsigned char *h = calloc(n, elem);
        /* A signalling NaN with a payload and a sign, among zeros. */
        if (elem == 2)
            ((uint16_t *)h)[1234] = in == WK_F16 ? 0xfc01 : 0xff81;
        else
            ((uint32_t *)h)[1234] = 0xff800123u;
        CHECK_CUDA(cudaMemcpy(d_in, h, n * elem, cudaMemcpyHostToDevice));
        wk_status st = wk_reduce_to(ctx, d_in, d_out, n, in, out, stream);
        uint64_t got = 0, nan_bits = wk_sum_nan_bits(out);
        CHECK_CUDA(cudaStreamSynchronize(stream));
        CHECK_CUDA(cudaMemcpy(&got, d_out, wk_dtype_size(out), cudaMemcpyDeviceToHost));
        wk_checkf(&tally, st == WK_SUCCESS && got == nan_bits, "%s -> %s NaN: 0x%llx, want 0x%llx", wk_dtype_name(in),
                  wk_dtype_name(out), (unsigned long long)got, (unsigned long long)nan_bits);
        /* An infinity among finite values stays an infinity. */
        memset(h, 0, n * elem);
        if (elem == 2) {
            ((uint16_t *)h)[7] = in == WK_F16 ? 0xfc00 : 0xff80;
            ((uint16_t *)h)[8] = in == WK_F16 ? 0x3c00 : 0x3f80;
        } else {
            ((uint32_t *)h)[7] = 0xff800000u;
            ((uint32_t *)h)[8] = 0x3f800000u;
        }
        CHECK_CUDA(cudaMemcpy(d_in, h, n * elem, cudaMemcpyHostToDevice));
        st = wk_reduce_to(ctx, d_in, d_out, n, in, out, stream);
        got = 0;
        CHECK_CUDA(cudaStreamSynchronize(stream));
        CHECK_CUDA(cudaMemcpy(&got, d_out, wk_dtype_size(out), cudaMemcpyDeviceToHost));
        const uint64_t minus_inf = out == WK_F32 ? 0xff800000ull : 0xfff0000000000000ull;
        wk_checkf(&tally, st == WK_SUCCESS && got == minus_inf, "%s -> %s -inf: 0x%llx", wk_dtype_name(in),
                  wk_dtype_name(out), (unsigned long long)got);
        free(h);
    }
    WK_FREE_DEVICE(d_in, d_out);
}

/* One refused call: its status, a message, nothing launched, the output as
 * it was. */
typedef struct to_call {
    const void *in;
    void *out;
    size_t n;
    int dtype, out_dtype;
    int form; /* 0 wk_reduce_to, 1 wk_reduce(..., WK_SUM), 2 wk_inclusive_scan_to, 3 wk_exclusive_scan_to,
                 4 and 5 their segmented forms over one row of n */
} to_call;

static wk_status enqueue_to(const void *call, cudaStream_t s)
{
    const to_call *c = call;
    const wk_value init = {0};
    const wk_segments row = {1, c->n, 0, NULL, NULL};
    switch (c->form) {
    case 4:
        return wk_segmented_inclusive_scan_to(ctx, c->in, c->out, &row, (wk_dtype)c->dtype, (wk_dtype)c->out_dtype, s);
    case 5:
        return wk_segmented_exclusive_scan_to(ctx, c->in, c->out, &row, (wk_dtype)c->dtype, (wk_dtype)c->out_dtype,
                                              init, s);
    case 1: return wk_reduce(ctx, c->in, c->out, c->n, (wk_dtype)c->dtype, WK_SUM, s);
    case 2:
        return wk_inclusive_scan_to(ctx, c->in, c->out, c->n, (wk_dtype)c->dtype, (wk_dtype)c->out_dtype, NULL, s);
    case 3:
        return wk_exclusive_scan_to(ctx, c->in, c->out, c->n, (wk_dtype)c->dtype, (wk_dtype)c->out_dtype, init, NULL,
                                    s);
    default: return wk_reduce_to(ctx, c->in, c->out, c->n, (wk_dtype)c->dtype, (wk_dtype)c->out_dtype, s);
    }
}

static void expect_refusal(to_call c, wk_status want, const char *what, unsigned char *d_out)
{
    wk_poison_device(d_out, 32);
    wk_capture got;
    wk_status st = wk_capture_call(stream, enqueue_to, &c, &got, NULL);
    const char *msg = wk_last_error_message();
    size_t changed = wk_device_changes(stream, d_out, 32, 0, 0);
    wk_checkf(&tally, st == want && got.nodes == 0 && changed == 0 && msg[0] != '\0',
              "refused: %s -> %s (%s), %zu nodes, %zu bytes changed: %s", what, wk_status_string(st),
              wk_status_string(want), got.nodes, changed, msg);
}

static void test_refusals(void)
{
    unsigned char *d_in, *d_out;
    CHECK_CUDA(cudaMalloc((void **)&d_in, 4096));
    CHECK_CUDA(cudaMalloc((void **)&d_out, 32));
    CHECK_CUDA(cudaMemset(d_in, 1, 4096));
    /* Every pair of valid dtypes that does not widen is refused. */
    int refused = 0, pairs = 0;
    for (int i = 0; i < WK_DTYPE_COUNT; ++i)
        for (int o = 0; o < WK_DTYPE_COUNT; ++o) {
            if (wk_sum_widens(i, o))
                continue;
            ++pairs;
            to_call c = {d_in, d_out, 100, i, o, 0};
            wk_poison_device(d_out, 32);
            wk_status st = enqueue_to(&c, stream);
            refused += st == WK_ERROR_UNSUPPORTED && wk_device_changes(stream, d_out, 32, 0, 0) == 0;
        }
    wk_checkf(&tally, refused == pairs && pairs > 0, "%d of %d pairs that do not widen refused", refused, pairs);
    expect_refusal((to_call){d_in, d_out, 100, WK_F32, WK_I64, 0}, WK_ERROR_UNSUPPORTED, "f32 into i64", d_out);
    expect_refusal((to_call){d_in, d_out, 100, WK_I64, WK_I32, 0}, WK_ERROR_UNSUPPORTED, "i64 into i32", d_out);
    expect_refusal((to_call){d_in, d_out, 100, WK_BOOL, WK_BOOL, 0}, WK_ERROR_UNSUPPORTED, "bool into bool", d_out);
    expect_refusal((to_call){d_in, d_out, 100, WK_BOOL, 0, 1}, WK_ERROR_UNSUPPORTED, "wk_reduce bool sum", d_out);
    expect_refusal((to_call){d_in, d_out, 100, WK_DTYPE_COUNT, WK_I64, 0}, WK_ERROR_INVALID_DTYPE, "dtype 13",
                   d_out);
    expect_refusal((to_call){d_in, d_out, 100, WK_U8, -1, 0}, WK_ERROR_INVALID_DTYPE, "out_dtype -1", d_out);
    expect_refusal((to_call){d_in, d_out + 4, 100, WK_U8, WK_I64, 0}, WK_ERROR_INVALID_POINTER,
                   "i64 output 4 bytes off", d_out);
    expect_refusal((to_call){NULL, d_out, 100, WK_U8, WK_I64, 0}, WK_ERROR_INVALID_ARGUMENT, "NULL input", d_out);
    expect_refusal((to_call){d_in, d_in + 8, 100, WK_U8, WK_I64, 0}, WK_ERROR_INVALID_ARGUMENT,
                   "output inside the input", d_in);
    expect_refusal((to_call){d_in, d_out, 100, WK_F16, WK_F64, 2}, WK_ERROR_UNSUPPORTED, "scan f16 into f64", d_out);
    expect_refusal((to_call){d_in, d_in, 4, WK_U8, WK_I64, 2}, WK_ERROR_INVALID_ARGUMENT,
                   "scan u8 into i64 in place", d_in);
    expect_refusal((to_call){d_in, d_out, 3, WK_BOOL, WK_BOOL, 3}, WK_ERROR_UNSUPPORTED, "scan bool into bool",
                   d_out);
    expect_refusal((to_call){d_in, d_out + 2, 3, WK_U8, WK_I32, 3}, WK_ERROR_INVALID_POINTER,
                   "scan into i32 2 bytes off", d_out);
    expect_refusal((to_call){d_in, d_out, 3, WK_F32, WK_I64, 4}, WK_ERROR_UNSUPPORTED, "segmented scan f32 into i64",
                   d_out);
    expect_refusal((to_call){d_in, d_out, 3, WK_BOOL, WK_BOOL, 5}, WK_ERROR_UNSUPPORTED,
                   "segmented scan bool into bool", d_out);
    expect_refusal((to_call){d_in, d_in, 4, WK_I16, WK_I64, 4}, WK_ERROR_INVALID_ARGUMENT,
                   "segmented scan i16 into i64 in place", d_in);
    expect_refusal((to_call){d_in, d_out + 4, 3, WK_U8, WK_U64, 5}, WK_ERROR_INVALID_POINTER,
                   "segmented scan into u64 4 bytes off", d_out);
    expect_refusal((to_call){d_in, d_out, 3, WK_U8, WK_DTYPE_COUNT, 4}, WK_ERROR_INVALID_DTYPE,
                   "segmented scan out_dtype 13", d_out);
    WK_FREE_DEVICE(d_in, d_out);
}

/* A u8 sum over 2^31 + 5 elements, past 32-bit counts, into i64 and u32. */
static void test_over_2_31(uint64_t seed)
{
    const size_t n = ((size_t)1 << 31) + 5;
    unsigned char *d_in, *d_out;
    if (cudaMalloc((void **)&d_in, n + 16) != cudaSuccess) {
        cudaGetLastError();
        wk_checkf(&tally, 0, "allocating %zu bytes for the u8 sum over 2^31", n);
        return;
    }
    CHECK_CUDA(cudaMalloc((void **)&d_out, 16));
    unsigned char *h = malloc(n);
    fill(h, n, WK_U8, seed, 0);
    CHECK_CUDA(cudaMemcpy(d_in + 3, h, n, cudaMemcpyHostToDevice));
    const wk_dtype outs[] = {WK_I64, WK_U32};
    uint64_t want = 0;
    for (size_t i = 0; i < n; ++i)
        want += h[i];
    for (int k = 0; k < 2; ++k) {
        wk_poison_device(d_out, 16);
        wk_status st = wk_reduce_to(ctx, d_in + 3, d_out, n, WK_U8, outs[k], stream);
        uint64_t got = 0;
        CHECK_CUDA(cudaStreamSynchronize(stream));
        CHECK_CUDA(cudaMemcpy(&got, d_out, wk_dtype_size(outs[k]), cudaMemcpyDeviceToHost));
        const uint64_t w = outs[k] == WK_U32 ? (uint32_t)want : want;
        wk_checkf(&tally, st == WK_SUCCESS && got == w, "u8 -> %s n=2^31+5: %llu, want %llu", wk_dtype_name(outs[k]),
                  (unsigned long long)got, (unsigned long long)w);
    }
    free(h);
    WK_FREE_DEVICE(d_in, d_out);
}

int main(void)
{
    int setup = wk_test_setup(wk_create(&ctx, -1), "wk_create");
    if (setup >= 0)
        return setup;
    const wk_test_level level = wk_test_level_get();
    uint64_t seed = wk_seed_from_time();
    printf("seed %llu level %s\n", (unsigned long long)seed, wk_test_level_name(level));
    CHECK_CUDA(cudaStreamCreate(&stream));
    if (level == WK_LEVEL_LARGE) {
        test_over_2_31(seed);
    } else {
        test_pairs(seed, level);
        test_scans(seed, level);
        test_segmented_to(seed);
        test_segmented_scans_to(seed);
        test_specials();
        test_refusals();
    }
    CHECK_CUDA(cudaStreamDestroy(stream));
    wk_destroy(ctx);
    return wk_tally_finish(&tally);
}

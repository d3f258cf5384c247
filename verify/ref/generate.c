#include "ref/generate.h"

#include <errno.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>
#include <time.h>

#include "ref/half.h"
#include "ref/splitmix.h"

/* The seed is mixed into a key first, so that seeds differing by a multiple
 * of the stride do not give shifted copies of one stream. */
static inline uint64_t stream_key(uint64_t seed) { return wk_splitmix64_mix(seed ^ UINT64_C(0x5851f42d4c957f2d)); }

uint64_t wk_rand64(uint64_t seed, uint64_t i) { return wk_splitmix64_at(stream_key(seed), i); }

static int seed_from_env(uint64_t *seed)
{
    const char *text = getenv("WK_SEED");
    if (!text || !*text)
        return 0;
    char *end;
    errno = 0;
    unsigned long long v = strtoull(text, &end, 0);
    if (errno != 0 || *end != '\0') {
        /* Say so: silently running with another seed would defeat replay. */
        fprintf(stderr, "warpkit: ignoring WK_SEED=\"%s\": not a number\n", text);
        return 0;
    }
    *seed = (uint64_t)v;
    return 1;
}

uint64_t wk_seed_from_time(void)
{
    uint64_t seed;
    if (seed_from_env(&seed))
        return seed;
    struct timespec ts;
    timespec_get(&ts, TIME_UTC);
    uint64_t ns = (uint64_t)ts.tv_sec * UINT64_C(1000000000) + (uint64_t)ts.tv_nsec;
    /* A stack address (randomized per process) separates processes that
     * start in the same nanosecond. */
    return wk_splitmix64_mix(ns ^ wk_splitmix64_mix((uint64_t)(uintptr_t)&ts));
}

/* ------------------------------------------------------------ sampling */

/* How one 64-bit draw r becomes a value: k = ((r >> pre) * range) >> post,
 * then (k + offset) * scale. With range 1 and post 0 this takes the top bits
 * of r; with pre = post = 32 it maps r's top half onto [0, range) (Lemire's
 * multiply-shift, no division). */
typedef struct sampler {
    unsigned pre, post;
    uint64_t range;
    int64_t offset;
    double scale;
} sampler;

static inline uint64_t sample_bits(const sampler *s, uint64_t key, size_t i)
{
    uint64_t k = ((wk_splitmix64_at(key, i) >> s->pre) * s->range) >> s->post;
    return k + (uint64_t)s->offset;
}

/* Only used with samplers whose k + offset fits in 54 signed bits, so the
 * double is exact. */
static inline double sample_real(const sampler *s, uint64_t key, size_t i)
{
    return (double)(int64_t)sample_bits(s, key, i) * s->scale;
}

static sampler top_bits(unsigned bits, int64_t offset, double scale)
{
    sampler s = {64u - bits, 0, 1, offset, scale};
    return s;
}

static sampler below(uint64_t range, int64_t offset)
{
    sampler s = {32, 32, range, offset, 1.0};
    return s;
}

/* Significant bits (implicit bit included) of a float dtype. */
static unsigned precision(wk_dtype dtype)
{
    switch (dtype) {
    case WK_F32: return 24;
    case WK_F64: return 53;
    case WK_F16: return 11;
    case WK_BF16: return 8;
    default: return 0;
    }
}

static int is_unsigned(wk_dtype dtype)
{
    return dtype == WK_U32 || dtype == WK_U64 || dtype == WK_U8 || dtype == WK_U16 || dtype == WK_BOOL;
}

/* Floats in [-1, 1) are j * 2^-p for j in [-2^p, 2^p), and floats in
 * [0.5, 1) are (2^(p-1) + j) * 2^-p for j in [0, 2^(p-1)): every value of
 * the dtype on that grid is equally likely and exactly representable. */
static sampler float_sampler(wk_dtype dtype, wk_gen_pattern pattern)
{
    unsigned p = precision(dtype);
    double ulp = ldexp(1.0, -(int)p);
    if (pattern == WK_GEN_SMALL_INTS)
        return below(17, -8);
    if (pattern == WK_GEN_POSITIVE)
        return top_bits(p - 1, INT64_C(1) << (p - 1), ulp);
    return top_bits(p + 1, -(INT64_C(1) << p), ulp);
}

static sampler int_sampler(wk_dtype dtype, wk_gen_pattern pattern)
{
    /* Bools: the top bit, 0 or 1, for every pattern. */
    if (dtype == WK_BOOL)
        return top_bits(1, 0, 1.0);
    if (pattern == WK_GEN_SMALL_INTS)
        return below(17, is_unsigned(dtype) ? 0 : -8);
    /* What fits the dtype: i8's largest is 127. */
    if (pattern == WK_GEN_POSITIVE)
        return below(wk_dtype_size(dtype) == 1 ? 101 : 1001, 0);
    /* All 64 bits; the store keeps the dtype's low bits. */
    sampler s = {0, 0, 1, 0, 1.0};
    return s;
}

/* ---------------------------------------------------------------- fills */

/* One loop per element type: element i is draw i of the sampler, taken
 * as bits (integers) or as a real (floats) and converted to the type. */
#define FILL_LOOP(name, type, sample)                                       \
    static void name(type *o, size_t n, sampler s, uint64_t key)            \
    {                                                                       \
        for (size_t i = 0; i < n; i++)                                      \
            o[i] = (type)sample(&s, key, i);                                \
    }

FILL_LOOP(fill_u8, uint8_t, sample_bits)
FILL_LOOP(fill_u16, uint16_t, sample_bits)
FILL_LOOP(fill_u32, uint32_t, sample_bits)
FILL_LOOP(fill_u64, uint64_t, sample_bits)
FILL_LOOP(fill_f32, float, sample_real)
FILL_LOOP(fill_f64, double, sample_real)

static void fill_16(uint16_t *o, size_t n, sampler s, uint64_t key, uint16_t (*encode)(float))
{
    for (size_t i = 0; i < n; i++)
        o[i] = encode((float)sample_real(&s, key, i));
}

/* The sampler travels by value so the loops keep it in registers: through a
 * pointer, every store to the output could alias it. */
static void fill(void *out, size_t n, wk_dtype dtype, sampler s, uint64_t key)
{
    switch (dtype) {
    case WK_I32: case WK_U32: fill_u32(out, n, s, key); break;
    case WK_I64: case WK_U64: fill_u64(out, n, s, key); break;
    case WK_F32: fill_f32(out, n, s, key); break;
    case WK_F64: fill_f64(out, n, s, key); break;
    case WK_F16: fill_16(out, n, s, key, wk_float_to_half); break;
    case WK_BF16: fill_16(out, n, s, key, wk_float_to_bf16); break;
    case WK_BOOL: case WK_U8: case WK_I8: fill_u8(out, n, s, key); break;
    case WK_I16: case WK_U16: fill_u16(out, n, s, key); break;
    }
}

/* Copies out[0] over out[1 .. n) by doubling the filled prefix, so a few
 * large memcpy calls do the work. */
static void replicate_first(void *out, size_t n, size_t elem)
{
    char *bytes = out;
    size_t done = 1;
    while (done < n) {
        size_t chunk = done < n - done ? done : n - done;
        memcpy(bytes + done * elem, bytes, chunk * elem);
        done += chunk;
    }
}

void wk_generate(void *h_out, size_t n, wk_dtype dtype, wk_gen_pattern pattern, uint64_t seed)
{
    size_t elem = wk_dtype_size(dtype);
    if (!h_out || n == 0 || elem == 0 || (int)pattern < (int)WK_GEN_UNIFORM || (int)pattern > (int)WK_GEN_POSITIVE)
        return;
    int floating = precision(dtype) != 0;
    wk_gen_pattern drawn = pattern == WK_GEN_CONSTANT ? WK_GEN_UNIFORM : pattern;
    sampler s = floating ? float_sampler(dtype, drawn) : int_sampler(dtype, drawn);
    uint64_t key = stream_key(seed);
    if (pattern == WK_GEN_CONSTANT) {
        fill(h_out, 1, dtype, s, key);
        replicate_first(h_out, n, elem);
    } else {
        fill(h_out, n, dtype, s, key);
    }
}

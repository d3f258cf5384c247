/* Tests of the reproducible sum's arithmetic on the host (repro/binned.h
 * through the model in verify/ref/repro_model.c): the same bits for every
 * order and split of an input, the error bound against an exact sum,
 * infinities, NaN and signed zeros, the host API, and the hash of the fixed
 * case list that every GPU must reproduce. */
#include "ref/generate.h"
#include "ref/splitmix.h"
#include "check/repro_cases.h"
#include "ref/repro_model.h"
#include "test_util.h"

#include <float.h>
#include <inttypes.h>
#include <math.h>
#include <stdint.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

static wk_tally tally;

static uint64_t round_bits(const wk_rp *p, wk_dtype dtype) { return wk_model_round(p, dtype); }

static uint64_t model_bits(const void *in, size_t n, wk_dtype dtype)
{
    wk_rp p;
    wk_model_repro(in, n, dtype, &p);
    return round_bits(&p, dtype);
}

/* The partials of `parts` pieces cut at pseudo-random points, combined in
 * reverse order through the public host API. */
static uint64_t split_bits(const void *in, size_t n, wk_dtype dtype, int parts, uint64_t seed)
{
    size_t size = wk_dtype_size(dtype);
    size_t cut[16];
    cut[0] = 0;
    for (int k = 1; k < parts; ++k) {
        size_t c = n ? (size_t)(wk_splitmix64_at(seed, (uint64_t)k) % (n + 1)) : 0;
        cut[k] = c < cut[k - 1] ? cut[k - 1] : c;
    }
    cut[parts] = n;
    wk_repro_partial acc;
    wk_repro_partial_clear(&acc);
    for (int k = parts - 1; k >= 0; --k) {
        wk_rp p;
        wk_model_repro((const char *)in + cut[k] * size, cut[k + 1] - cut[k], dtype, &p);
        wk_repro_partial pub;
        memcpy(&pub, &p, sizeof pub);
        if (wk_repro_combine_host(&acc, &pub) != WK_SUCCESS)
            return 0xdeadull;
    }
    uint64_t bits = 0;
    if (wk_repro_round_host(&acc, dtype, &bits) != WK_SUCCESS)
        return 0xdeadull;
    return bits;
}

/* The input in reverse and in a shuffled order. */
static void reorder(const void *in, void *out, size_t n, size_t size, uint64_t seed, int shuffle)
{
    for (size_t i = 0; i < n; ++i)
        memcpy((char *)out + i * size, (const char *)in + (n - 1 - i) * size, size);
    if (!shuffle)
        return;
    char tmp[8];
    for (size_t i = n; i > 1; --i) {
        size_t j = (size_t)(wk_splitmix64_at(seed, i) % i);
        memcpy(tmp, (char *)out + (i - 1) * size, size);
        memcpy((char *)out + (i - 1) * size, (char *)out + j * size, size);
        memcpy((char *)out + j * size, tmp, size);
    }
}

/* Every case of the list: orders and splits give the model's bits; the
 * hash of the list's results is printed for the GPU check to match. */
static void test_case_list(void)
{
    uint64_t hash = WK_REPRO_HASH_START;
    int bad = 0;
    for (size_t i = 0; i < WK_REPRO_CASES; ++i) {
        wk_repro_case c;
        wk_repro_case_get(i, &c);
        size_t size = wk_dtype_size(c.dtype);
        void *in = malloc(c.n * size), *other = malloc(c.n * size);
        wk_repro_case_fill(&c, in);
        uint64_t bits = model_bits(in, c.n, c.dtype);
        hash = wk_repro_hash_add(hash, bits);
        int ok = 1;
        if (c.n <= 65537) {
            reorder(in, other, c.n, size, c.seed, 0);
            ok &= model_bits(other, c.n, c.dtype) == bits;
            reorder(in, other, c.n, size, c.seed, 1);
            ok &= model_bits(other, c.n, c.dtype) == bits;
            for (int parts = 2; parts <= 7; parts += parts == 3 ? 4 : 1)
                ok &= split_bits(in, c.n, c.dtype, parts, c.seed + (uint64_t)parts) == bits;
        }
        if (!ok && bad++ < 10)
            printf("FAIL case %zu: %s %s n=%zu: orders or splits changed the bits\n", i,
                   wk_dtype_name(c.dtype), wk_repro_kind_name(c.kind), c.n);
        free(in);
        free(other);
    }
    wk_checkf(&tally, bad == 0, "%d cases: reversed, shuffled, split in 2, 3 and 7: the same bits (%d differ)",
              WK_REPRO_CASES, bad);
    printf("model reproducibility: cases=%d hash=%016" PRIx64 "\n", WK_REPRO_CASES, hash);
}

/* Accuracy against the exact sum: within the bound always, and equal to the
 * correctly rounded exact sum when no element has bits below the third
 * bin. */
static void test_accuracy(uint64_t seed)
{
    int bad = 0, exact_cases = 0, cases = 0;
    for (int kind = 0; kind < WK_RK_COUNT; ++kind) {
        if (kind == WK_RK_SPECIALS)
            continue;
        for (int d = 0; d < 4; ++d) {
            static const wk_dtype dtypes[4] = {WK_F32, WK_F64, WK_F16, WK_BF16};
            static const size_t ns[] = {1, 2, 33, 1000, 65536};
            for (size_t s = 0; s < sizeof ns / sizeof ns[0]; ++s) {
                wk_repro_case c;
                wk_repro_case_make(dtypes[d], ns[s], (wk_repro_kind)kind, wk_splitmix64_at(seed, (uint64_t)cases), &c);
                size_t size = wk_dtype_size(c.dtype);
                void *in = malloc(c.n * size);
                double *x = malloc(c.n * sizeof *x);
                wk_repro_case_fill(&c, in);
                double max = 0;
                for (size_t i = 0; i < c.n; ++i) {
                    x[i] = wk_model_element(in, i, c.dtype);
                    max = fmax(max, fabs(x[i]));
                }
                int finite = isfinite(max);
                uint64_t bits = model_bits(in, c.n, c.dtype);
                double r = wk_bits_value(bits, c.dtype);
                int ok = 1;
                if (finite && isfinite(r)) {
                    double err = wk_exact_error(x, c.n, r);
                    double bound = 0.5 * wk_ulp_at(r, c.dtype) + (double)c.n * ldexp(max, -80);
                    ok = err <= bound;
                    /* Every element a multiple of the lowest kept bin's unit:
                     * nothing dropped, so the result is the exact sum rounded. */
                    int top = max == 0 ? WK_RP_LOWEST : wk_rp_top_for_biased((int)((wk_rp_bits(max) >> 52) & 0x7ff));
                    int unit = -1074 + WK_RP_WIDTH * (top - 2);
                    int nothing_dropped = 1;
                    for (size_t i = 0; i < c.n && nothing_dropped; ++i) {
                        double y = ldexp(x[i], -unit);
                        nothing_dropped = y == floor(y) && ldexp(y, unit) == x[i];
                    }
                    if (nothing_dropped) {
                        exact_cases++;
                        uint64_t want = wk_exact_sum_bits(x, c.n, c.dtype);
                        int negzero = want == 0 && c.n > 0 && bits != 0; /* all -0.0 */
                        ok &= bits == want || negzero;
                    }
                    if (!ok && bad < 10)
                        printf("FAIL %s %s n=%zu: result %.17g, error %.3g over bound %.3g\n",
                               wk_dtype_name(c.dtype), wk_repro_kind_name(c.kind), c.n, r, err, bound);
                } else if (finite) {
                    /* Overflow: the exact sum must round to infinity too. */
                    ok = wk_exact_sum_bits(x, c.n, c.dtype) == bits;
                }
                bad += !ok;
                cases++;
                free(in);
                free(x);
            }
        }
    }
    wk_checkf(&tally, bad == 0, "%d inputs within |exact - result| <= ulp/2 + n 2^-80 max|x|; %d of them correctly rounded",
              cases, exact_cases);
}

static uint64_t sum_f64(const double *x, size_t n) { return model_bits(x, n, WK_F64); }
static uint64_t sum_f32(const float *x, size_t n) { return model_bits(x, n, WK_F32); }

static uint64_t f64_bits(double d)
{
    uint64_t b;
    memcpy(&b, &d, 8);
    return b;
}

static void test_specials(void)
{
    const double nan = NAN, inf = INFINITY;
    double a[] = {1.0, nan, 2.0};
    wk_checkf(&tally, sum_f64(a, 3) == 0x7ff8000000000000ull, "NaN gives the quiet NaN");
    uint64_t payload = 0xfff0000000000001ull; /* -NaN, payload in the low word */
    double pn[2] = {2.0, 0};
    memcpy(&pn[1], &payload, 8);
    wk_checkf(&tally, sum_f64(pn, 2) == 0x7ff8000000000000ull, "a NaN with a low-word payload gives the quiet NaN");
    double b[] = {inf, 1.0, 1e300};
    wk_checkf(&tally, sum_f64(b, 3) == f64_bits(inf), "+inf among numbers gives +inf");
    double c[] = {-inf, -inf};
    wk_checkf(&tally, sum_f64(c, 2) == f64_bits(-inf), "-inf gives -inf");
    double d[] = {inf, -inf, 3.0};
    wk_checkf(&tally, sum_f64(d, 3) == 0x7ff8000000000000ull, "+inf and -inf give NaN");
    double e[] = {-0.0, -0.0, -0.0};
    wk_checkf(&tally, sum_f64(e, 3) == f64_bits(-0.0), "only -0.0 gives -0.0");
    double f[] = {-0.0, 0.0};
    wk_checkf(&tally, sum_f64(f, 2) == 0, "-0.0 and +0.0 give +0.0");
    double g[] = {1.5, -1.5};
    wk_checkf(&tally, sum_f64(g, 2) == 0, "x and -x give +0.0");
    wk_checkf(&tally, sum_f64(g, 0) == 0, "n = 0 gives +0.0");
    double h[] = {DBL_MAX, DBL_MAX, -DBL_MAX};
    wk_checkf(&tally, sum_f64(h, 3) == f64_bits(DBL_MAX), "DBL_MAX + DBL_MAX - DBL_MAX is exact: DBL_MAX");
    double i2[] = {DBL_MAX, DBL_MAX};
    wk_checkf(&tally, sum_f64(i2, 2) == f64_bits(inf), "an exact total over DBL_MAX gives +inf");
    double j[] = {DBL_MAX, 0x1p-1074, -DBL_MAX};
    wk_checkf(&tally, sum_f64(j, 3) == 0, "the smallest subnormal under DBL_MAX is dropped (n 2^-80 max)");
    double k[] = {0x1p-1074, 0x1p-1074, -0x1p-1073, 0x1p-1074};
    wk_checkf(&tally, sum_f64(k, 4) == 1, "subnormals add exactly: 2^-1074");
    float l[] = {FLT_MAX, FLT_MAX};
    uint32_t want_inf = 0x7f800000u;
    wk_checkf(&tally, (uint32_t)sum_f32(l, 2) == want_inf, "f32: FLT_MAX + FLT_MAX gives +inf");
    float m[] = {1.0f, 0x1p-24f, 0x1p-24f};
    wk_checkf(&tally, (uint32_t)sum_f32(m, 3) == 0x3f800001u, "f32: 1 + 2^-24 + 2^-24 rounds once: 1 + 2^-23");
    float o[] = {0x1p-24f, 1.0f, -1.0f};
    wk_checkf(&tally, (uint32_t)sum_f32(o, 3) == 0x33800000u, "f32: 2^-24 + 1 - 1 is 2^-24 (a float sum gives 0)");
    uint16_t half[] = {0x7bff, 0x7bff}; /* 65504 + 65504 */
    wk_checkf(&tally, model_bits(half, 2, WK_F16) == 0x7c00u, "f16: 65504 + 65504 gives +inf");
    uint16_t halfs[] = {0x0001, 0x0001, 0x3c00, 0xbc00}; /* 2^-24 twice, 1, -1 */
    wk_checkf(&tally, model_bits(halfs, 4, WK_F16) == 0x0002u, "f16: subnormals beside 1 and -1 are kept: 2^-23");
}

static void test_host_api(void)
{
    wk_repro_partial a, b;
    wk_repro_partial_clear(&a);
    uint32_t out = 1;
    wk_checkf(&tally, wk_repro_round_host(&a, WK_F32, &out) == WK_SUCCESS && out == 0, "the empty partial rounds to +0.0");
    wk_checkf(&tally, wk_repro_combine_host(NULL, &a) == WK_ERROR_INVALID_ARGUMENT, "combine: NULL acc");
    memset(&b, 0xff, sizeof b);
    wk_checkf(&tally, wk_repro_combine_host(&a, &b) == WK_ERROR_INVALID_ARGUMENT, "combine: not a partial");
    wk_checkf(&tally, wk_repro_round_host(&b, WK_F32, &out) == WK_ERROR_INVALID_ARGUMENT && out == 0,
              "round: not a partial, output untouched");
    wk_checkf(&tally, wk_repro_round_host(&a, WK_I32, &out) == WK_ERROR_UNSUPPORTED, "round: integer dtype");
    wk_checkf(&tally, wk_repro_round_host(&a, (wk_dtype)99, &out) == WK_ERROR_INVALID_DTYPE, "round: unknown dtype");
    wk_checkf(&tally, wk_repro_round_host(&a, WK_F32, NULL) == WK_ERROR_INVALID_ARGUMENT, "round: NULL h_out");
    /* Partials of different dtypes combine: 1.5 (f64) + 2.25 (f32). */
    double x = 1.5;
    float y = 2.25f;
    wk_rp p, q;
    wk_model_repro(&x, 1, WK_F64, &p);
    wk_model_repro(&y, 1, WK_F32, &q);
    memcpy(&a, &p, sizeof a);
    memcpy(&b, &q, sizeof b);
    double r = 0;
    wk_checkf(&tally, wk_repro_combine_host(&a, &b) == WK_SUCCESS && wk_repro_round_host(&a, WK_F64, &r) == WK_SUCCESS &&
                          r == 3.75,
              "an f64 and an f32 partial combine: 3.75");
}

/* The element of `dtype` whose magnitude key is `key` (as the kernels read
 * keys: f64's high word, here with the low word `low`), with the sign given. */
static double element_of_key(wk_dtype dtype, uint32_t key, int negative, uint32_t low)
{
    uint64_t b;
    switch (dtype) {
    case WK_F64: b = (uint64_t)key << 32 | low | (negative ? 1ull << 63 : 0); break;
    case WK_F32: b = key | (negative ? 0x80000000u : 0u); break;
    default: b = key | (negative ? 0x8000u : 0u); break;
    }
    return wk_model_element(&b, 0, dtype); /* little-endian: the low bytes lead */
}

/* wk_rp_deposit_coarse leaves the bins bit for bit as wk_rp_deposit does for
 * every element from wk_rp_coarse_floor up, and for zeros, under every top
 * the dtype reaches, from bins anywhere within their range; and it does not
 * for an odd element just below the floor, which shows the floor is where
 * the two turn apart. f16's floor never rises above its subnormals. An f64
 * whose bits lie in its low word alone splits differently at the lowest
 * top, which is why the kernels' key for it is not zero. */
static void test_coarse_split(uint64_t seed)
{
    const wk_dtype dtypes[] = {WK_F64, WK_F32, WK_F16, WK_BF16};
    const int formats[] = {8, 4, 2, 3};
    const uint32_t specials[] = {0x7ff00000u, 0x7f800000u, 0x7c00u, 0x7f80u};
    uint64_t draw = 0;
    for (int d = 0; d < 4; ++d) {
        const wk_rp_format f = wk_rp_format_for(formats[d]);
        long checked = 0, below_differ = 0, below = 0;
        int ok = 1, tops = 0, narrowed = 0;
        for (int top = WK_RP_LOWEST; top < WK_RP_SCALED; ++top) {
            const uint32_t floor = wk_rp_coarse_floor(f, top);
            const int e = wk_rp_limit_exponent(top);
            const double limit = e > 1023 ? INFINITY : wk_rp_pow2(e < -1074 ? -1074 : e);
            if (floor >= specials[d])
                break; /* no finite element is split coarsely from here up */
            /* The first key at or above the limit. */
            uint32_t lo = floor, hi = specials[d];
            while (lo < hi) {
                uint32_t mid = lo + (hi - lo) / 2;
                if (fabs(element_of_key(dtypes[d], mid, 0, 0)) < limit)
                    lo = mid + 1;
                else
                    hi = mid;
            }
            if (lo == floor)
                continue; /* every key from the floor up needs a higher top */
            ++tops;
            narrowed += floor > 1;
            for (int i = 0; i < 2000; ++i) {
                uint64_t r = wk_splitmix64_at(seed, draw++);
                /* Keys from the floor up to the limit, skewed towards the
                 * floor; one in 16 a zero. */
                uint32_t key = (r & 15) == 0 ? 0 : floor + (uint32_t)((r >> 8) % (lo - floor) >> ((r >> 4) & 15));
                uint32_t low = dtypes[d] == WK_F64 && key ? (uint32_t)wk_splitmix64_at(seed ^ 0x5bd1e995u, draw) : 0;
                double x = element_of_key(dtypes[d], key, (int)(r >> 63), low);
                wk_rp_work full, coarse;
                wk_rp_work_clear(&full, top);
                /* Bins anywhere within a step of their base, by whole units. */
                for (int k = 0; k < WK_RP_FOLD; ++k) {
                    int64_t units = (int64_t)(wk_splitmix64_at(seed + 1, draw + (uint64_t)k) % (1ull << 51)) - (1ll << 50);
                    full.bin[k] += (double)units * wk_rp_pow2(wk_rp_unit(top - k));
                }
                coarse = full;
                wk_rp_deposit(&full, top, x);
                wk_rp_deposit_coarse(&coarse, x);
                ok &= memcmp(&full, &coarse, sizeof full) == 0;
                ++checked;
                /* The control: the odd element just below the floor. */
                if (floor > 1 && (i & 3) == 0) {
                    double y = element_of_key(dtypes[d], floor - 1u, (int)(r >> 62) & 1, 1);
                    if (fabs(y) < limit) {
                        wk_rp_work a, b;
                        wk_rp_work_clear(&a, top);
                        b = a;
                        wk_rp_deposit(&a, top, y);
                        wk_rp_deposit_coarse(&b, y);
                        below_differ += memcmp(&a, &b, sizeof a) != 0;
                        ++below;
                    }
                }
            }
        }
        wk_checkf(&tally, ok && checked > 1000 * tops,
                  "%s: the coarse split equals the full one for %ld elements over %d tops", wk_dtype_name(dtypes[d]),
                  checked, tops);
        if (dtypes[d] == WK_F16)
            wk_checkf(&tally, narrowed == 0 && below == 0, "f16: the floor is 1 under every top f16 reaches");
        else
            wk_checkf(&tally, narrowed > 0 && below > 0 && below_differ == below,
                      "%s: an odd element just below the floor splits differently (%ld of %ld)",
                      wk_dtype_name(dtypes[d]), below_differ, below);
    }
    wk_rp_work full, coarse;
    wk_rp_work_clear(&full, WK_RP_LOWEST);
    coarse = full;
    wk_rp_deposit(&full, WK_RP_LOWEST, wk_rp_pow2(-1074));
    wk_rp_deposit_coarse(&coarse, wk_rp_pow2(-1074));
    wk_checkf(&tally, memcmp(&full, &coarse, sizeof full) != 0,
              "f64: 2^-1074 (a low word alone) splits differently at the lowest top");
}

int main(void)
{
    uint64_t seed = wk_seed_from_time();
    printf("seed %llu (set WK_SEED to repeat)\n", (unsigned long long)seed);
    test_specials();
    test_host_api();
    test_accuracy(seed);
    test_coarse_split(seed);
    test_case_list();
    return wk_tally_finish(&tally);
}

/* Tests of the reproducible sum's arithmetic on the host (repro/binned.h
 * through the model in verify/ref/repro_model.c): the same bits for every
 * order and split of an input, the error bound against an exact sum,
 * infinities, NaN and signed zeros, the host API, and the hash of the fixed
 * case list that every GPU must reproduce. */
#include "generate.h"
#include "splitmix.h"
#include "repro_cases.h"
#include "repro_model.h"
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

int main(void)
{
    uint64_t seed = wk_seed_from_time();
    printf("seed %llu (set WK_SEED to repeat)\n", (unsigned long long)seed);
    test_specials();
    test_host_api();
    test_accuracy(seed);
    test_case_list();
    return wk_tally_finish(&tally);
}

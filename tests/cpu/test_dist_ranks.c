/* The ranks' arithmetic of the distributed calls (src/include/dist/ranks.h): each
 * rank's place in the whole output, the rank whose last element precedes a
 * rank's first, and the stand-in element that never equals a first one. */
#include "dist/ranks.h"
#include "test_util.h"

#include <math.h>
#include <stdint.h>
#include <string.h>

static wk_tally tally;

static void check_place(void)
{
    const uint64_t counts[5] = {3, 0, 7, 1, 0};
    uint64_t below = 0;
    for (int r = 0; r < 5; ++r) {
        wk_dist_count c = wk_dist_place(counts, 5, r);
        wk_checkf(&tally, c.count == counts[r] && c.offset == below && c.total == 11,
                  "place of rank %d: count %llu at %llu of %llu", r, (unsigned long long)c.count,
                  (unsigned long long)c.offset, (unsigned long long)c.total);
        below += counts[r];
    }
    const uint64_t one[1] = {42};
    wk_dist_count c = wk_dist_place(one, 1, 0);
    wk_checkf(&tally, c.count == 42 && c.offset == 0 && c.total == 42, "one rank: its own count, offset 0");
    /* Parts over 2^32 elements: the sums take 64 bits. */
    const uint64_t big[3] = {(uint64_t)5 << 32, (uint64_t)3 << 32, 1};
    c = wk_dist_place(big, 3, 2);
    wk_checkf(&tally, c.offset == (uint64_t)8 << 32 && c.total == ((uint64_t)8 << 32) + 1,
              "counts over 2^32 add in 64 bits");
}

static void check_rank_before(void)
{
    const wk_dist_tail_record tails[6] = {{5, 0}, {0, 0}, {0, 0}, {2, 0}, {0, 0}, {1, 0}};
    const int want[6] = {-1, 0, 0, 0, 3, 3};
    for (int r = 0; r < 6; ++r)
        wk_checkf(&tally, wk_dist_rank_before(tails, r) == want[r], "rank before %d: %d (want %d)", r,
                  wk_dist_rank_before(tails, r), want[r]);
    const wk_dist_tail_record empty[3] = {{0, 0}, {0, 0}, {0, 0}};
    wk_checkf(&tally, wk_dist_rank_before(empty, 2) == -1, "every rank below empty: none");
}

/* == on the dtype's values, with the stand-in's bits in the low bytes. */
static int equal_f32(uint64_t a, uint64_t b)
{
    float x, y;
    uint32_t u = (uint32_t)a, v = (uint32_t)b;
    memcpy(&x, &u, 4);
    memcpy(&y, &v, 4);
    return x == y;
}

static int equal_f64(uint64_t a, uint64_t b)
{
    double x, y;
    memcpy(&x, &a, 8);
    memcpy(&y, &b, 8);
    return x == y;
}

/* The value of f16 bits (subnormals, infinities and NaN included), and of
 * bf16 bits, as the device's == compares them. */
static float half_value(uint16_t h)
{
    const int exponent = (h >> 10) & 0x1f, fraction = h & 0x3ff;
    const float sign = h & 0x8000 ? -1.0f : 1.0f;
    if (exponent == 0x1f)
        return fraction ? NAN : sign * INFINITY;
    if (exponent == 0)
        return sign * ldexpf((float)fraction, -24);
    return sign * ldexpf((float)(fraction | 0x400), exponent - 25);
}

static float bf16_value(uint16_t h)
{
    const uint32_t bits = (uint32_t)h << 16;
    float f;
    memcpy(&f, &bits, 4);
    return f;
}

static void check_unequal(void)
{
    const float floats[] = {0.0f, -0.0f, 1.0f, -1.0f, INFINITY, -INFINITY, NAN, 1e-45f, 3.4e38f};
    int ok = 1;
    for (size_t i = 0; i < sizeof floats / sizeof *floats; ++i) {
        uint32_t bits;
        memcpy(&bits, &floats[i], 4);
        ok &= !equal_f32(wk_dist_unequal_bits(bits), bits);
        double d = floats[i];
        uint64_t dbits;
        memcpy(&dbits, &d, 8);
        ok &= !equal_f64(wk_dist_unequal_bits(dbits), dbits);
    }
    wk_checkf(&tally, ok, "the stand-in never equals the first element: floats and doubles, zeros, infinities, NaN");
    const int64_t ints[] = {0, -1, 1, INT64_MIN, INT64_MAX};
    ok = 1;
    for (size_t i = 0; i < sizeof ints / sizeof *ints; ++i)
        ok &= (int64_t)wk_dist_unequal_bits((uint64_t)ints[i]) != ints[i];
    const uint16_t halves[] = {0x0000, 0x8000, 0x0001, 0x3c00, 0xbc00, 0x7bff, 0x7c00, 0xfc00, 0x7e00};
    for (size_t i = 0; i < sizeof halves / sizeof *halves; ++i) {
        const uint16_t stand_in = (uint16_t)wk_dist_unequal_bits(halves[i]);
        ok &= half_value(stand_in) != half_value(halves[i]) && bf16_value(stand_in) != bf16_value(halves[i]);
    }
    wk_checkf(&tally, ok, "and integers, and f16 / bf16 values (zeros, subnormals, infinities, NaN)");
}

int main(void)
{
    check_place();
    check_rank_before();
    check_unequal();
    return wk_tally_finish(&tally);
}

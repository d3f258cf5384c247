/* The select case lists, and the data each case describes.
 *
 * The data is built so that its keep pattern is known before any value is
 * drawn: the pattern is drawn first, then each element is drawn from the
 * side of the predicate that the pattern asks for. Values are drawn as
 * order keys (below), so that "inside the predicate" is an interval or
 * two of keys, whatever the dtype.
 */
#include "check/select_cases.h"

#include "check/case_writer.h"
#include "ref/generate.h"
#include "warpkit.h"
#include "scan/plan.h"
#include "select/plan.h"
#include "ref/splitmix.h"

#include <stdio.h>
#include <string.h>

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

/* --------------------------------------------------------------- keys */

/* Every value of a dtype other than NaN has an order key in 0 ..
 * key_max(dtype), consecutive keys being neighbouring values: integers
 * their pattern (sign bit flipped for signed dtypes); floats count from
 * -inf (key 0) through the negative values, one key for both zeros
 * (inf_bits, the middle), and the positive values up to +inf (2 * inf_bits).
 * Uniform keys are uniform bit patterns: floats span every exponent,
 * subnormals included. A bool's keys are its values, 0 and 1. */

/* Written out here rather than asked of the library: the fills call
 * these for every element, and inlined they cost next to nothing. */
static inline int is_float(wk_dtype d) { return d == WK_F32 || d == WK_F64 || d == WK_F16 || d == WK_BF16; }
static inline int is_signed_int(wk_dtype d) { return d == WK_I32 || d == WK_I64 || d == WK_I8 || d == WK_I16; }

static inline unsigned bits_of(wk_dtype d)
{
    switch (d) {
    case WK_BOOL: case WK_U8: case WK_I8: return 8;
    case WK_F16: case WK_BF16: case WK_I16: case WK_U16: return 16;
    case WK_I32: case WK_U32: case WK_F32: return 32;
    default: return 64;
    }
}

static inline uint64_t sign_bit(wk_dtype d) { return UINT64_C(1) << (bits_of(d) - 1); }
static inline uint64_t width_mask(wk_dtype d)
{
    return bits_of(d) == 64 ? ~UINT64_C(0) : (UINT64_C(1) << bits_of(d)) - 1;
}

static inline uint64_t inf_bits(wk_dtype d)
{
    switch (d) {
    case WK_F16: return 0x7c00u;
    case WK_BF16: return 0x7f80u;
    case WK_F32: return 0x7f800000u;
    case WK_F64: return UINT64_C(0x7ff0000000000000);
    default: return 0;
    }
}

static inline uint64_t key_max(wk_dtype d)
{
    return is_float(d) ? 2 * inf_bits(d) : d == WK_BOOL ? 1 : width_mask(d);
}

/* The key of +0.0 and -0.0 (floats only). */
static inline uint64_t zero_key(wk_dtype d) { return inf_bits(d); }

/* The pattern of the value with this key; the float zero is -0.0 when
 * negative_zero is set. */
static inline uint64_t bits_of_key(wk_dtype d, uint64_t key, int negative_zero)
{
    if (!is_float(d))
        return is_signed_int(d) ? key ^ sign_bit(d) : key;
    /* Selects rather than branches: the sign of random data is a coin
     * toss that a branch predictor loses half the time. */
    uint64_t m = inf_bits(d), sign = sign_bit(d);
    uint64_t bits = key >= m ? key - m : sign | (m - key);
    return key == m && negative_zero ? sign : bits;
}

/* The key of a pattern that is not NaN. */
static inline uint64_t key_of_bits(wk_dtype d, uint64_t bits)
{
    bits &= width_mask(d);
    if (!is_float(d))
        return is_signed_int(d) ? bits ^ sign_bit(d) : bits;
    uint64_t mag = bits & ~sign_bit(d);
    return bits & sign_bit(d) ? inf_bits(d) - mag : inf_bits(d) + mag;
}

static inline int bits_are_nan(wk_dtype d, uint64_t bits)
{
    return is_float(d) && (bits & ~sign_bit(d) & width_mask(d)) > inf_bits(d);
}

/* A NaN of random sign and payload, quiet or signalling. */
static inline uint64_t nan_bits(wk_dtype d, uint64_t r)
{
    uint64_t inf = inf_bits(d), mantissa = (inf & (~inf + 1)) - 1; /* the bits below the exponent */
    uint64_t payload = (r >> 8) & mantissa;
    return (r & 1 ? sign_bit(d) : 0) | inf | (payload ? payload : 1);
}

static uint64_t value_bits(const wk_value *v, wk_dtype d)
{
    uint64_t bits = 0;
    memcpy(&bits, v, wk_dtype_size(d));
    return bits;
}

static wk_value value_of_bits(wk_dtype d, uint64_t bits)
{
    wk_value v;
    memset(&v, 0, sizeof v);
    memcpy(&v, &bits, wk_dtype_size(d));
    return v;
}

/* The high 64 bits of a * b: a uniform draw scaled to [0, b). */
static inline uint64_t mulhi64(uint64_t a, uint64_t b)
{
#if defined(__SIZEOF_INT128__)
    return (uint64_t)(((unsigned __int128)a * b) >> 64);
#else
    uint64_t a_lo = (uint32_t)a, a_hi = a >> 32, b_lo = (uint32_t)b, b_hi = b >> 32;
    uint64_t p0 = a_lo * b_lo, p1 = a_lo * b_hi, p2 = a_hi * b_lo, p3 = a_hi * b_hi;
    uint64_t mid = (p0 >> 32) + (uint32_t)p1 + (uint32_t)p2;
    return p3 + (p1 >> 32) + (p2 >> 32) + (mid >> 32);
#endif
}

/* A stream of draws: draw i is wk_splitmix64_at(key, i), as in
 * generate.c, with the key mixed from the seed once per stream rather than
 * once per draw (the fills take two draws per element, over inputs of
 * 2^31+ elements). */
typedef struct stream {
    uint64_t key;
} stream;

static stream stream_of(uint64_t seed, uint64_t which)
{
    stream s = {wk_rand64(seed ^ which, 0)};
    return s;
}

static inline uint64_t draw(stream s, uint64_t i) { return wk_splitmix64_at(s.key, i); }

/* ----------------------------------------------------------- predicate */

/* Streams of draws per case, apart from one another. */
#define STREAM_PREDICATE UINT64_C(0xc0175a17)
#define STREAM_KEEP UINT64_C(0x6ee95a11)
#define STREAM_VALUE UINT64_C(0x7a1fe0d5)
#define STREAM_BLOCK UINT64_C(0xb10c4b10)

/* The predicate of a case: its constants drawn so that both sides of it
 * hold values (except for a NaN constant, which leaves one side empty:
 * add() gives those cases the keep pattern that fits). */
static wk_predicate pick_predicate(wk_dtype d, wk_compare cmp, wk_select_special special, uint64_t seed)
{
    wk_predicate p;
    memset(&p, 0, sizeof p);
    p.compare = cmp;
    uint64_t r1 = wk_rand64(seed ^ STREAM_PREDICATE, 0), r2 = wk_rand64(seed ^ STREAM_PREDICATE, 1);
    uint64_t max = key_max(d), ka, kb = 0;
    int neg_zero = (int)(r2 & 1);
    int in_range = cmp == WK_IN_RANGE;
    if (special == WK_SELECT_NAN_CONSTANT && is_float(d)) {
        /* in_range: a NaN at either end or both, the other end a number. */
        unsigned which = in_range ? (unsigned)(r1 >> 40) % 3 : 0;
        p.a = value_of_bits(d, which == 2 ? bits_of_key(d, mulhi64(r2, max), 0) : nan_bits(d, r1));
        p.b = value_of_bits(d, which == 1 ? bits_of_key(d, mulhi64(r1, max), 0) : nan_bits(d, r2));
        return p;
    }
    if (d == WK_BOOL) {
        /* The constants that leave a value on either side (both values
         * are extremes, so the edge constant is one of these too);
         * in_range keeps 0 (keeping 1 would need the constant 2). */
        switch (cmp) {
        case WK_LESS: case WK_GREATER_EQUAL: ka = 1; break;
        case WK_LESS_EQUAL: case WK_GREATER: ka = 0; break;
        default: ka = r1 & 1; break;
        }
        kb = 1;
        if (in_range)
            ka = 0;
        p.a = value_of_bits(d, ka);
        if (in_range)
            p.b = value_of_bits(d, kb);
        return p;
    }
    if (special == WK_SELECT_SIGNED_ZERO && is_float(d)) {
        uint64_t zero = zero_key(d);
        if (!in_range || r1 & 1) {
            /* [+-0, b) with b above zero. */
            ka = zero;
            kb = zero + 1 + mulhi64(r2, max - zero);
        } else {
            /* [a, +-0) with a below zero (and above -inf). */
            ka = 1 + mulhi64(r2, zero - 1);
            kb = zero;
        }
        p.a = value_of_bits(d, bits_of_key(d, ka, neg_zero));
        p.b = value_of_bits(d, bits_of_key(d, kb, neg_zero));
        return p;
    }
    if (special == WK_SELECT_INF_CONSTANT && is_float(d)) {
        /* The infinity that leaves something on both sides. */
        switch (cmp) {
        case WK_LESS: case WK_GREATER_EQUAL: ka = max; break;
        case WK_LESS_EQUAL: case WK_GREATER: ka = 0; break;
        default: ka = r1 & 1 ? max : 0; break;
        }
        if (in_range) {
            ka = 0;
            kb = max;
        }
    } else if (special == WK_SELECT_EDGE_CONSTANT) {
        /* Next to an extreme: one side holds the extreme alone (or with
         * the constant); in_range keeps all but the two extremes. */
        ka = r1 & 1 ? max - 1 : 1;
        if (in_range) {
            ka = 1;
            kb = max;
        }
    } else {
        ka = 1 + mulhi64(r1, max - 1); /* 1 .. max - 1 */
        if (in_range) {
            kb = 1 + mulhi64(r2, max); /* 1 .. max */
            if (kb == ka)
                kb = ka + 1;
            if (kb < ka) {
                uint64_t t = ka;
                ka = kb;
                kb = t;
            }
        }
    }
    p.a = value_of_bits(d, bits_of_key(d, ka, neg_zero));
    if (in_range)
        p.b = value_of_bits(d, bits_of_key(d, kb, neg_zero));
    return p;
}

/* ---------------------------------------------------------- the sides */

typedef struct interval {
    uint64_t lo, hi; /* keys, lo <= hi */
} interval;

/* The values on one side of the predicate: up to two intervals of keys,
 * and whether NaN belongs there (nan_fits) or is all there is (nan_only). */
typedef struct side {
    interval part[2];
    int parts;
    int nan_fits, nan_only;
} side;

static void add_part(side *s, uint64_t lo, uint64_t hi, int nonempty)
{
    if (nonempty && lo <= hi) {
        interval iv = {lo, hi};
        s->part[s->parts++] = iv;
    }
}

/* The keys that the case's predicate keeps and drops. */
static void predicate_sides(const wk_select_case *c, side *keep, side *drop)
{
    memset(keep, 0, sizeof *keep);
    memset(drop, 0, sizeof *drop);
    wk_dtype d = c->dtype;
    wk_compare cmp = c->predicate.compare;
    uint64_t max = key_max(d);
    if (cmp == WK_IS_NAN || cmp == WK_NOT_NAN) {
        side *nan = cmp == WK_IS_NAN ? keep : drop, *number = cmp == WK_IS_NAN ? drop : keep;
        nan->nan_fits = nan->nan_only = 1;
        add_part(number, 0, max, 1);
        return;
    }
    side *nan_side = cmp == WK_NOT_EQUAL ? keep : drop;
    nan_side->nan_fits = 1;
    uint64_t a_bits = value_bits(&c->predicate.a, d), b_bits = value_bits(&c->predicate.b, d);
    if (bits_are_nan(d, a_bits) || (cmp == WK_IN_RANGE && bits_are_nan(d, b_bits))) {
        add_part(nan_side, 0, max, 1);
        return;
    }
    uint64_t a = key_of_bits(d, a_bits), b = key_of_bits(d, b_bits);
    switch (cmp) {
    case WK_LESS: add_part(keep, 0, a - 1, a > 0); add_part(drop, a, max, 1); break;
    case WK_LESS_EQUAL: add_part(keep, 0, a, 1); add_part(drop, a + 1, max, a < max); break;
    case WK_GREATER: add_part(keep, a + 1, max, a < max); add_part(drop, 0, a, 1); break;
    case WK_GREATER_EQUAL: add_part(keep, a, max, 1); add_part(drop, 0, a - 1, a > 0); break;
    case WK_EQUAL:
    case WK_NOT_EQUAL: {
        side *eq = cmp == WK_EQUAL ? keep : drop, *ne = cmp == WK_EQUAL ? drop : keep;
        add_part(eq, a, a, 1);
        add_part(ne, 0, a - 1, a > 0);
        add_part(ne, a + 1, max, a < max);
        break;
    }
    case WK_IN_RANGE:
        if (b <= a) {
            add_part(drop, 0, max, 1);
        } else {
            add_part(keep, a, b - 1, 1);
            add_part(drop, 0, a - 1, a > 0);
            add_part(drop, b, max, 1);
        }
        break;
    default: break;
    }
}

/* A key from an interval: an eighth of the time its low end, an eighth its
 * high end (the values next to a constant, or the dtype's extremes), else
 * uniform. Bit 0 of r is left for the caller. */
static inline uint64_t draw_key(const interval *iv, uint64_t r)
{
    unsigned pick = (unsigned)(r >> 1) & 7u;
    uint64_t span = iv->hi - iv->lo;
    uint64_t key = iv->lo + (span == ~UINT64_C(0) ? r : mulhi64(r, span + 1));
    /* Selects, not branches, as in bits_of_key. */
    key = pick == 1 ? iv->hi : key;
    return pick == 0 ? iv->lo : key;
}

/* ---------------------------------------------------------- keep pattern */

/* Bits of the per-element keep draw: the top 32 decide the probabilistic
 * patterns; the low ones are spent on the element's details. */
#define R_NEG_ZERO(r) ((r) & 1)
#define R_NAN(r) ((((r) >> 1) & 3) == 0) /* a quarter of the time */
#define R_ZERO(r) (((r) >> 3) & 1)
#define R_FLAG(r) ((uint8_t)(1 + ((r) >> 8) % 255))

#define ONE_PERCENT UINT64_C(42949673) /* 2^32 / 100, rounded up */

/* Runs of 4 to 8192 elements, each all kept or all not: the length is
 * fixed per 2^16 elements, the runs start at a random phase. */
static int block_keeps(uint64_t seed, size_t i)
{
    uint64_t super = (uint64_t)i >> 16, r = wk_rand64(seed ^ STREAM_BLOCK, super);
    unsigned shift = 2 + (unsigned)(r % 12);
    uint64_t phase = (r >> 32) & 0x1fff;
    return (int)(wk_rand64((seed ^ STREAM_BLOCK) + super + 1, ((uint64_t)i + phase) >> shift) >> 63);
}

static inline int keeps_from(const wk_select_case *c, size_t i, uint64_t r)
{
    int k = 0;
    uint64_t top = r >> 32;
    switch (c->keep) {
    case WK_KEEP_NONE: k = 0; break;
    case WK_KEEP_1PCT: k = top < ONE_PERCENT; break;
    case WK_KEEP_HALF: k = top < (UINT64_C(1) << 31); break;
    case WK_KEEP_99PCT: k = top < (UINT64_C(1) << 32) - ONE_PERCENT; break;
    case WK_KEEP_ALL: k = 1; break;
    case WK_KEEP_ALTERNATE: k = i % 2 == 0; break;
    case WK_KEEP_BLOCKS: k = block_keeps(c->seed, i); break;
    case WK_KEEP_EVERY: k = c->run_length == 0 || i % c->run_length == 0; break;
    }
    /* unique always keeps element 0. */
    return k || (c->mode == WK_REF_UNIQUE && i == 0);
}

int wk_select_case_keeps(const wk_select_case *c, size_t i)
{
    return keeps_from(c, i, draw(stream_of(c->seed, STREAM_KEEP), i));
}

/* ---------------------------------------------------------------- data */

static void put(void *h, size_t i, size_t elem, uint64_t bits)
{
    switch (elem) {
    case 1: ((uint8_t *)h)[i] = (uint8_t)bits; break;
    case 2: ((uint16_t *)h)[i] = (uint16_t)bits; break;
    case 4: ((uint32_t *)h)[i] = (uint32_t)bits; break;
    default: ((uint64_t *)h)[i] = bits; break;
    }
}

/* A value from one side; if that side is empty (a NaN constant's), from
 * the other, and the keep pattern then cannot hold: the lists avoid it. */
static inline uint64_t draw_from(const wk_select_case *c, const side *want, const side *other, uint64_t rk, uint64_t rv)
{
    const side *s = want->parts > 0 || want->nan_only ? want : other;
    int nan_data = c->special == WK_SELECT_NAN_DATA;
    if (s->nan_only || (nan_data && s->nan_fits && R_NAN(rk)))
        return nan_bits(c->dtype, rv);
    /* Signed zeros: half the draws from a side that holds zero are zeros. */
    if (c->special == WK_SELECT_SIGNED_ZERO && is_float(c->dtype) && R_ZERO(rk)) {
        uint64_t zero = zero_key(c->dtype);
        for (int p = 0; p < s->parts; ++p)
            if (s->part[p].lo <= zero && zero <= s->part[p].hi)
                return bits_of_key(c->dtype, zero, (int)R_NEG_ZERO(rk));
    }
    const interval *iv = &s->part[s->parts == 2 ? (rv & 1) : 0];
    return bits_of_key(c->dtype, draw_key(iv, rv), (int)R_NEG_ZERO(rk));
}

static void fill_predicate(const wk_select_case *c, void *h)
{
    side keep, drop;
    predicate_sides(c, &keep, &drop);
    size_t elem = wk_dtype_size(c->dtype);
    stream ks = stream_of(c->seed, STREAM_KEEP), vs = stream_of(c->seed, STREAM_VALUE);
    for (size_t i = 0; i < c->n; ++i) {
        uint64_t rk = draw(ks, i), rv = draw(vs, i);
        int k = keeps_from(c, i, rk);
        put(h, i, elem, draw_from(c, k ? &keep : &drop, k ? &drop : &keep, rk, rv));
    }
}

static void fill_flagged(const wk_select_case *c, void *h, uint8_t *flags)
{
    size_t elem = wk_dtype_size(c->dtype);
    uint64_t values = c->dtype == WK_BOOL ? 1 : ~UINT64_C(0); /* a bool's bytes are 0 or 1 */
    stream ks = stream_of(c->seed, STREAM_KEEP), vs = stream_of(c->seed, STREAM_VALUE);
    for (size_t i = 0; i < c->n; ++i) {
        uint64_t rk = draw(ks, i), rv = draw(vs, i);
        put(h, i, elem, rv & values);
        if (flags)
            flags[i] = keeps_from(c, i, rk) ? R_FLAG(rk) : 0;
    }
}

/* Runs: a kept element starts one with a value unequal to the element
 * before it; a dropped one repeats that element's value (a zero with
 * either sign). NaN data puts NaNs where a run of one element stands (a
 * NaN equals nothing, so the next element starts a run whatever it is). */
static void fill_unique(const wk_select_case *c, void *h)
{
    wk_dtype d = c->dtype;
    size_t elem = wk_dtype_size(d);
    interval all = {0, key_max(d)};
    int floating = is_float(d);
    uint64_t prev_key = 0, prev_bits = 0;
    int prev_nan = 0;
    stream ks = stream_of(c->seed, STREAM_KEEP), vs = stream_of(c->seed, STREAM_VALUE);
    uint64_t rk_next = c->n > 0 ? draw(ks, 0) : 0;
    for (size_t i = 0; i < c->n; ++i) {
        uint64_t rk = rk_next, rv = draw(vs, i);
        int k = keeps_from(c, i, rk);
        rk_next = i + 1 < c->n ? draw(ks, i + 1) : 0;
        int next_starts = i + 1 == c->n || keeps_from(c, i + 1, rk_next);
        uint64_t bits;
        if (!k) {
            /* A repeat; prev is never NaN here (see below). */
            bits = floating && prev_key == zero_key(d) ? bits_of_key(d, prev_key, (int)R_NEG_ZERO(rk)) : prev_bits;
        } else if (floating && c->special == WK_SELECT_NAN_DATA && next_starts && R_NAN(rk)) {
            bits = nan_bits(d, rv);
        } else {
            uint64_t key = floating && c->special == WK_SELECT_SIGNED_ZERO && R_ZERO(rk) ? zero_key(d)
                                                                                         : draw_key(&all, rv);
            if (i > 0 && !prev_nan && key == prev_key)
                key = key < all.hi ? key + 1 : key - 1;
            bits = bits_of_key(d, key, (int)R_NEG_ZERO(rk));
        }
        prev_nan = bits_are_nan(d, bits);
        prev_key = prev_nan ? 0 : key_of_bits(d, bits);
        prev_bits = bits;
        put(h, i, elem, bits);
    }
}

void wk_select_case_data(const wk_select_case *c, void *h_in, uint8_t *h_flags)
{
    if (!c || !h_in || wk_dtype_size(c->dtype) == 0)
        return;
    switch (c->mode) {
    case WK_REF_SELECT_FLAGGED: fill_flagged(c, h_in, h_flags); break;
    case WK_REF_UNIQUE: fill_unique(c, h_in); break;
    default: fill_predicate(c, h_in); break;
    }
}

wk_ref_select_spec wk_select_case_spec(const wk_select_case *c)
{
    wk_ref_select_spec s;
    memset(&s, 0, sizeof s);
    s.mode = c->mode;
    s.dtype = c->dtype;
    s.predicate = c->predicate;
    return s;
}

/* ---------------------------------------------------------------- names */

const char *wk_keep_pattern_name(wk_keep_pattern keep)
{
    static const char *const names[WK_KEEP_PATTERN_COUNT] = {"0%",   "1%",        "50%",    "99%",
                                                             "100%", "alternate", "blocks", "every"};
    return (unsigned)keep < WK_KEEP_PATTERN_COUNT ? names[keep] : "?";
}

const char *wk_select_special_name(wk_select_special special)
{
    static const char *const names[WK_SELECT_SPECIAL_COUNT] = {
        "", " +nan", " nan constant", " +-0.0", " inf constant", " edge constant"};
    return (unsigned)special < WK_SELECT_SPECIAL_COUNT ? names[special] : " +?";
}

void wk_describe_select_case(const wk_select_case *c, char *buf, size_t size)
{
    char where[64], what[160], keep[32];
    int len = c->in_place ? snprintf(where, sizeof where, "in+%zu in place", c->in_offset)
                          : snprintf(where, sizeof where, "in+%zu out+%zu", c->in_offset, c->out_offset);
    if (c->mode == WK_REF_SELECT_FLAGGED && len >= 0 && (size_t)len < sizeof where)
        snprintf(where + len, sizeof where - (size_t)len, " flags+%zu", c->flags_offset);
    if (wk_ref_select_uses_predicate(c->mode))
        wk_ref_format_predicate(c->dtype, &c->predicate, what, sizeof what);
    else
        what[0] = '\0';
    if (c->keep == WK_KEEP_EVERY)
        snprintf(keep, sizeof keep, c->mode == WK_REF_UNIQUE ? "runs of %u" : "every %u", c->run_length);
    else if (c->mode == WK_REF_UNIQUE && c->keep == WK_KEEP_NONE)
        snprintf(keep, sizeof keep, "all equal");
    else
        snprintf(keep, sizeof keep, "%s", wk_keep_pattern_name(c->keep));
    snprintf(buf, size, "%-4s %-14s n=%-10zu %-24s keep %-10s %s%s", wk_dtype_name(c->dtype),
             wk_ref_select_mode_name(c->mode), c->n, where, keep, what, wk_select_special_name(c->special));
}

/* ---------------------------------------------------------------- lists */

typedef wk_case_writer case_list;

/* Where the buffers sit: elements (flags: bytes) past a 256-byte boundary. */
typedef struct placement {
    size_t in_offset, out_offset, flags_offset;
    int in_place;
} placement;

/* The k-th placement: over 16 consecutive k the (input, output) offsets
 * run through all 16 pairs of 0 .. 3, and the flags offset varies apart
 * from both. */
static placement place(size_t k, int in_place)
{
    placement p = {k % 4, (k + k / 4) % 4, (3 * k + k / 16) % 4, in_place};
    return p;
}

/* A keep pattern and, for WK_KEEP_EVERY, its run length. */
typedef struct keep_choice {
    wk_keep_pattern keep;
    unsigned run;
} keep_choice;

static const keep_choice keeps_any[] = {{WK_KEEP_HALF, 0},      {WK_KEEP_1PCT, 0},      {WK_KEEP_99PCT, 0},
                                        {WK_KEEP_NONE, 0},      {WK_KEEP_ALL, 0},       {WK_KEEP_ALTERNATE, 0},
                                        {WK_KEEP_BLOCKS, 0},    {WK_KEEP_EVERY, 3}};
/* unique: NONE is all-equal data, ALL all-distinct, EVERY runs. */
static const keep_choice keeps_unique[] = {{WK_KEEP_HALF, 0},  {WK_KEEP_EVERY, 2}, {WK_KEEP_NONE, 0},
                                           {WK_KEEP_1PCT, 0},  {WK_KEEP_EVERY, 7}, {WK_KEEP_99PCT, 0},
                                           {WK_KEEP_ALL, 0},   {WK_KEEP_BLOCKS, 0}, {WK_KEEP_EVERY, 32},
                                           {WK_KEEP_ALTERNATE, 0}};

static keep_choice keep_at(wk_ref_select_mode m, size_t k)
{
    return m == WK_REF_UNIQUE ? keeps_unique[k % COUNT(keeps_unique)] : keeps_any[k % COUNT(keeps_any)];
}

/* The compares of a dtype: the NaN tests for floats only. */
static size_t compare_count(wk_dtype d) { return is_float(d) ? WK_COMPARE_COUNT : (size_t)WK_IN_RANGE + 1; }
static wk_compare compare_at(wk_dtype d, size_t k) { return (wk_compare)(k % compare_count(d)); }

static void add(case_list *l, wk_ref_select_mode m, wk_dtype d, wk_compare cmp, size_t n, placement at,
                keep_choice keep, wk_select_special special)
{
    uint64_t seed = wk_case_writer_seed(l);
    int in_place = at.in_place && wk_ref_select_in_place_ok(m);
    wk_select_case c = {.mode = m, .dtype = d, .predicate = {.a.u64 = 0, .b.u64 = 0}, .n = n,
                        .in_offset = at.in_offset, .out_offset = in_place ? 0 : at.out_offset,
                        .flags_offset = m == WK_REF_SELECT_FLAGGED ? at.flags_offset : 0, .in_place = in_place,
                        .keep = keep.keep, .run_length = keep.keep == WK_KEEP_EVERY ? keep.run : 0,
                        .special = special, .seed = seed};
    if (wk_ref_select_uses_predicate(m)) {
        c.predicate = pick_predicate(d, cmp, special, seed);
        /* A NaN constant decides every element alike. */
        if (special == WK_SELECT_NAN_CONSTANT && cmp != WK_IS_NAN && cmp != WK_NOT_NAN) {
            c.keep = cmp == WK_NOT_EQUAL ? WK_KEEP_ALL : WK_KEEP_NONE;
            c.run_length = 0;
        }
    }
    wk_case_writer_put(l, &c);
}

/* Elements per tile of dtype in a select of n elements (the tile shape
 * follows the input's size), and the plan's offset (elements from the
 * 16-byte boundary below d_in, where the tiles start) for an input
 * in_offset elements past a 256-byte boundary: both from the planner the
 * library uses on sm_90 and later (select/plan.h), so the edges below
 * follow its tiles. (Before sm_90 the large tiles have the pipelined
 * tiles' 64 KiB.) */
static size_t mode_tile_elems(wk_dtype d, size_t n, wk_ref_select_mode m)
{
    wk_tile_plan p;
    wk_plan_select(0x10000, n, wk_dtype_size(d), m == WK_REF_PARTITION_IF, &p);
    return p.tile_elems;
}

/* The same for the modes other than the partition, whose 4-byte tiles
 * are shorter from 16 MiB to 128 MiB. */
static size_t tile_elems(wk_dtype d, size_t n) { return mode_tile_elems(d, n, WK_REF_SELECT_IF); }

/* The same on devices without the pipelined kernel (before sm_90), whose
 * staged tiles the staged edges below follow. */
static size_t chained_tile_elems(wk_dtype d, size_t n)
{
    wk_tile_plan p;
    wk_plan_select_for(0x10000, n, wk_dtype_size(d), 0, 0, &p);
    return p.tile_elems;
}

static size_t plan_offset(wk_dtype d, size_t in_offset)
{
    size_t elem = wk_dtype_size(d);
    wk_tile_plan p;
    wk_plan_select(0x10000 + in_offset * elem, 1, elem, 0, &p);
    return p.offset;
}

static size_t small_tile(wk_dtype d) { return tile_elems(d, 1); }
/* The fewest elements that take large tiles, and a large tile. */
static size_t first_large(wk_dtype d) { return WK_SELECT_LARGE_FROM_BYTES / wk_dtype_size(d); }
static size_t large_tile(wk_dtype d) { return tile_elems(d, first_large(d)); }
/* 16 MiB of input: where the scan's tiles grow (warpkit.h gives it for
 * the select too). */
static size_t scan_large(wk_dtype d) { return WK_SCAN_LARGE_FROM_BYTES / wk_dtype_size(d); }

/* The specials of float dtypes; integers have the edge constants. */
static const wk_select_special float_specials[] = {WK_SELECT_NAN_DATA, WK_SELECT_SIGNED_ZERO,
                                                   WK_SELECT_NAN_CONSTANT, WK_SELECT_INF_CONSTANT};
static const wk_select_special unique_specials[] = {WK_SELECT_NAN_DATA, WK_SELECT_SIGNED_ZERO};

/* The k-th compare for a special: its constant matters to the ordered
 * compares only, so the NaN tests go with NaN data alone. */
static wk_compare special_compare(wk_dtype d, wk_select_special special, size_t k)
{
    return special == WK_SELECT_NAN_DATA ? compare_at(d, k) : (wk_compare)(k % ((size_t)WK_IN_RANGE + 1));
}

/* The k-th keep pattern for a special. NaN data and signed zeros need
 * plenty of elements on their side of the predicate (so half kept), and
 * NaN data in unique runs of one element next to each other (a NaN equals
 * nothing, so it cannot stand in a longer run). */
static keep_choice special_keep(wk_ref_select_mode m, wk_select_special special, size_t k)
{
    static const keep_choice mixed[] = {{WK_KEEP_HALF, 0}, {WK_KEEP_ALTERNATE, 0}};
    static const keep_choice single_runs[] = {{WK_KEEP_HALF, 0}, {WK_KEEP_ALL, 0}, {WK_KEEP_99PCT, 0}};
    if (m == WK_REF_UNIQUE)
        return special == WK_SELECT_NAN_DATA ? single_runs[k % COUNT(single_runs)] : keep_at(m, k);
    /* Signed zeros lie on one side of the predicate: draw from both. */
    return special == WK_SELECT_NAN_DATA || special == WK_SELECT_SIGNED_ZERO ? mixed[k % COUNT(mixed)] : keep_at(m, k);
}

static const size_t quick_sizes[] = {0, 1, 31, 32, 33, 1023, 1024, 1025};

/* Four cases per dtype and mode: two of the sizes above, a few tiles, and
 * special values; the compares, keep patterns and placements rotate so
 * that each mode sees all of them across the dtypes. */
static void add_quick(case_list *l, wk_dtype d, wk_ref_select_mode m)
{
    size_t j = 5 * (size_t)d + (size_t)m, cmp0 = 4 * (size_t)d + (size_t)m;
    for (size_t s = 0; s < 2; ++s) {
        /* Over the dtypes, every keep choice of the mode. */
        size_t k = m == WK_REF_UNIQUE ? 2 * (size_t)d + s : j + 3 * s;
        add(l, m, d, compare_at(d, cmp0 + s), quick_sizes[(j + 5 * s) % COUNT(quick_sizes)],
            place(2 * j + s, s == 1 && d % 2 == 0), keep_at(m, k), WK_SELECT_PLAIN);
    }

    keep_choice half = {WK_KEEP_HALF, 0}, runs = {WK_KEEP_EVERY, 5};
    add(l, m, d, compare_at(d, cmp0 + 2), 3 * small_tile(d) + 5, place(2 * j + 7, d % 2 == 1),
        m == WK_REF_UNIQUE ? runs : half, WK_SELECT_PLAIN);

    if (m == WK_REF_SELECT_FLAGGED) {
        keep_choice blocks = {WK_KEEP_BLOCKS, 0};
        add(l, m, d, WK_LESS, 4099, place(j + 3, 0), blocks, WK_SELECT_PLAIN);
    } else if (m == WK_REF_UNIQUE) {
        /* Floats: NaN data or signed zeros; integers: all-equal data. */
        wk_select_special sp = is_float(d) ? unique_specials[(size_t)d % COUNT(unique_specials)] : WK_SELECT_PLAIN;
        keep_choice k = is_float(d) ? special_keep(m, sp, j) : (keep_choice){WK_KEEP_NONE, 0};
        add(l, m, d, WK_LESS, 1025, place(j + 5, d % 2 == 0), k, sp);
    } else {
        /* Over the float dtypes, each float special in each mode. */
        wk_select_special sp = is_float(d) ? float_specials[((size_t)d + (size_t)m) % COUNT(float_specials)]
                                           : WK_SELECT_EDGE_CONSTANT;
        add(l, m, d, special_compare(d, sp, cmp0 + 3), 1025, place(j + 9, 0), special_keep(m, sp, j + 1), sp);
    }
}

/* Once per dtype, the large tile shape: just past the size where it
 * starts (select/plan.h). */
static void add_quick_large(case_list *l, wk_dtype d)
{
    wk_ref_select_mode m = (wk_ref_select_mode)((size_t)d % WK_REF_SELECT_MODE_COUNT);
    keep_choice half = {WK_KEEP_HALF, 0};
    add(l, m, d, compare_at(d, (size_t)d), first_large(d) + 3, place((size_t)d, 0), half, WK_SELECT_PLAIN);
}

static const size_t full_small_sizes[] = {0,  1,  2,   3,   7,   8,    15,   16,   17,   31,
                                          32, 33, 255, 256, 257, 1023, 1024, 1025, 4099, 65537};
static const unsigned power_exponents[] = {11, 14, 17, 20};

/* Every compare (predicate modes), every keep pattern (select_flagged),
 * the run lengths (unique), at a few tiles' worth of elements. */
static void add_full_kinds(case_list *l, wk_dtype d, wk_ref_select_mode m, size_t base)
{
    if (wk_ref_select_uses_predicate(m)) {
        for (size_t k = 0; k < compare_count(d); ++k) {
            add(l, m, d, (wk_compare)k, 10007, place(base + k, k % 4 == 0), keep_at(m, base + k), WK_SELECT_PLAIN);
            add(l, m, d, (wk_compare)k, 100003, place(base + k + 7, k % 4 == 2), keep_at(m, base + k + 4),
                WK_SELECT_PLAIN);
        }
        /* The edge constants, each compare once: the extremes of every
         * dtype, signed and unsigned, next to a constant. */
        for (size_t k = 0; k <= (size_t)WK_IN_RANGE; ++k)
            add(l, m, d, (wk_compare)k, 1025, place(base + 2 * k, 0), keep_at(m, base + k + 1),
                WK_SELECT_EDGE_CONSTANT);
    } else if (m == WK_REF_UNIQUE) {
        static const unsigned runs[] = {1, 2, 3, 7, 32, 1000};
        for (size_t k = 0; k < COUNT(runs); ++k) {
            keep_choice every = {WK_KEEP_EVERY, runs[k]};
            add(l, m, d, WK_LESS, 100003, place(base + k, k % 2), every, WK_SELECT_PLAIN);
        }
        keep_choice all_equal = {WK_KEEP_NONE, 0};
        add(l, m, d, WK_LESS, 100003, place(base + 6, 1), all_equal, WK_SELECT_PLAIN);
        static const wk_keep_pattern random[] = {WK_KEEP_1PCT, WK_KEEP_HALF, WK_KEEP_99PCT, WK_KEEP_BLOCKS,
                                                 WK_KEEP_ALTERNATE, WK_KEEP_ALL};
        for (size_t k = 0; k < COUNT(random); ++k) {
            keep_choice kc = {random[k], 0};
            add(l, m, d, WK_LESS, 30011, place(base + 7 + k, k % 3 == 0), kc, WK_SELECT_PLAIN);
        }
    } else {
        for (size_t k = 0; k < WK_KEEP_PATTERN_COUNT; ++k) {
            keep_choice kc = {(wk_keep_pattern)k, k == WK_KEEP_EVERY ? 5u : 0u};
            add(l, m, d, WK_LESS, 100003, place(base + k, k % 3 == 1), kc, WK_SELECT_PLAIN);
        }
    }
}

/* One element either side of the first three tile boundaries (small
 * tiles), counted from the input, and from the 16-byte boundary below it
 * for inputs that start inside a vector; either side of the change to
 * large tiles; a large-tile boundary past it; and one past 16 MiB. */
static void add_tile_edges(case_list *l, wk_dtype d, wk_ref_select_mode m, size_t base)
{
    size_t tile = small_tile(d);
    for (size_t t = 1; t <= 3; ++t)
        for (int delta = -1; delta <= 1; ++delta) {
            size_t k = base + 3 * t + (size_t)(delta + 1);
            placement at = place(4 * k, t == 2 && delta == 0); /* input offset 0 */
            add(l, m, d, compare_at(d, k), t * tile + (size_t)(ptrdiff_t)delta, at, keep_at(m, k), WK_SELECT_PLAIN);
        }
    for (size_t t = 1; t <= 2; ++t)
        for (int delta = -1; delta <= 1; delta += 2) {
            size_t k = base + 2 * t + (size_t)(delta + 1) / 2;
            placement at = place(4 * k + 1 + k % 3, 0); /* input offset 1 .. 3 */
            size_t n = t * tile - plan_offset(d, at.in_offset) + (size_t)(ptrdiff_t)delta;
            add(l, m, d, compare_at(d, k + 1), n, at, keep_at(m, k + 2), WK_SELECT_PLAIN);
        }
    size_t edge = first_large(d);
    add(l, m, d, compare_at(d, base), edge - 1, place(4 * base, 0), keep_at(m, base), WK_SELECT_PLAIN);
    add(l, m, d, compare_at(d, base + 1), edge + 1, place(4 * base + 1, 1), keep_at(m, base + 1), WK_SELECT_PLAIN);
    placement at = place(base + 2, 0);
    size_t past = (edge / large_tile(d) + 3) * large_tile(d); /* a large-tile boundary past the edge */
    add(l, m, d, compare_at(d, base + 2), past - plan_offset(d, at.in_offset) + 1, at, keep_at(m, base + 2),
        WK_SELECT_PLAIN);
    /* Past 16 MiB of input, where the scan's tiles grow: one element
     * before a large-tile boundary. */
    at = place(base + 3, 0);
    add(l, m, d, compare_at(d, base + 3), scan_large(d) + large_tile(d) - plan_offset(d, at.in_offset) - 1, at,
        keep_at(m, base + 3), WK_SELECT_PLAIN);
}

static void add_full(case_list *l, wk_dtype d, wk_ref_select_mode m)
{
    size_t base = 7 * (size_t)d + 3 * (size_t)m;
    for (size_t s = 0; s < COUNT(full_small_sizes); ++s)
        add(l, m, d, compare_at(d, base + s), full_small_sizes[s], place(base + s, s % 3 == 1), keep_at(m, base + s),
            WK_SELECT_PLAIN);

    add_full_kinds(l, d, m, base);
    add_tile_edges(l, d, m, base);

    for (size_t e = 0; e < COUNT(power_exponents); ++e)
        for (int delta = -1; delta <= 1; ++delta) {
            size_t k = base + 3 * e + (size_t)(delta + 1);
            add(l, m, d, compare_at(d, k), ((size_t)1 << power_exponents[e]) + (size_t)(ptrdiff_t)delta,
                place(k, delta == 0 && e % 2 == 1), keep_at(m, k + 5), WK_SELECT_PLAIN);
        }

    /* Special values at two sizes. */
    static const size_t special_sizes[] = {33, 100003};
    for (size_t s = 0; s < COUNT(special_sizes); ++s) {
        size_t n = special_sizes[s];
        if (m == WK_REF_UNIQUE && is_float(d)) {
            for (size_t k = 0; k < COUNT(unique_specials); ++k)
                add(l, m, d, WK_LESS, n, place(base + k + s, k == s), special_keep(m, unique_specials[k], base + k + s),
                    unique_specials[k]);
        } else if (wk_ref_select_uses_predicate(m) && is_float(d)) {
            for (size_t k = 0; k < COUNT(float_specials); ++k) {
                wk_select_special sp = float_specials[k];
                add(l, m, d, special_compare(d, sp, base + 3 * k + s), n, place(base + k + 5 * s, k == 1),
                    special_keep(m, sp, base + k), sp);
            }
        }
    }
}

/* About 2000 large tiles (128 MiB of input): a long chain of tile
 * prefixes, once per mode. */
static void add_many_tiles(case_list *l)
{
    static const struct {
        wk_ref_select_mode m;
        wk_dtype d;
        wk_compare cmp;
        keep_choice keep;
        int in_place;
    } many[] = {
        {WK_REF_SELECT_IF, WK_F32, WK_LESS, {WK_KEEP_HALF, 0}, 0},
        {WK_REF_SELECT_FLAGGED, WK_I64, WK_LESS, {WK_KEEP_BLOCKS, 0}, 1},
        {WK_REF_PARTITION_IF, WK_BF16, WK_IN_RANGE, {WK_KEEP_1PCT, 0}, 0},
        {WK_REF_UNIQUE, WK_U32, WK_LESS, {WK_KEEP_EVERY, 3}, 1},
        {WK_REF_WHERE, WK_F64, WK_GREATER_EQUAL, {WK_KEEP_99PCT, 0}, 0},
    };
    for (size_t k = 0; k < COUNT(many); ++k)
        add(l, many[k].m, many[k].d, many[k].cmp, 2000 * large_tile(many[k].d) + 7, place(k + 1, many[k].in_place),
            many[k].keep, WK_SELECT_PLAIN);
}

/* A select whose last tile ends just inside its shared-memory part, so
 * that the part is loaded lane by lane rather than copied, for 4-byte
 * elements from `from_bytes` on (the first tile's part is copied: the
 * input starts inside a vector). */
static void add_ends_in_stage(case_list *l, wk_ref_select_mode mode, wk_dtype d, size_t from_bytes, size_t k)
{
    const size_t edge = from_bytes / 4, tile = chained_tile_elems(d, edge);
    wk_tile_plan p;
    wk_plan_select_for(0x10000, edge, 4, 0, 0, &p);
    const size_t in_registers = (size_t)p.block * WK_SELECT_STAGED_REGISTER_VECTORS * 4;
    placement at = place(4 * k + 1, 0); /* input offset 1 */
    size_t n = (edge / tile + 1) * tile + in_registers + 1 - plan_offset(d, at.in_offset);
    add(l, mode, d, compare_at(d, k), n, at, keep_at(mode, k), WK_SELECT_PLAIN);
}

/* Where 4-byte selects turn to staged tiles on devices before sm_90 (on
 * later ones these sizes take the pipelined tiles; select/plan.h): once per mode
 * on a 4-byte dtype, the last size with large tiles, the first with 48 KiB
 * staged ones (in place where the mode allows), one ending one element
 * before a tile boundary, and last tiles that end inside their
 * shared-memory part, in either staged shape; and the last size before
 * the 128 KiB staged tiles. The quick list keeps one, for the sanitizers. */
static void add_staged_edges(case_list *l, wk_case_level level)
{
    static const wk_dtype dtypes[] = {WK_F32, WK_I32, WK_U32};
    const size_t edge = WK_SELECT_STAGED_MID_FROM_BYTES / 4, tile = chained_tile_elems(WK_F32, edge);
    for (size_t m = 0; m < WK_REF_SELECT_MODE_COUNT; ++m) {
        wk_ref_select_mode mode = (wk_ref_select_mode)m;
        wk_dtype d = dtypes[m % COUNT(dtypes)];
        size_t k = 11 * m;
        add_ends_in_stage(l, mode, d, WK_SELECT_STAGED_MID_FROM_BYTES, k);
        if (level == WK_CASES_QUICK)
            return;
        add_ends_in_stage(l, mode, d, WK_SELECT_STAGED_FROM_BYTES, k + 4);
        add(l, mode, d, compare_at(d, k + 1), edge - 1, place(4 * m, 0), keep_at(mode, k + 1), WK_SELECT_PLAIN);
        add(l, mode, d, compare_at(d, k + 2), edge, place(4 * m, 1), keep_at(mode, k + 2), WK_SELECT_PLAIN);
        placement at = place(4 * m + 2, 0);
        add(l, mode, d, compare_at(d, k + 3), edge + 2 * tile - 1 - plan_offset(d, at.in_offset), at,
            keep_at(mode, k + 3), WK_SELECT_PLAIN);
    }
    add(l, WK_REF_UNIQUE, WK_I32, WK_LESS, WK_SELECT_STAGED_FROM_BYTES / 4 - 1, place(3, 1),
        keep_at(WK_REF_UNIQUE, 5), WK_SELECT_PLAIN);
}

/* Where 4- and 8-byte selects turn to the pipelined kernel (sm_90 and
 * later; select/plan.h), per mode on a dtype of either size (4-byte ones
 * for the flagged select and unique, whose flags and run heads the kernel
 * reads a tile ahead): one element below the first size, the first size
 * (in place where the mode allows), and an input of twice that size that
 * starts inside a vector and whose last tile holds one element: first and
 * last tiles loaded by the compute threads, the others by bulk copies,
 * more tiles than the blocks claim at their start (three each, one block
 * per SM), so that buffers are refilled in the loop. The quick list keeps
 * the last for the flagged select and unique. */
static void add_pipelined_edges(case_list *l, wk_case_level level)
{
    static const wk_dtype dtypes[] = {WK_F32, WK_I32, WK_U64, WK_U32, WK_F64};
    for (size_t m = 0; m < WK_REF_SELECT_MODE_COUNT; ++m) {
        wk_ref_select_mode mode = (wk_ref_select_mode)m;
        if (level == WK_CASES_QUICK && mode != WK_REF_SELECT_FLAGGED && mode != WK_REF_UNIQUE)
            continue;
        wk_dtype d = dtypes[m % COUNT(dtypes)];
        size_t edge = WK_SELECT_PIPELINED_FROM_BYTES / wk_dtype_size(d), tile = mode_tile_elems(d, edge, mode);
        size_t k = 13 * m + 2;
        placement at = place(4 * k + 1, 0); /* input offset 1 */
        add(l, mode, d, compare_at(d, k), (2 * edge / tile + 1) * tile + 1 - plan_offset(d, at.in_offset), at,
            keep_at(mode, k), WK_SELECT_PLAIN);
        if (level == WK_CASES_QUICK)
            continue;
        add(l, mode, d, compare_at(d, k + 1), edge - 1, place(4 * k, 0), keep_at(mode, k + 1), WK_SELECT_PLAIN);
        add(l, mode, d, compare_at(d, k + 2), edge, place(4 * k + 2, 1), keep_at(mode, k + 2), WK_SELECT_PLAIN);
    }
}

/* The 4-byte partition's short pipelined tiles (select/plan.h), which hold
 * each counted tile in registers: an f32 partition of twice their first
 * size that starts inside a vector and whose last tile holds one element
 * (in the quick list too), and i32 partitions either side of the change
 * back to 64 KiB tiles at 128 MiB. */
static void add_partition_tile_edges(case_list *l, wk_case_level level)
{
    const wk_ref_select_mode m = WK_REF_PARTITION_IF;
    const size_t edge = WK_SELECT_PIPELINED_FROM_BYTES / 4, tile = mode_tile_elems(WK_F32, edge, m);
    const size_t k = 71;
    placement at = place(4 * k + 1, 0); /* input offset 1 */
    add(l, m, WK_F32, compare_at(WK_F32, k), (2 * edge / tile + 1) * tile + 1 - plan_offset(WK_F32, at.in_offset),
        at, keep_at(m, k), WK_SELECT_PLAIN);
    if (level == WK_CASES_QUICK)
        return;
    const size_t change = WK_SELECT_PIPELINED_PARTITION_BELOW_BYTES / 4;
    add(l, m, WK_I32, compare_at(WK_I32, k + 1), change - 1, place(4 * k + 2, 0), keep_at(m, k + 1),
        WK_SELECT_PLAIN);
    add(l, m, WK_I32, compare_at(WK_I32, k + 2), change, place(4 * k + 3, 0), keep_at(m, k + 2), WK_SELECT_PLAIN);
}

size_t wk_select_cases(wk_case_level level, uint64_t seed, wk_select_case *out, size_t cap)
{
    case_list l = wk_case_writer_start(out, sizeof *out, cap, seed);
    for (int d = 0; d < WK_DTYPE_COUNT; ++d) {
        for (int m = 0; m < WK_REF_SELECT_MODE_COUNT; ++m) {
            if (level == WK_CASES_QUICK)
                add_quick(&l, (wk_dtype)d, (wk_ref_select_mode)m);
            else
                add_full(&l, (wk_dtype)d, (wk_ref_select_mode)m);
        }
        if (level == WK_CASES_QUICK)
            add_quick_large(&l, (wk_dtype)d);
    }
    if (level != WK_CASES_QUICK)
        add_many_tiles(&l);
    add_staged_edges(&l, level);
    add_pipelined_edges(&l, level);
    add_partition_tile_edges(&l, level);
    return l.count;
}

size_t wk_select_huge_cases(uint64_t seed, wk_select_case *out, size_t cap)
{
    case_list l = wk_case_writer_start(out, sizeof *out, cap, seed);
    keep_choice half = {WK_KEEP_HALF, 0}, one = {WK_KEEP_1PCT, 0};
    placement apart = {1, 3, 0, 0}, in_place = {3, 0, 0, 1};
    /* 2 bytes per element: 2^31 elements in 2 x 4 GiB. */
    add(&l, WK_REF_SELECT_IF, WK_F16, WK_LESS, WK_CASES_HUGE + 9, apart, half, WK_SELECT_PLAIN);
    add(&l, WK_REF_UNIQUE, WK_F16, WK_LESS, WK_CASES_HUGE + 3, in_place, half, WK_SELECT_PLAIN);
    /* 2^31 indices take 16 GiB beside the 4 GiB input. */
    add(&l, WK_REF_WHERE, WK_F16, WK_GREATER_EQUAL, WK_CASES_HUGE + 5, apart, one, WK_SELECT_PLAIN);
    /* 4 bytes per element, 64-bit counts (the pipelined tiles on sm_90
     * and later, elsewhere the staged ones), in place in 8 GiB. */
    add(&l, WK_REF_SELECT_IF, WK_I32, WK_LESS, WK_CASES_HUGE + 7, in_place, one, WK_SELECT_PLAIN);
    return l.count;
}

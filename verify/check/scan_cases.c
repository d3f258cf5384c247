#include "check/scan_cases.h"

#include "check/case_writer.h"
#include "warpkit.h"
#include "ref/reference.h"
#include "scan/plan.h"

#include <string.h>

typedef wk_case_writer case_list;

/* Where the input and output sit: elements past a 256-byte boundary. */
typedef struct placement {
    size_t in_offset, out_offset;
    int in_place;
} placement;

typedef enum init_kind { INIT_IDENTITY, INIT_VALUE } init_kind;

#define COUNT(a) (sizeof(a) / sizeof((a)[0]))

static int is_unsigned_int(wk_dtype d)
{
    return d == WK_U32 || d == WK_U64 || d == WK_U8 || d == WK_U16 || d == WK_BOOL;
}

/* An exclusive scan's init: the op's identity (a plain exclusive scan), or
 * a value that changes the outputs: for float sums a small nonzero integer
 * (so that the exact rule still holds on small-integer data), for integer
 * sums any pattern (the sums wrap sooner), for min / max a value inside the
 * data's range, for bitwise ops any pattern (a bool's: 0 or 1). */
static wk_value pick_init(wk_dtype d, wk_op op, init_kind kind, uint64_t seed)
{
    wk_value v;
    memset(&v, 0, sizeof v);
    if (kind == INIT_IDENTITY) {
        wk_ref_identity(d, op, &v);
        return v;
    }
    uint64_t r = wk_rand64(seed ^ 0x1417ull, 0);
    int small = (int)(r % 17) - 8;
    if (wk_dtype_is_float(d)) {
        long double x = op == WK_SUM ? (small != 0 ? small : 7) : small / 4.0L;
        wk_ref_store(&v, 0, d, x);
    } else if (d == WK_BOOL) {
        v.b = (uint8_t)(r % 2);
    } else if (op == WK_SUM || wk_op_is_bitwise(op)) {
        /* The dtype's low bytes of r (little-endian). */
        memcpy(&v, &r, wk_dtype_size(d));
    } else {
        wk_ref_store(&v, 0, d, is_unsigned_int(d) ? (long double)(r % 17) : (long double)small);
    }
    return v;
}

static void add(case_list *l, wk_dtype d, wk_op op, int exclusive, init_kind init, size_t n, placement at,
                wk_gen_pattern pattern, wk_special special)
{
    uint64_t seed = wk_case_writer_seed(l);
    wk_scan_case c = {.dtype = d, .op = op, .exclusive = exclusive, .init.u64 = 0, .n = n, .in_offset = at.in_offset,
                      .out_offset = at.in_place ? 0 : at.out_offset, .in_place = at.in_place, .pattern = pattern,
                      .special = special, .seed = seed};
    if (exclusive)
        c.init = pick_init(d, op, init, seed);
    wk_case_writer_put(l, &c);
}

/* The k-th of the span * span (input, output) offset pairs: k and k + span
 * share the input offset and differ in the output's, so consecutive k run
 * through every pair. */
static placement place(size_t k, size_t span, int in_place)
{
    placement p = {k % span, (k + k / span) % span, in_place};
    return p;
}

static int op_applies(wk_dtype d, wk_op op)
{
    return !wk_op_is_arg(op) && !(wk_op_is_bitwise(op) && wk_dtype_is_float(d));
}

/* A scan the library refuses (a sum of bools): its cases check the
 * refusal (scan_check.c). */
static int refused(wk_dtype d, wk_op op) { return wk_ref_dtype_op_status(d, op) != WK_SUCCESS; }

/* The 8- and 16-bit integers (bool apart). */
static int is_narrow_int(wk_dtype d) { return d == WK_U8 || d == WK_I8 || d == WK_I16 || d == WK_U16; }

static int is_float_sum(wk_dtype d, wk_op op) { return op == WK_SUM && wk_dtype_is_float(d); }

/* Small integers for float sums (the exact rule: a lost or doubled element
 * shows) on one choice, uniform data (the tolerance path; integers over
 * their full range) on the other. */
static wk_gen_pattern mixed_pattern(wk_dtype d, wk_op op, size_t choice)
{
    return is_float_sum(d, op) && choice % 2 ? WK_GEN_SMALL_INTS : WK_GEN_UNIFORM;
}

/* A sum case, and for a float sum of other data its twin on small
 * integers: the same call, checked exactly. At large sizes the tolerance
 * for uniform data (depth * u * sum |x|) grows past 1, so an element of
 * |x| < 1 lost or counted twice would pass; under the exact rule it shows. */
static void add_sum_twinned(case_list *l, wk_dtype d, int ex, init_kind init, size_t n, placement at,
                            wk_gen_pattern pattern)
{
    add(l, d, WK_SUM, ex, init, n, at, pattern, WK_SPECIAL_NONE);
    if (is_float_sum(d, WK_SUM) && pattern != WK_GEN_SMALL_INTS)
        add(l, d, WK_SUM, ex, init, n, at, WK_GEN_SMALL_INTS, WK_SPECIAL_NONE);
}

/* The elements per tile of a scan of n elements of dtype (the tile shape
 * follows the input's size; every op takes the same), and the plan's
 * offset (in elements from the 16-byte boundary below d_in) for an input
 * in_offset elements past a 256-byte boundary, both from the planner the
 * library uses on sm_90 and later. */
static size_t tile_elems(wk_dtype d, size_t n)
{
    wk_tile_plan p;
    wk_plan_scan(0x10000, 0x10000, n, wk_dtype_size(d), &p);
    return p.tile_elems;
}

/* The fewest elements that plan large tiles. */
static size_t first_large(wk_dtype d) { return WK_SCAN_LARGE_FROM_BYTES / wk_dtype_size(d); }

static size_t plan_offset(wk_dtype d, size_t in_offset)
{
    size_t elem = wk_dtype_size(d);
    wk_tile_plan p;
    wk_plan_scan(0x10000 + in_offset * elem, 0x10000, 1, elem, &p);
    return p.offset;
}

/* Special values, ties and all-equal data at size n. */
static void add_specials(case_list *l, wk_dtype d, wk_op op, int ex, size_t n, size_t k)
{
    if (wk_dtype_is_float(d)) {
        add(l, d, op, ex, INIT_IDENTITY, n, place(k, 4, 0), WK_GEN_UNIFORM, WK_SPECIAL_NAN);
        add(l, d, op, ex, INIT_VALUE, n, place(k + 1, 4, 0), WK_GEN_UNIFORM, WK_SPECIAL_INF);
        add(l, d, op, ex, INIT_IDENTITY, n, place(k + 2, 4, 1), WK_GEN_POSITIVE, WK_SPECIAL_POS_INF);
        add(l, d, op, ex, INIT_VALUE, n, place(k + 7, 4, 0), WK_GEN_UNIFORM, WK_SPECIAL_EDGE_NAN);
    }
    /* Extremes would overflow a float sum in an order-dependent way. */
    if (!is_float_sum(d, op))
        add(l, d, op, ex, INIT_VALUE, n, place(k + 3, 4, 0), WK_GEN_UNIFORM, WK_SPECIAL_EXTREMES);
    if (op == WK_MIN || op == WK_MAX) {
        add(l, d, op, ex, INIT_IDENTITY, n, place(k + 4, 4, 0), WK_GEN_UNIFORM, WK_SPECIAL_AT_END);
        add(l, d, op, ex, INIT_VALUE, n, place(k + 5, 4, 0), WK_GEN_SMALL_INTS, WK_SPECIAL_NONE); /* ties */
    }
    if (op != WK_SUM)
        add(l, d, op, ex, INIT_VALUE, n, place(k + 6, 4, 1), WK_GEN_CONSTANT, WK_SPECIAL_NONE); /* all equal */
}

static const size_t quick_sizes[] = {0, 1, 31, 32, 33, 1023, 1024, 1025, 4099, 65537};

static void add_quick(case_list *l, wk_dtype d, wk_op op, int ex)
{
    size_t base = 10 * (size_t)ex + 3 * (size_t)op + 5 * (size_t)d;
    for (size_t s = 0; s < COUNT(quick_sizes); ++s) {
        /* The 8- and 16-bit integers take half the sizes inclusive and
         * the others exclusive. */
        if (is_narrow_int(d) && (s + (size_t)ex) % 2)
            continue;
        add(l, d, op, ex, (init_kind)(s / 2 % 2), quick_sizes[s], place(base + s, 4, (s + (size_t)ex) % 5 == 4),
            mixed_pattern(d, op, s), WK_SPECIAL_NONE);
    }
    /* A few dozen tiles, so that the look-back runs in every dtype; and
     * once per dtype 16 MiB of input, the large tile shape (2-byte dtypes
     * keep the small one there). */
    if (op == WK_SUM || op == WK_MAX)
        add(l, d, op, ex, INIT_VALUE, 200003, place(base + 7, 4, 0), mixed_pattern(d, op, 1), WK_SPECIAL_NONE);
    if (op == WK_SUM && ex == (int)d % 2)
        add(l, d, op, ex, INIT_VALUE, first_large(d) + 3, place(base + 8, 4, 0), mixed_pattern(d, op, 1),
            WK_SPECIAL_NONE);
    if (wk_dtype_is_float(d)) {
        add(l, d, op, ex, INIT_IDENTITY, 65537, place(base + 1, 4, 0), WK_GEN_UNIFORM, WK_SPECIAL_NAN);
        add(l, d, op, ex, INIT_VALUE, 4099, place(base + 2, 4, 1), WK_GEN_UNIFORM, WK_SPECIAL_INF);
    } else {
        add(l, d, op, ex, INIT_VALUE, 1025, place(base + 3, 4, 0), WK_GEN_UNIFORM, WK_SPECIAL_EXTREMES);
    }
    if (op == WK_MIN || op == WK_MAX) {
        add(l, d, op, ex, INIT_VALUE, 1025, place(base + 5, 4, 0), WK_GEN_CONSTANT, WK_SPECIAL_NONE);
        add(l, d, op, ex, INIT_VALUE, 4099, place(base + 6, 4, 0), WK_GEN_SMALL_INTS, WK_SPECIAL_NONE);
    }
}

/* Where the tile shape changes: the last size with small tiles, the first
 * with large ones, and the first large-tile boundary past them. */
static void add_shape_edges(case_list *l, wk_dtype d, wk_op op, int ex, size_t base, size_t span)
{
    size_t edge = first_large(d), large = tile_elems(d, edge), boundary = edge / large + 1;
    add(l, d, op, ex, INIT_VALUE, edge - 1, place(base + 1, span, 0), mixed_pattern(d, op, 1), WK_SPECIAL_NONE);
    add(l, d, op, ex, INIT_IDENTITY, edge, place(base + 2, span, ex), mixed_pattern(d, op, 1), WK_SPECIAL_NONE);
    for (size_t delta = 0; delta < 2; ++delta) {
        placement at = place(base + 3 + delta, span, 0);
        size_t n = boundary * large - plan_offset(d, at.in_offset) + delta;
        add(l, d, op, ex, (init_kind)delta, n, at, mixed_pattern(d, op, 1), WK_SPECIAL_NONE);
    }
}

static const size_t full_small_sizes[] = {0,  1,   2,   3,   7,    8,    15,   16,   17,   31,
                                          32, 33,  255, 256, 257,  1023, 1024, 1025, 4099, 65537};
static const unsigned power_exponents[] = {11, 14, 17, 20};

static void add_full(case_list *l, wk_dtype d, wk_op op, int ex)
{
    size_t elem = wk_dtype_size(d);
    /* Every position in a 16-byte vector: offsets 0 to 7 for 2-byte dtypes. */
    size_t span = WK_TILE_VECTOR_BYTES / elem > 4 ? WK_TILE_VECTOR_BYTES / elem : 4;
    size_t base = 20 * (size_t)ex + 7 * (size_t)op + 3 * (size_t)d;

    for (size_t s = 0; s < COUNT(full_small_sizes); ++s)
        add(l, d, op, ex, (init_kind)(s / 2 % 2), full_small_sizes[s], place(base + s, span, (s + (size_t)ex) % 5 == 2),
            mixed_pattern(d, op, s), WK_SPECIAL_NONE);

    /* One element either side of the first three tile boundaries, which
     * move with the input's offset within its vector. Small integers for
     * float sums: an element lost or doubled at the seam shows. */
    size_t tile = tile_elems(d, 1);
    for (size_t m = 1; m <= 3; ++m)
        for (int delta = -1; delta <= 1; ++delta) {
            placement at = place(base + 3 * m + (size_t)(delta + 1), span, m == 2 && delta == 0);
            size_t n = m * tile - plan_offset(d, at.in_offset) + (size_t)(ptrdiff_t)delta;
            add(l, d, op, ex, (init_kind)(m % 2), n, at, mixed_pattern(d, op, 1), WK_SPECIAL_NONE);
        }

    for (size_t e = 0; e < COUNT(power_exponents); ++e)
        for (int delta = -1; delta <= 1; ++delta) {
            size_t n = ((size_t)1 << power_exponents[e]) + (size_t)(ptrdiff_t)delta;
            int in_place = delta == 0 && (e + (size_t)ex) % 2;
            add(l, d, op, ex, (init_kind)(e % 2), n, place(base + 3 * e + (size_t)(delta + 1), span, in_place),
                mixed_pattern(d, op, e + (size_t)(delta + 1)), WK_SPECIAL_NONE);
        }

    /* Large sizes: all of them for sums (float sums of uniform data with
     * their small-integer twins), the largest once per op else. */
    size_t p22 = ((size_t)1 << 22) + 3, p24m = ((size_t)1 << 24) - 1, p24p = ((size_t)1 << 24) + 7;
    if (op == WK_SUM) {
        add_sum_twinned(l, d, ex, INIT_VALUE, p22, place(base + 1, span, 0), WK_GEN_UNIFORM);
        add_sum_twinned(l, d, ex, INIT_IDENTITY, p24m, place(base + 2, span, ex), WK_GEN_UNIFORM);
        add_sum_twinned(l, d, ex, INIT_VALUE, p24p, place(base + 3, span, !ex), mixed_pattern(d, op, 1));
    } else if ((size_t)op % 2 == (size_t)ex) {
        add(l, d, op, ex, INIT_VALUE, p24p, place(base + 4, span, 0), WK_GEN_UNIFORM, WK_SPECIAL_NONE);
    }
    /* Exact float sums over many tiles, with an init. */
    if (is_float_sum(d, op))
        add(l, d, op, ex, INIT_VALUE, 1000003, place(base + 5, span, 0), WK_GEN_SMALL_INTS, WK_SPECIAL_NONE);

    add_specials(l, d, op, ex, 33, base);
    add_specials(l, d, op, ex, 1000003, base + 8);
    if (op == WK_SUM || (op == WK_MAX && !ex))
        add_shape_edges(l, d, op, ex, base, span);
}

/* Elements for 5000 tiles of dtype's large shape (a long chain of tile
 * prefixes), plus a few so that the last tile is partial. That many
 * elements may plan a shape of smaller tiles: 8-byte types reach their
 * staged tiles, about 6700 of them. */
static size_t many_tiles(wk_dtype d, size_t extra) { return 5000 * tile_elems(d, first_large(d)) + extra; }

/* 5000 tiles or more. Float sums of small integers stay exact over all of
 * them, so a prefix passed on wrong anywhere in the chain shows. */
static void add_many_tiles(case_list *l)
{
    for (int d = 0; d < WK_DTYPE_COUNT; ++d) {
        wk_dtype dtype = (wk_dtype)d;
        wk_op op = refused(dtype, WK_SUM) ? WK_MAX : WK_SUM; /* bools: "any" */
        add(l, dtype, op, d % 2, INIT_VALUE, many_tiles(dtype, 5), place((size_t)d, 4, d == 3),
            mixed_pattern(dtype, op, 1), WK_SPECIAL_NONE);
    }
    add_sum_twinned(l, WK_F64, 0, INIT_IDENTITY, many_tiles(WK_F64, 1), place(6, 4, 0), WK_GEN_UNIFORM);
    add(l, WK_F32, WK_MAX, 0, INIT_IDENTITY, many_tiles(WK_F32, 3), place(9, 4, 0), WK_GEN_UNIFORM, WK_SPECIAL_NONE);
    add(l, WK_U32, WK_XOR, 1, INIT_VALUE, many_tiles(WK_U32, 0) - 1, place(10, 4, 0), WK_GEN_UNIFORM,
        WK_SPECIAL_NONE);
    add(l, WK_F16, WK_MIN, 1, INIT_VALUE, many_tiles(WK_F16, 7), place(11, 4, 1), WK_GEN_UNIFORM, WK_SPECIAL_NAN);
}

/* The f64 min and max of 16 MiB and more, up to the wide pipelined tiles:
 * the pipelined kernel on sm_90 and later, and before sm_90 the chained
 * kernel with ordered integer keys (scan/carried_value.cuh). Each key path
 * gets its own case: NaNs (the key that wins, and a NaN whose bits lie
 * just past infinity's, of either sign), infinities, the extremes last,
 * and all-equal data, inclusive and exclusive. The quick list keeps one,
 * so that the sanitizers run these kernels. */
static void add_f64_keys(case_list *l, wk_case_level level)
{
    static const wk_special specials[] = {WK_SPECIAL_NAN, WK_SPECIAL_EDGE_NAN, WK_SPECIAL_INF, WK_SPECIAL_AT_END};
    size_t first = first_large(WK_F64), last = WK_SCAN_PIPELINED_WIDE_FROM_BYTES / wk_dtype_size(WK_F64) - 1;
    static const wk_op ops[] = {WK_MIN, WK_MAX};
    if (level == WK_CASES_QUICK) {
        add(l, WK_F64, WK_MIN, 1, INIT_VALUE, first + 5, place(1, 4, 0), WK_GEN_UNIFORM, WK_SPECIAL_EDGE_NAN);
        return;
    }
    for (size_t o = 0; o < COUNT(ops); ++o)
        for (int ex = 0; ex < 2; ++ex) {
            size_t k = 2 * o + (size_t)ex;
            for (size_t s = 0; s < COUNT(specials); ++s)
                add(l, WK_F64, ops[o], ex, (init_kind)(s % 2), first + 900001 * (k + 4 * s) + 1,
                    place(k + s, 4, s == 2), WK_GEN_UNIFORM, specials[s]);
            add(l, WK_F64, ops[o], ex, INIT_VALUE, k % 2 ? last : first, place(k, 4, (int)o), WK_GEN_CONSTANT,
                WK_SPECIAL_NONE);
        }
}

/* Where scans turn to the pipelined kernel and to its wide shape
 * (scan/plan.h): the last size with the shape below, the first with the
 * new one (in place for some), and inputs whose last tile holds a single
 * element or all but one, which the compute threads load themselves
 * rather than copy. Small integers for the float sums (mixed_pattern's odd
 * choice): a lost or doubled element at a seam shows. The quick list keeps
 * a 4-byte and an 8-byte run of each shape, for the sanitizers. */
static void add_pipelined_edges(case_list *l, wk_case_level level)
{
    static const struct {
        wk_dtype dtype;
        wk_op op;
        int exclusive;
    } runs[][3] = {
        {{WK_F32, WK_SUM, 0}, {WK_I32, WK_SUM, 1}, {WK_F64, WK_MAX, 0}},
        {{WK_F32, WK_SUM, 1}, {WK_I64, WK_SUM, 0}, {WK_F64, WK_MAX, 1}},
    };
    static const size_t from_bytes[] = {WK_SCAN_PIPELINED_FROM_BYTES, WK_SCAN_PIPELINED_WIDE_FROM_BYTES};
    for (size_t s = 0; s < COUNT(from_bytes); ++s)
        for (size_t r = 0; r < COUNT(runs[s]); ++r) {
            wk_dtype d = runs[s][r].dtype;
            wk_op op = runs[s][r].op;
            int ex = runs[s][r].exclusive;
            size_t edge = from_bytes[s] / wk_dtype_size(d);
            size_t tile = tile_elems(d, edge);
            if (level == WK_CASES_QUICK && r == 1)
                continue;
            placement at = place(3 * r + 1, 4, 0);
            size_t one_in_last = (edge / tile + 1) * tile + 1 - plan_offset(d, at.in_offset);
            add(l, d, op, ex, INIT_VALUE, one_in_last, at, mixed_pattern(d, op, 1), WK_SPECIAL_NONE);
            if (level == WK_CASES_QUICK)
                continue;
            add(l, d, op, ex, INIT_IDENTITY, edge - 1, place(3 * r, 4, 0), mixed_pattern(d, op, 1),
                WK_SPECIAL_NONE);
            add(l, d, op, ex, INIT_VALUE, edge, place(3 * r + 2, 4, (int)(r % 2)), mixed_pattern(d, op, 1),
                WK_SPECIAL_NONE);
            at = place(3 * r + 5, 4, 0);
            add(l, d, op, ex, INIT_IDENTITY, (edge / tile + 2) * tile - 1 - plan_offset(d, at.in_offset), at,
                mixed_pattern(d, op, 1), WK_SPECIAL_NONE);
        }
}

/* Bools run u8's kernels, whose tiles u8's cases cover: the quick list
 * checks what is theirs alone, an init that changes the outputs, coin
 * tosses, and "all" / "any" on constant data, alone and with one odd
 * element near the end. */
static void add_quick_bool(case_list *l, wk_op op, int ex)
{
    size_t base = 10 * (size_t)ex + 3 * (size_t)op;
    add(l, WK_BOOL, op, ex, INIT_VALUE, 1, place(base, 4, 0), WK_GEN_UNIFORM, WK_SPECIAL_NONE);
    add(l, WK_BOOL, op, ex, INIT_VALUE, 4099, place(base + 1, 4, ex), WK_GEN_UNIFORM, WK_SPECIAL_NONE);
    add(l, WK_BOOL, op, ex, INIT_IDENTITY, 1025, place(base + 2, 4, 0), WK_GEN_CONSTANT, WK_SPECIAL_NONE);
    add(l, WK_BOOL, op, ex, INIT_IDENTITY, 65537, place(base + 3, 4, 0), WK_GEN_CONSTANT, WK_SPECIAL_AT_END);
}

size_t wk_scan_cases(wk_case_level level, uint64_t seed, wk_scan_case *out, size_t cap)
{
    case_list l = wk_case_writer_start(out, sizeof *out, cap, seed);
    for (int d = 0; d < WK_DTYPE_COUNT; ++d)
        for (int o = 0; o < WK_OP_COUNT; ++o)
            for (int ex = 0; ex < 2; ++ex) {
                wk_dtype dtype = (wk_dtype)d;
                wk_op op = (wk_op)o;
                if (!op_applies(dtype, op))
                    continue;
                if (refused(dtype, op)) {
                    /* Refused before n is looked at. */
                    add(&l, dtype, op, ex, INIT_IDENTITY, 1025, place((size_t)ex, 4, 0), WK_GEN_UNIFORM,
                        WK_SPECIAL_NONE);
                    continue;
                }
                if (level == WK_CASES_QUICK && dtype == WK_BOOL)
                    add_quick_bool(&l, op, ex);
                else if (level == WK_CASES_QUICK)
                    add_quick(&l, dtype, op, ex);
                else
                    add_full(&l, dtype, op, ex);
            }
    if (level != WK_CASES_QUICK)
        add_many_tiles(&l);
    add_pipelined_edges(&l, level);
    add_f64_keys(&l, level);
    return l.count;
}

size_t wk_scan_huge_cases(uint64_t seed, wk_scan_case *out, size_t cap)
{
    case_list l = wk_case_writer_start(out, sizeof *out, cap, seed);
    /* Integer sums wrap, so any sum is exact: 2 x 8 GiB. */
    add(&l, WK_U32, WK_SUM, 0, INIT_IDENTITY, WK_CASES_HUGE + 5, place(13, 4, 0), WK_GEN_SMALL_INTS, WK_SPECIAL_NONE);
    /* Small integers keep every float prefix of 2^31 of them exact (their
     * spread stays near 2^20): the exact rule at 2^31 elements, in place. */
    add(&l, WK_F32, WK_SUM, 1, INIT_VALUE, WK_CASES_HUGE + 3, place(2, 4, 1), WK_GEN_SMALL_INTS, WK_SPECIAL_NONE);
    /* Half the bytes per element: 2^31 elements in 2 x 4 GiB. */
    add(&l, WK_F16, WK_MAX, 0, INIT_IDENTITY, WK_CASES_HUGE + 7, place(3, 4, 0), WK_GEN_UNIFORM, WK_SPECIAL_NONE);
    return l.count;
}

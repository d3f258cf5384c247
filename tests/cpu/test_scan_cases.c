/* Tests of the scan case lists (verify/check/scan_cases): every float sum of
 * more than 2^20 elements has a small-integer case of the same dtype, size,
 * kind and placement, which the checker compares exactly (the exact rule).
 * At those sizes the tolerance for uniform data exceeds 1, so without the
 * twin a lost or doubled element would pass unseen. And each pipelined tile
 * shape (scan/plan.h) is met at its edge: the last size below it, the
 * first at it, and a size whose last tile holds a single element (in the
 * quick list, which the sanitizers run, at least the last), for 4-byte and
 * 8-byte elements. The f64 min and max of the sizes whose chained kernels
 * carry ordered keys (before sm_90) meet NaNs, edge NaNs,
 * infinities and the extremes, inclusive and exclusive, and the edge-NaN
 * special plants what it says in every float dtype. Every dtype meets
 * every op it takes, and a sum of bools is there once per scan kind, for
 * its refusal. */
#include <inttypes.h>
#include <math.h>
#include <stdio.h>
#include <stdlib.h>
#include <string.h>

#include "check/case_data.h"
#include "ref/generate.h"
#include "ref/reference.h"
#include "warpkit.h"
#include "scan/plan.h"
#include "check/scan_cases.h"

static int n_passed, n_failed;

static int same_call(const wk_scan_case *a, const wk_scan_case *b)
{
    return a->dtype == b->dtype && a->op == b->op && a->exclusive == b->exclusive && a->n == b->n &&
           a->in_offset == b->in_offset && a->out_offset == b->out_offset && a->in_place == b->in_place;
}

static int exact_twin(const wk_scan_case *c)
{
    return c->pattern == WK_GEN_SMALL_INTS && c->special == WK_SPECIAL_NONE;
}

static void note(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (ok)
        n_passed++;
    else
        n_failed++;
}

/* The cases of a level, allocated (NULL, noted as a failure, if that
 * fails); *count gets their number. */
static wk_scan_case *list_cases(wk_case_level level, uint64_t seed, size_t *count)
{
    *count = wk_scan_cases(level, seed, NULL, 0);
    wk_scan_case *cases = calloc(*count, sizeof *cases);
    if (!cases)
        note(0, "cannot allocate the cases");
    else
        wk_scan_cases(level, seed, cases, *count);
    return cases;
}

static int is_f64_compare(const wk_scan_case *c)
{
    return c->dtype == WK_F64 && (c->op == WK_MIN || c->op == WK_MAX);
}

static void check_level(wk_case_level level, const char *name, uint64_t seed)
{
    size_t count;
    wk_scan_case *cases = list_cases(level, seed, &count);
    if (!cases)
        return;
    size_t large = 0, missing = 0;
    for (size_t i = 0; i < count; ++i) {
        const wk_scan_case *c = &cases[i];
        if (c->op != WK_SUM || !wk_dtype_is_float(c->dtype) || c->n <= ((size_t)1 << 20))
            continue;
        large++;
        int found = exact_twin(c);
        for (size_t j = 0; j < count && !found; ++j)
            found = exact_twin(&cases[j]) && same_call(c, &cases[j]);
        if (!found) {
            missing++;
            printf("  no small-integer twin: %s sum n=%zu %s in+%zu out+%zu%s\n", wk_dtype_name(c->dtype), c->n,
                   c->exclusive ? "excl" : "incl", c->in_offset, c->out_offset, c->in_place ? " in place" : "");
        }
    }
    int ok = large > 0 && missing == 0;
    printf("%s %s list: %zu float sums over 2^20 elements, %zu without a small-integer twin\n", ok ? "ok  " : "FAIL",
           name, large, missing);
    if (ok)
        n_passed++;
    else
        n_failed++;
    free(cases);
}

/* Case c's plan on sm_90 and later (for its own size, or for n elements)
 * is pipelined, in the shape `threads` x `vectors`. */
static int plans_shape(const wk_scan_case *c, size_t n, unsigned threads, unsigned vectors, wk_tile_plan *p)
{
    size_t elem = wk_dtype_size(c->dtype);
    return wk_plan_scan(0x10000 + c->in_offset * elem, 0x20000 + c->out_offset * elem, n, elem, p) == 0 &&
           p->pipelined && p->block == threads && p->vectors == vectors;
}

/* The last tile of case c, in that shape, holds a single element. */
static int one_in_last_tile(const wk_scan_case *c, unsigned threads, unsigned vectors)
{
    wk_tile_plan p;
    if (!plans_shape(c, c->n, threads, vectors, &p) || p.tiles == 0)
        return 0;
    return p.offset + c->n - (p.tiles - 1) * p.tile_elems == 1;
}

/* Each pipelined shape, from its first size on, is met by cases of 4-byte
 * and of 8-byte elements: the last size below, the first at it, and a last
 * tile of one element. */
static void check_pipelined_edges(wk_case_level level, const char *name, uint64_t seed)
{
    static const struct {
        size_t from_bytes, elem;
        unsigned threads, vectors;
    } shapes[] = {{WK_SCAN_PIPELINED_FROM_BYTES, 4, WK_SCAN_PIPELINED_THREADS, WK_SCAN_PIPELINED_VECTORS},
                  {WK_SCAN_PIPELINED_FROM_BYTES, 8, WK_SCAN_PIPELINED_THREADS, WK_SCAN_PIPELINED_VECTORS},
                  {WK_SCAN_PIPELINED_WIDE_FROM_BYTES, 4, WK_SCAN_PIPELINED_WIDE_THREADS,
                   WK_SCAN_PIPELINED_WIDE_VECTORS},
                  {WK_SCAN_PIPELINED_WIDE_FROM_BYTES, 8, WK_SCAN_PIPELINED_WIDE_THREADS,
                   WK_SCAN_PIPELINED_WIDE_VECTORS}};
    size_t count;
    wk_scan_case *cases = list_cases(level, seed, &count);
    if (!cases)
        return;
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        const unsigned threads = shapes[s].threads, vectors = shapes[s].vectors;
        size_t edge = shapes[s].from_bytes / shapes[s].elem;
        int below = 0, at = 0, one_in_last = 0;
        for (size_t i = 0; i < count; ++i) {
            const wk_scan_case *c = &cases[i];
            wk_tile_plan p;
            if (wk_dtype_size(c->dtype) != shapes[s].elem || !plans_shape(c, edge, threads, vectors, &p))
                continue;
            below |= c->n == edge - 1;
            at |= c->n == edge;
            one_in_last |= one_in_last_tile(c, threads, vectors);
        }
        char what[160];
        snprintf(what, sizeof what,
                 "%s list, %zu-byte pipelined tiles %u x %u from %zu elements: below %d, at %d, one in the last %d",
                 name, shapes[s].elem, threads, vectors, edge, below, at, one_in_last);
        note(one_in_last && (level == WK_CASES_QUICK || (below && at)), what);
    }
    free(cases);
}

/* Case c runs, on a GPU before sm_90, in the 128 x 16 chained kernels,
 * the ones with f64 keys. */
static int in_key_kernel(const wk_scan_case *c)
{
    wk_tile_plan p;
    return is_f64_compare(c) &&
           wk_plan_scan_for(0x10000 + c->in_offset * 8, 0x20000 + c->out_offset * 8, c->n, 8, 0, &p) == 0 &&
           p.block == WK_SCAN_WIDE_THREADS && p.vectors == WK_SCAN_WIDE_VECTORS;
}

static void check_f64_keys(wk_case_level level, const char *name, uint64_t seed)
{
    static const wk_special specials[] = {WK_SPECIAL_NAN, WK_SPECIAL_EDGE_NAN, WK_SPECIAL_INF, WK_SPECIAL_AT_END};
    size_t count;
    wk_scan_case *cases = list_cases(level, seed, &count);
    if (!cases)
        return;
    /* Per op and kind: each special, then all-equal data. */
    int met[2][2][5] = {{{0}}}, edge_nan = 0, missing = 0;
    for (size_t i = 0; i < count; ++i) {
        const wk_scan_case *c = &cases[i];
        if (!in_key_kernel(c))
            continue;
        edge_nan |= c->special == WK_SPECIAL_EDGE_NAN;
        for (int s = 0; s < 4; ++s)
            if (c->special == specials[s])
                met[c->op == WK_MAX][c->exclusive != 0][s] = 1;
        if (c->pattern == WK_GEN_CONSTANT && c->special == WK_SPECIAL_NONE)
            met[c->op == WK_MAX][c->exclusive != 0][4] = 1;
    }
    for (int o = 0; o < 2; ++o)
        for (int ex = 0; ex < 2; ++ex)
            for (int s = 0; s < 5; ++s)
                missing += !met[o][ex][s];
    char what[160];
    snprintf(what, sizeof what,
             "%s list, f64 min / max in the key kernels: edge NaNs %d, %d of 20 op x kind x data kinds missing", name,
             edge_nan, missing);
    note(level == WK_CASES_QUICK ? edge_nan : missing == 0, what);
    free(cases);
}

/* The edge-NaN special: in each float dtype, +inf, -inf, and two NaNs of
 * opposite signs whose magnitude bits are infinity's plus one. */
static void check_edge_nan_special(void)
{
    static const struct {
        wk_dtype dtype;
        uint64_t edge; /* infinity's bits plus one */
    } floats[] = {{WK_F32, 0x7f800001u}, {WK_F64, 0x7ff0000000000001ull}, {WK_F16, 0x7c01u}, {WK_BF16, 0x7f81u}};
    for (size_t f = 0; f < sizeof floats / sizeof floats[0]; ++f) {
        wk_dtype d = floats[f].dtype;
        size_t n = 4096, size = wk_dtype_size(d);
        const uint64_t sign = 1ull << (8 * size - 1);
        unsigned char *h = calloc(n, size);
        if (!h) {
            note(0, "cannot allocate the data");
            return;
        }
        /* A fixed seed: the four places are drawn at random and could
         * coincide, which would fail the counts for the draw's sake. */
        wk_generate(h, n, d, WK_GEN_UNIFORM, 7);
        wk_plant_specials(h, n, d, WK_SPECIAL_EDGE_NAN, 7);
        int pos_inf = 0, neg_inf = 0, nans[2] = {0, 0};
        for (size_t i = 0; i < n; ++i) {
            long double x = wk_ref_load(h, i, d);
            uint64_t bits = 0;
            memcpy(&bits, h + i * size, size);
            pos_inf += isinf(x) && x > 0;
            neg_inf += isinf(x) && x < 0;
            if (isnan(x))
                nans[(bits & sign) != 0] += (bits & ~sign) == floats[f].edge;
        }
        char what[160];
        snprintf(what, sizeof what, "edge-NaN special in %s: +inf %d, -inf %d, edge NaNs +%d -%d", wk_dtype_name(d),
                 pos_inf, neg_inf, nans[0], nans[1]);
        note(pos_inf == 1 && neg_inf == 1 && nans[0] == 1 && nans[1] == 1, what);
        free(h);
    }
}

/* Every dtype with every op it takes, inclusive and exclusive; a sum of
 * bools, which the library refuses, once per scan kind and no more; a
 * bool's inits and data 0 or 1 (the generator's and the specials'). */
static void check_dtypes(wk_case_level level, const char *name, uint64_t seed)
{
    size_t count;
    wk_scan_case *cases = list_cases(level, seed, &count);
    if (!cases)
        return;
    int seen[WK_DTYPE_COUNT][WK_OP_COUNT][2];
    memset(seen, 0, sizeof seen);
    size_t refused = 0, bad_bools = 0, bool_cases = 0;
    for (size_t i = 0; i < count; ++i) {
        const wk_scan_case *c = &cases[i];
        seen[c->dtype][c->op][c->exclusive != 0]++;
        refused += wk_ref_dtype_op_status(c->dtype, c->op) != WK_SUCCESS;
        if (c->dtype != WK_BOOL || c->n > 100000)
            continue;
        bool_cases++;
        unsigned char *h = malloc(c->n + 1);
        wk_generate(h, c->n, c->dtype, c->pattern, c->seed);
        wk_plant_specials(h, c->n, c->dtype, c->special, c->seed);
        int ok = !c->exclusive || c->init.b <= 1;
        for (size_t k = 0; k < c->n; ++k)
            ok &= h[k] <= 1;
        bad_bools += !ok;
        free(h);
    }
    size_t missing = 0;
    for (int d = 0; d < WK_DTYPE_COUNT; ++d)
        for (int o = 0; o < WK_OP_COUNT; ++o)
            for (int ex = 0; ex < 2; ++ex) {
                int applies =
                    !wk_op_is_arg((wk_op)o) && !(wk_op_is_bitwise((wk_op)o) && wk_dtype_is_float((wk_dtype)d));
                missing += applies && !seen[d][o][ex];
            }
    char what[256];
    snprintf(what, sizeof what,
             "%s list: every dtype x op x kind (%zu missing); %zu refused cases, the bool sums, one per kind "
             "(%d incl, %d excl); %zu bool cases hold 0 and 1 only (%zu not)",
             name, missing, refused, seen[WK_BOOL][WK_SUM][0], seen[WK_BOOL][WK_SUM][1], bool_cases, bad_bools);
    note(missing == 0 && refused == 2 && seen[WK_BOOL][WK_SUM][0] == 1 && seen[WK_BOOL][WK_SUM][1] == 1 &&
             bool_cases > 0 && bad_bools == 0,
         what);
    free(cases);
}

int main(void)
{
    uint64_t seed = wk_seed_from_time();
    printf("seed 0x%016" PRIx64 "\n", seed);
    check_level(WK_CASES_QUICK, "quick", seed);
    check_level(WK_CASES_FULL, "full", seed);
    check_pipelined_edges(WK_CASES_QUICK, "quick", seed);
    check_pipelined_edges(WK_CASES_FULL, "full", seed);
    check_f64_keys(WK_CASES_QUICK, "quick", seed);
    check_f64_keys(WK_CASES_FULL, "full", seed);
    check_edge_nan_special();
    check_dtypes(WK_CASES_QUICK, "quick", seed);
    check_dtypes(WK_CASES_FULL, "full", seed);
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed ? 1 : 0;
}

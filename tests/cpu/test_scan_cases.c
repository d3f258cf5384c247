/* Tests of the scan case lists (src/check/scan_cases): every float sum of
 * more than 2^20 elements has a small-integer case of the same dtype, size,
 * kind and placement, which the checker compares exactly (the exact rule).
 * At those sizes the tolerance for uniform data exceeds 1, so without the
 * twin a lost or doubled element would pass unseen. And each staged tile
 * shape (scan/plan.h) is met at its edge: the last size below it, the
 * first at it, and a size whose last tile ends inside its shared-memory
 * part (in the quick list, which the sanitizers run, at least the last). */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "generate.h"
#include "internal.h"
#include "scan/plan.h"
#include "scan_cases.h"

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

static void check_level(wk_case_level level, const char *name, uint64_t seed)
{
    size_t count = wk_scan_cases(level, seed, NULL, 0);
    wk_scan_case *cases = calloc(count, sizeof *cases);
    if (!cases) {
        printf("FAIL %s: cannot allocate %zu cases\n", name, count);
        n_failed++;
        return;
    }
    wk_scan_cases(level, seed, cases, count);
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

static void note(int ok, const char *what)
{
    printf("%s %s\n", ok ? "ok  " : "FAIL", what);
    if (ok)
        n_passed++;
    else
        n_failed++;
}

/* The last tile of case c ends inside the shared-memory part of a staged
 * tile of `threads` threads: past its register part, short of its end. */
static int ends_in_stage(const wk_scan_case *c, unsigned threads)
{
    size_t elem = wk_dtype_size(c->dtype);
    wk_scan_plan p;
    if (wk_plan_scan(0x10000 + c->in_offset * elem, 0x20000 + c->out_offset * elem, c->n, elem, &p) != 0 ||
        p.block != threads || p.tiles == 0)
        return 0;
    size_t in_last = p.offset + c->n - (p.tiles - 1) * p.tile_elems;
    size_t in_registers = (size_t)threads * WK_SCAN_STAGED_REGISTER_VECTORS * p.vec_elems;
    return in_last > in_registers && in_last < p.tile_elems;
}

static void check_staged_edges(wk_case_level level, const char *name, uint64_t seed)
{
    static const struct {
        size_t from_bytes, elem;
        unsigned threads;
    } shapes[] = {{WK_SCAN_MID_FROM_BYTES, 4, WK_SCAN_MID_THREADS},
                  {WK_SCAN_STAGED_FROM_BYTES, 4, WK_SCAN_THREADS},
                  {WK_SCAN_WIDE_STAGED_FROM_BYTES, 8, WK_SCAN_WIDE_THREADS}};
    size_t count = wk_scan_cases(level, seed, NULL, 0);
    wk_scan_case *cases = calloc(count, sizeof *cases);
    if (!cases) {
        note(0, "cannot allocate the cases");
        return;
    }
    wk_scan_cases(level, seed, cases, count);
    for (size_t s = 0; s < sizeof shapes / sizeof shapes[0]; ++s) {
        size_t edge = shapes[s].from_bytes / shapes[s].elem;
        int below = 0, at = 0, inside = 0;
        for (size_t i = 0; i < count; ++i) {
            const wk_scan_case *c = &cases[i];
            if (wk_dtype_size(c->dtype) != shapes[s].elem)
                continue;
            below |= c->n == edge - 1;
            at |= c->n == edge;
            inside |= ends_in_stage(c, shapes[s].threads);
        }
        char what[160];
        snprintf(what, sizeof what, "%s list, %zu-byte staged tiles from %zu elements: below %d, at %d, ending inside %d",
                 name, shapes[s].elem, edge, below, at, inside);
        note(inside && (level == WK_CASES_QUICK || (below && at)), what);
    }
    free(cases);
}

int main(void)
{
    uint64_t seed = wk_seed_from_time();
    printf("seed 0x%016" PRIx64 "\n", seed);
    check_level(WK_CASES_QUICK, "quick", seed);
    check_level(WK_CASES_FULL, "full", seed);
    check_staged_edges(WK_CASES_QUICK, "quick", seed);
    check_staged_edges(WK_CASES_FULL, "full", seed);
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed ? 1 : 0;
}

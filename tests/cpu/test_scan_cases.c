/* Tests of the scan case lists (src/check/scan_cases): every float sum of
 * more than 2^20 elements has a small-integer case of the same dtype, size,
 * kind and placement, which the checker compares exactly (the exact rule).
 * At those sizes the tolerance for uniform data exceeds 1, so without the
 * twin a lost or doubled element would pass unseen. */
#include <inttypes.h>
#include <stdio.h>
#include <stdlib.h>

#include "generate.h"
#include "internal.h"
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

int main(void)
{
    uint64_t seed = wk_seed_from_time();
    printf("seed 0x%016" PRIx64 "\n", seed);
    check_level(WK_CASES_QUICK, "quick", seed);
    check_level(WK_CASES_FULL, "full", seed);
    printf("%d passed, %d failed\n", n_passed, n_failed);
    return n_failed ? 1 : 0;
}

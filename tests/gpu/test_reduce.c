/* GPU test of wk_reduce: every dtype and op, edge and odd sizes, offsets of
 * 0 to 3 elements, NaN, infinities, ties, all-equal data, and sizes over
 * 2^31 elements, each against the CPU reference with a poisoned output.
 *
 * WK_TEST_LEVEL picks the list (tests/test_util.h): quick (the short list,
 * for the sanitizers; WK_TEST_QUICK=1 too), default (the full list up to
 * 2^28 bytes of input) or large (the rest: the sizes over 2^31 elements).
 * WK_SEED repeats a run. Exits 77 (skipped) without a CUDA device. */
#include "gpu/case_test_util.h"
#include "check/reduce_cases.h"

#include <stdio.h>
#include <stdlib.h>

static size_t input_bytes(const void *c)
{
    const wk_reduce_case *r = c;
    return r->n * wk_dtype_size(r->dtype);
}

int main(void)
{
    wk_case_test run;
    int start = wk_case_test_start(&run);
    if (start >= 0)
        return start;
    int quick = run.level == WK_LEVEL_QUICK;
    uint64_t seed = run.seed;

    size_t count = wk_reduce_cases(quick ? WK_CASES_QUICK : WK_CASES_FULL, wk_context_sm_count(run.env.ctx), seed, NULL, 0);
    size_t huge = quick ? 0 : wk_reduce_huge_cases(seed, NULL, 0);
    wk_reduce_case *cases = malloc((count + huge) * sizeof *cases);
    if (!cases)
        return 1;
    wk_reduce_cases(quick ? WK_CASES_QUICK : WK_CASES_FULL, wk_context_sm_count(run.env.ctx), seed, cases, count);
    wk_reduce_huge_cases(seed, cases + count, huge);
    size_t total = count + huge, kept = total;
    if (!quick)
        kept = wk_case_test_filter(run.level, cases, total, sizeof *cases, input_bytes);
    printf("%zu cases at level %s\n", kept, wk_test_level_name(run.level));

    wk_tally t = {0, 0};
    char msg[640];
    for (size_t i = 0; i < kept; ++i) {
        int ok = wk_check_reduce_case(&run.env, &cases[i], msg, sizeof msg);
        /* Failures always print; passes only for the large cases, to keep the log short. */
        if (!ok || cases[i].n > ((size_t)1 << 20))
            printf("%s %s\n", ok ? "pass" : "FAIL", msg);
        fflush(stdout);
        wk_tally_add(&t, ok);
    }
    wk_case_test_report(&run, kept, total - kept, 0);
    free(cases);
    wk_check_env_free(&run.env);
    return wk_tally_finish(&t);
}

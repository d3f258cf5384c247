/* GPU test of wk_reduce: every dtype and op, edge and odd sizes, offsets of
 * 0 to 3 elements, NaN, infinities, ties, all-equal data, and sizes over
 * 2^31 elements, each against the CPU reference with a poisoned output.
 *
 * WK_TEST_QUICK=1 runs the short list (for the sanitizers); WK_SEED repeats a
 * run. Exits 77 (skipped) without a CUDA device. */
#include "case_test_util.h"
#include "reduce_cases.h"

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    wk_case_test run;
    int start = wk_case_test_start(&run);
    if (start >= 0)
        return start;
    int quick = run.quick;
    uint64_t seed = run.seed;

    size_t count = wk_reduce_cases(quick ? WK_CASES_QUICK : WK_CASES_FULL, wk_context_sm_count(run.env.ctx), seed, NULL, 0);
    size_t huge = quick ? 0 : wk_reduce_huge_cases(seed, NULL, 0);
    wk_reduce_case *cases = malloc((count + huge) * sizeof *cases);
    if (!cases)
        return 1;
    wk_reduce_cases(quick ? WK_CASES_QUICK : WK_CASES_FULL, wk_context_sm_count(run.env.ctx), seed, cases, count);
    wk_reduce_huge_cases(seed, cases + count, huge);

    wk_tally t = {0, 0};
    char msg[640];
    for (size_t i = 0; i < count + huge; ++i) {
        int ok = wk_check_reduce_case(&run.env, &cases[i], msg, sizeof msg);
        /* Failures always print; passes only for the large cases, to keep the log short. */
        if (!ok || cases[i].n > ((size_t)1 << 20))
            printf("%s %s\n", ok ? "pass" : "FAIL", msg);
        wk_tally_add(&t, ok);
    }
    free(cases);
    wk_check_env_free(&run.env);
    return wk_tally_finish(&t);
}

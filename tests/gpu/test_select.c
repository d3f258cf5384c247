/* GPU test of the selects (wk_select_if, wk_select_flagged,
 * wk_partition_if, wk_unique, wk_where): every dtype and mode, every
 * compare, edge and odd sizes, sizes around tile boundaries and over 2000
 * tiles, input, output and flags offsets, in place, selectivities from
 * 0 % to 100 %, runs of duplicates, NaN data and constants, signed zeros,
 * infinities, extremes, and sizes over 2^31 elements; the count and every
 * output against the CPU reference bit for bit, the outputs past the count
 * and the guard bands around every buffer untouched.
 *
 * WK_TEST_QUICK=1 runs the short list (for the sanitizers); WK_SEED repeats a
 * run. Exits 77 (skipped) without a CUDA device. */
#include "generate.h"
#include "select_cases.h"
#include "test_util.h"

#include <stdio.h>
#include <stdlib.h>

int main(void)
{
    wk_check_env env;
    int setup = wk_test_setup(wk_check_env_init(&env, -1), "set-up");
    if (setup >= 0)
        return setup;
    int quick = wk_test_quick();
    uint64_t seed = wk_seed_from_time();
    printf("seed %llu (set WK_SEED to repeat)%s\n", (unsigned long long)seed, quick ? ", quick list" : "");

    wk_case_level level = quick ? WK_CASES_QUICK : WK_CASES_FULL;
    size_t count = wk_select_cases(level, seed, NULL, 0);
    size_t huge = quick ? 0 : wk_select_huge_cases(seed, NULL, 0);
    wk_select_case *cases = malloc((count + huge) * sizeof *cases);
    if (!cases)
        return 1;
    wk_select_cases(level, seed, cases, count);
    wk_select_huge_cases(seed, cases + count, huge);
    printf("%zu cases, %zu of them over 2^31 elements\n", count + huge, huge);

    wk_tally t = {0, 0};
    int skipped = 0;
    char msg[2048];
    for (size_t i = 0; i < count + huge; ++i) {
        wk_check_result r = wk_check_select_case(&env, &cases[i], msg, sizeof msg);
        if (r == WK_CHECK_SKIP) {
            printf("SKIP %s\n", msg);
            skipped++;
            continue;
        }
        /* Failures always print; passes only for the large cases, to keep the log short. */
        if (r != WK_CHECK_PASS || cases[i].n > ((size_t)1 << 20))
            printf("%s %s\n", r == WK_CHECK_PASS ? "pass" : "FAIL", msg);
        fflush(stdout);
        wk_tally_add(&t, r == WK_CHECK_PASS);
    }
    if (skipped)
        printf("%d cases skipped for lack of memory\n", skipped);
    free(cases);
    wk_check_env_free(&env);
    return wk_tally_finish(&t);
}

/* GPU test of the selects (wk_select_if, wk_select_flagged,
 * wk_partition_if, wk_unique, wk_where): every dtype and mode, every
 * compare, edge and odd sizes, sizes around tile boundaries and over 2000
 * tiles, input, output and flags offsets, in place, selectivities from
 * 0 % to 100 %, runs of duplicates, NaN data and constants, signed zeros,
 * infinities, extremes, and sizes over 2^31 elements; the count and every
 * output against the CPU reference bit for bit, the outputs past the count
 * and the guard bands around every buffer untouched.
 *
 * WK_TEST_LEVEL picks the list (tests/test_util.h): quick (the short list,
 * for the sanitizers; WK_TEST_QUICK=1 too), default (the full list up to
 * 2^28 bytes of input) or large (the rest, with the sizes over 2^31
 * elements). WK_SEED repeats a run. Exits 77 (skipped) without a CUDA device. */
#include "gpu/case_test_util.h"
#include "check/select_cases.h"

static size_t cases(wk_case_level level, uint64_t seed, void *out, size_t cap)
{
    return wk_select_cases(level, seed, out, cap);
}

static size_t huge_cases(uint64_t seed, void *out, size_t cap) { return wk_select_huge_cases(seed, out, cap); }

static wk_check_result check(wk_check_env *env, const void *c, char *msg, size_t msg_size)
{
    return wk_check_select_case(env, c, msg, msg_size);
}

static size_t elements(const void *c) { return ((const wk_select_case *)c)->n; }

static size_t bytes(const void *c)
{
    const wk_select_case *k = c;
    return k->n * wk_dtype_size(k->dtype);
}

int main(void)
{
    const wk_case_list list = {sizeof(wk_select_case), cases, huge_cases, check, elements, bytes};
    return wk_run_case_list(&list);
}

/* GPU test of wk_inclusive_scan and wk_exclusive_scan: every dtype, op and
 * scan kind, edge and odd sizes, sizes around tile boundaries and up to
 * 5000 tiles, input and output offsets, in place, inits, NaN, infinities,
 * extremes, ties, all-equal data, and sizes over 2^31 elements; every
 * output against the CPU reference, the guard bands around it untouched.
 *
 * WK_TEST_LEVEL picks the list (tests/test_util.h): quick (the short list,
 * for the sanitizers; WK_TEST_QUICK=1 too), default (the full list up to
 * 2^28 bytes of input) or large (the rest, with the sizes over 2^31
 * elements). WK_SEED repeats a run. Exits 77 (skipped) without a CUDA device. */
#include "gpu/case_test_util.h"
#include "check/scan_cases.h"

static size_t cases(wk_case_level level, uint64_t seed, void *out, size_t cap)
{
    return wk_scan_cases(level, seed, out, cap);
}

static size_t huge_cases(uint64_t seed, void *out, size_t cap) { return wk_scan_huge_cases(seed, out, cap); }

static wk_check_result check(wk_check_env *env, const void *c, char *msg, size_t msg_size)
{
    return wk_check_scan_case(env, c, msg, msg_size);
}

static size_t elements(const void *c) { return ((const wk_scan_case *)c)->n; }

static size_t bytes(const void *c)
{
    const wk_scan_case *k = c;
    return k->n * wk_dtype_size(k->dtype);
}

int main(void)
{
    const wk_case_list list = {sizeof(wk_scan_case), cases, huge_cases, check, elements, bytes};
    return wk_run_case_list(&list);
}

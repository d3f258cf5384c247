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

WK_CASE_LIST(scan_list, wk_scan_case, wk_scan_cases, wk_scan_huge_cases, wk_check_scan_case);

int main(void) { return wk_run_case_list(&scan_list); }

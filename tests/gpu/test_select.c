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

WK_CASE_LIST(select_list, wk_select_case, wk_select_cases, wk_select_huge_cases, wk_check_select_case);

int main(void) { return wk_run_case_list(&select_list); }

/* Segmented scan kernels for i64; one dtype per file so builds run in parallel. */
#include "launchers.cuh"

WK_DEFINE_SEG_SCAN_LAUNCHER(i64, long long)

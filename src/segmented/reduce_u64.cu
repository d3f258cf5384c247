/* Segmented reduce kernels for u64; one dtype per file so builds run in parallel. */
#include "launchers.cuh"

WK_DEFINE_SEG_REDUCE_LAUNCHER(u64, unsigned long long)

/* Reduce kernels for i64 (long long); one dtype per file so builds run in parallel. */
#include "reduce_kernel.cuh"

WK_DEFINE_REDUCE_LAUNCHER(i64, long long)

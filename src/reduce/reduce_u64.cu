/* Reduce kernels for u64 (unsigned long long); one dtype per file so builds run in parallel. */
#include "reduce_kernel.cuh"

WK_DEFINE_REDUCE_LAUNCHER(u64, unsigned long long)

/* Reduce kernels for i32 (int); one dtype per file so builds run in parallel. */
#include "reduce_kernel.cuh"

WK_DEFINE_REDUCE_LAUNCHER(i32, int)

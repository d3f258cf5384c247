/* Reduce kernels for u32 (unsigned); one dtype per file so builds run in parallel. */
#include "reduce_kernel.cuh"

WK_DEFINE_REDUCE_LAUNCHER(u32, unsigned)

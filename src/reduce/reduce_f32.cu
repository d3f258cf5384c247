/* Reduce kernels for f32 (float); one dtype per file so builds run in parallel. */
#include "reduce_kernel.cuh"

WK_DEFINE_REDUCE_LAUNCHER(f32, float)

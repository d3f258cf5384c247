/* Reduce kernels for bf16 (__nv_bfloat16); one dtype per file so builds run in parallel. */
#include "reduce_kernel.cuh"

WK_DEFINE_REDUCE_LAUNCHER(bf16, __nv_bfloat16)

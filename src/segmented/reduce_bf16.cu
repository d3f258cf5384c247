/* Segmented reduce kernels for bf16; one dtype per file so builds run in parallel. */
#include "launchers.cuh"
#include "repro_segments.cuh"

WK_DEFINE_SEG_REDUCE_LAUNCHER(bf16, __nv_bfloat16)
WK_DEFINE_SEG_REPRO_LAUNCHER(bf16, wk::repro::half_elements<true>, WK_REPRO_OUT_BF16, 2)

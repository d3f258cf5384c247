/* Segmented reduce kernels for f16; one dtype per file so builds run in parallel. */
#include "launchers.cuh"
#include "repro_segments.cuh"

WK_DEFINE_SEG_REDUCE_LAUNCHER(f16, __half)
WK_DEFINE_SEG_REPRO_LAUNCHER(f16, wk::repro::half_elements<false>, WK_REPRO_OUT_F16, 2)

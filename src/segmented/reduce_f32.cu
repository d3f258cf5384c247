/* Segmented reduce kernels for f32; one dtype per file so builds run in parallel. */
#include "launchers.cuh"
#include "repro_segments.cuh"

WK_DEFINE_SEG_REDUCE_LAUNCHER(f32, float)
WK_DEFINE_SEG_REPRO_LAUNCHER(f32, wk::repro::f32_elements, WK_REPRO_OUT_F32, 4)

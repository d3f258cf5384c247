/* Segmented reduce kernels for f64; one dtype per file so builds run in parallel. */
#include "launchers.cuh"
#include "repro_segments.cuh"

WK_DEFINE_SEG_REDUCE_LAUNCHER(f64, double)
WK_DEFINE_SEG_REPRO_LAUNCHER(f64, wk::repro::f64_elements, WK_REPRO_OUT_F64, 8)

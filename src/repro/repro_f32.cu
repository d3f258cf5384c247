/* Reproducible-sum kernels for f32; one dtype per file so builds run in parallel. */
#include "repro_kernel.cuh"

WK_DEFINE_REPRO_LAUNCHER(f32, wk::repro::f32_elements)

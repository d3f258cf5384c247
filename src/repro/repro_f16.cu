/* Reproducible-sum kernels for f16; one dtype per file so builds run in parallel. */
#include "repro_kernel.cuh"

WK_DEFINE_REPRO_LAUNCHER(f16, wk::repro::half_elements<false>)

/* Reproducible-sum kernels for bf16; one dtype per file so builds run in parallel. */
#include "repro_kernel.cuh"

WK_DEFINE_REPRO_LAUNCHER(bf16, wk::repro::half_elements<true>)

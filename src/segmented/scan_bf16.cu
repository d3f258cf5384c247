/* Segmented scan kernels for bf16; one dtype per file so builds run in parallel. */
#include "launchers.cuh"

WK_DEFINE_SEG_SCAN_LAUNCHER(bf16, __nv_bfloat16)

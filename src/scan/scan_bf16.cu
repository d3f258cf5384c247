/* Scan kernels for bf16 (__nv_bfloat16); one dtype per file so builds run in parallel. */
#include "scan_launcher.cuh"

WK_DEFINE_SCAN_LAUNCHER(bf16, __nv_bfloat16)

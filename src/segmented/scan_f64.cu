/* Segmented scan kernels for f64; one dtype per file so builds run in parallel. */
#include "launchers.cuh"

WK_DEFINE_SEG_SCAN_LAUNCHER(f64, double)

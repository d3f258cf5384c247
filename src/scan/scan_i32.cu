/* Scan kernels for i32 (int); one dtype per file so builds run in parallel. */
#include "scan_launcher.cuh"

WK_DEFINE_SCAN_LAUNCHER(i32, int)

/* Scan kernels for f16 (__half); one dtype per file so builds run in parallel. */
#include "scan_launcher.cuh"

WK_DEFINE_SCAN_LAUNCHER(f16, __half)

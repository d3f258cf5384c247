/* Scan kernels for u32 (unsigned); one dtype per file so builds run in parallel. */
#include "scan_launcher.cuh"

WK_DEFINE_SCAN_LAUNCHER(u32, unsigned)

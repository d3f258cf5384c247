/* Scan kernels for i64 (long long); one dtype per file so builds run in parallel. */
#include "scan_launcher.cuh"

WK_DEFINE_SCAN_LAUNCHER(i64, long long)

/* Scan kernels for u64 (unsigned long long); one dtype per file so builds run in parallel. */
#include "scan_launcher.cuh"

WK_DEFINE_SCAN_LAUNCHER(u64, unsigned long long)

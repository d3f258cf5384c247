/* Select kernels for u64 (unsigned long long); one dtype per file so builds run in parallel. */
#include "select_launcher.cuh"

WK_DEFINE_SELECT_LAUNCHER(u64, unsigned long long)

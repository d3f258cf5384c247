/* Select kernels for i64 (long long); one dtype per file so builds run in parallel. */
#include "select_launcher.cuh"

WK_DEFINE_SELECT_LAUNCHER(i64, long long)

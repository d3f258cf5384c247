/* Select kernels for f16 (__half); one dtype per file so builds run in parallel. */
#include "select_launcher.cuh"

WK_DEFINE_SELECT_LAUNCHER(f16, __half)

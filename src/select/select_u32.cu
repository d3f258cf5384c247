/* Select kernels for u32 (unsigned); one dtype per file so builds run in parallel. */
#include "select_launcher.cuh"

WK_DEFINE_SELECT_LAUNCHER(u32, unsigned)

/* Select kernels for f64 (double); one dtype per file so builds run in parallel. */
#include "select_launcher.cuh"

WK_DEFINE_SELECT_LAUNCHER(f64, double)

/* Select kernels for bf16 (__nv_bfloat16); one dtype per file so builds run in parallel. */
#include "select_launcher.cuh"

WK_DEFINE_SELECT_LAUNCHER(bf16, __nv_bfloat16)

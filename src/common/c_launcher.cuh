/* The C launchers of the kernel families: one extern "C" function per
 * family and dtype of src/include/common/dtypes.h, e.g. wk_reduce_launch_f32,
 * that hands its launch record to the family's C++ launcher for that dtype.
 * cmake/WarpkitKernels.cmake writes one use of a family's DEFINE macro per
 * generated file. */
#ifndef WARPKIT_COMMON_C_LAUNCHER_CUH
#define WARPKIT_COMMON_C_LAUNCHER_CUH

#include <cuda_runtime.h>

/* Defines `symbol`, taking a `const record *` and returning what `launch`
 * (a C++ launcher instance, no commas in it) returns for it. */
#define WK_DEFINE_C_LAUNCHER(symbol, record, launch)                          \
    extern "C" cudaError_t symbol(const record *l) { return launch(l); }

#endif

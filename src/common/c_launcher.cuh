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

/* As WK_DEFINE_C_LAUNCHER, for a family with sums kept in a wider dtype:
 * with l->widen, the case of l->out_dtype in the input's WK_WIDER_SUMS_
 * list (common/dtypes.h), each written by WIDER_CASE(out_code, type) with
 * S naming the input's storage; else `launch`. */
#define WK_DEFINE_WIDENING_C_LAUNCHER(symbol, record, code, storage, launch, WIDER_CASE) \
    static cudaError_t symbol##_wider(const record *l)                                  \
    {                                                                                   \
        using S [[maybe_unused]] = storage;                                             \
        switch (l->out_dtype) {                                                         \
            WK_WIDER_SUMS_##code(WIDER_CASE)                                            \
        default: return cudaErrorInvalidValue;                                          \
        }                                                                               \
    }                                                                                   \
    extern "C" cudaError_t symbol(const record *l) { return l->widen ? symbol##_wider(l) : launch(l); }

#endif
